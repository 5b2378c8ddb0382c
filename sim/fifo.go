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
	// The jobs active[:skip[k]] had no pending task of kind k when the core
	// had added jobs to its runnable set adds[k] times; while that count
	// stands they still have none (a job gains pending tasks only by being
	// added), so Assign starts there instead of rescanning the head.
	skip [2]int
	adds [2]uint64
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
func (f *FIFO) Start(*State) {
	f.active = f.active[:0]
	f.skip = [2]int{}
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

// JobArrived inserts the job in FIFO order.
func (f *FIFO) JobArrived(s *State, j int) {
	i, _ := slices.BinarySearchFunc(f.active, int32(j), func(a, b int32) int { return fifoLess(s, a, b) })
	f.active = slices.Insert(f.active, i, int32(j))
	f.skip = [2]int{}
}

// JobFinished removes the job.
func (f *FIFO) JobFinished(_ *State, j int) {
	if i := slices.Index(f.active, int32(j)); i >= 0 {
		f.active = slices.Delete(f.active, i, i+1)
	}
	f.skip = [2]int{}
}

// Assign gives the slot to the first job in order with a pending task.
func (f *FIFO) Assign(s *State, _ int, k Kind) int {
	if f.adds[k] != s.adds[k] {
		f.skip[k], f.adds[k] = 0, s.adds[k]
	}
	for i := f.skip[k]; i < len(f.active); i++ {
		if j := f.active[i]; s.Pending(int(j), k) > 0 {
			f.skip[k] = i
			return int(j)
		}
	}
	f.skip[k] = len(f.active)
	return Idle
}
