package sim

import (
	"cmp"
	"slices"
)

// FIFO is Hadoop 1's default scheduler: a free slot goes to the first job, by
// priority (higher first) and then submit time (then workload order), that has
// a pending task of the slot's kind; within the job the core picks the most
// local task.
//
// The order of the jobs is known before they arrive, so each job's place in
// it (its rank) is fixed when the run starts, and the jobs that have a
// pending task of each kind are a set of ranks, which the core keeps up to
// date through FIFO's RunnableChanged: a slot's job is that set's least
// member, where a list of the jobs in the system, scanned for a pending
// task, cost a look at every job whose tasks had all started (hundreds on a
// saturated cluster of 10,000 nodes) at every arrival.
type FIFO struct {
	run    uint64       // the run the ranks are of (State.Serial)
	byRank []int32      // the jobs in FIFO order
	rank   []int32      // job j's place in byRank
	ready  [2]*indexSet // the ranks of the jobs in Runnable(kind)
}

var (
	_ Policy           = (*FIFO)(nil)
	_ Starter          = (*FIFO)(nil)
	_ RunnableObserver = (*FIFO)(nil)
)

// Name is "fifo".
func (*FIFO) Name() string { return "fifo" }

// Start ranks the run's jobs and forgets the previous run.
func (f *FIFO) Start(s *State) {
	n := s.Jobs()
	f.run = s.Serial()
	f.byRank = slices.Grow(f.byRank[:0], n)[:n]
	for j := range f.byRank {
		f.byRank[j] = int32(j)
	}
	slices.SortFunc(f.byRank, func(a, b int32) int { return fifoLess(s, a, b) })
	f.rank = slices.Grow(f.rank[:0], n)[:n]
	for r, j := range f.byRank {
		f.rank[j] = int32(r)
	}
	for k := range f.ready {
		f.ready[k] = newIndexSet(n)
		for _, j := range s.Runnable(Kind(k)) {
			f.ready[k].add(int(f.rank[j]))
		}
	}
}

// started starts the run if a policy embedding FIFO has a Start of its own
// that does not call FIFO's.
func (f *FIFO) started(s *State) {
	if f.run != s.Serial() {
		f.Start(s)
	}
}

func fifoLess(s *State, a, b int32) int {
	ja, jb := s.Job(int(a)), s.Job(int(b))
	if c := cmp.Compare(jb.Priority, ja.Priority); c != 0 {
		return c
	}
	if c := cmp.Compare(ja.Arrival, jb.Arrival); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// RunnableChanged files job j's rank in or out of the kind's set.
func (f *FIFO) RunnableChanged(s *State, j int, k Kind, runnable bool) {
	f.started(s)
	if runnable {
		f.ready[k].add(int(f.rank[j]))
	} else {
		f.ready[k].remove(int(f.rank[j]))
	}
}

// Assign gives the slot to the first job in order with a pending task.
func (f *FIFO) Assign(s *State, _ int, k Kind) int {
	f.started(s)
	if r := f.ready[k].next(0); r >= 0 {
		return int(f.byRank[r])
	}
	return Idle
}
