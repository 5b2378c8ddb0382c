package sim

import (
	"cmp"
	"slices"
)

// FIFO is Hadoop 1's default scheduler: a free slot goes to the first job, by
// priority (higher first) and then submit time (then workload order), that has
// a pending task of the slot's kind; within the job the core picks the most
// local task.
type FIFO struct {
	active []int32 // arrived, unfinished jobs in FIFO order
}

var (
	_ Policy          = (*FIFO)(nil)
	_ Starter         = (*FIFO)(nil)
	_ ArrivalObserver = (*FIFO)(nil)
	_ FinishObserver  = (*FIFO)(nil)
)

// Name is "fifo".
func (*FIFO) Name() string { return "fifo" }

// Start forgets the previous run.
func (f *FIFO) Start(*State) { f.active = f.active[:0] }

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

// JobArrived inserts the job in FIFO order.
func (f *FIFO) JobArrived(s *State, j int) {
	i, _ := slices.BinarySearchFunc(f.active, int32(j), func(a, b int32) int { return fifoLess(s, a, b) })
	f.active = slices.Insert(f.active, i, int32(j))
}

// JobFinished removes the job.
func (f *FIFO) JobFinished(_ *State, j int) {
	if i := slices.Index(f.active, int32(j)); i >= 0 {
		f.active = slices.Delete(f.active, i, i+1)
	}
}

// Assign gives the slot to the first job in order with a pending task.
func (f *FIFO) Assign(s *State, _ int, k Kind) int {
	for _, j := range f.active {
		if s.Pending(int(j), k) > 0 {
			return int(j)
		}
	}
	return Idle
}
