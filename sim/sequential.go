package sim

import (
	"cmp"
	"slices"
)

// Sequential runs one job at a time on the whole cluster, in order of submit
// time (then workload order), the next starting only when the previous has
// finished: the packing paper's baseline (Aboulnaga et al., CloudDB 2009), every job alone on all N VMs in turn.
type Sequential struct {
	order []int32
	next  int
}

var (
	_ Policy         = (*Sequential)(nil)
	_ Starter        = (*Sequential)(nil)
	_ FinishObserver = (*Sequential)(nil)
)

// Name is "sequential".
func (*Sequential) Name() string { return "sequential" }

// Start orders the jobs.
func (q *Sequential) Start(s *State) {
	q.order, q.next = q.order[:0], 0
	for j := range s.Jobs() {
		q.order = append(q.order, int32(j))
	}
	slices.SortStableFunc(q.order, func(a, b int32) int { return cmp.Compare(s.Job(int(a)).Arrival, s.Job(int(b)).Arrival) })
}

// JobFinished moves on to the next job and offers it every node.
func (q *Sequential) JobFinished(s *State, j int) {
	for q.next < len(q.order) && s.Finished(int(q.order[q.next])) {
		q.next++
	}
	for n := range s.Nodes() {
		s.Wake(n)
	}
}

// Assign gives every slot to the current job.
func (q *Sequential) Assign(s *State, _ int, k Kind) int {
	if q.next < len(q.order) {
		if j := int(q.order[q.next]); s.Pending(j, k) > 0 {
			return j
		}
	}
	return Idle
}
