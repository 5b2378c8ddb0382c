package sim

import (
	"fmt"
	"slices"
)

// Fair is max-min fair sharing as the Hadoop Fair Scheduler does it (Zaharia et al., "Delay Scheduling", EuroSys 2010):
// a free slot goes to the job with the fewest running tasks of the slot's kind
// (ties to the earlier job in the workload), which, as slots free up often,
// converges on equal shares.
//
// With Delay = 0 it is the paper's Algorithm 1, naive fair sharing: the job at
// the head takes the slot whatever its locality. With Delay = D > 0 it is
// Algorithm 2, delay scheduling: a job at the head with no node-local task for
// the offered node is skipped (its skip count grows by one) and the slot is
// offered to the next job, until it has been skipped D times; then it may
// launch non-local tasks, and its count returns to 0 only when it launches a
// node-local one. RackDelay adds the paper's second wait for rack locality:
// after D skips only rack-local tasks are allowed, after D + RackDelay any.
// Reduce tasks read no block and are never delayed. A slot nobody takes is
// answered Later, so it is offered again.
type Fair struct {
	Delay, RackDelay int

	order     [2][]int32
	version   [2]uint64
	skip      []int32
	skippedAt []uint64 // the offer in which the job was last skipped
	offer     uint64
}

var (
	_ Policy        = (*Fair)(nil)
	_ Starter       = (*Fair)(nil)
	_ OfferObserver = (*Fair)(nil)
)

// Name is "fair", or "fair D=d" with delay scheduling ("fair D=d+r" with a
// rack delay).
func (f *Fair) Name() string {
	switch {
	case f.Delay == 0 && f.RackDelay == 0:
		return "fair"
	case f.RackDelay == 0:
		return fmt.Sprintf("fair D=%d", f.Delay)
	}
	return fmt.Sprintf("fair D=%d+%d", f.Delay, f.RackDelay)
}

// Start forgets the previous run.
func (f *Fair) Start(s *State) {
	f.skip = make([]int32, s.Jobs())
	f.skippedAt = make([]uint64, s.Jobs())
	f.offer = 0
	for k := range f.order {
		f.order[k] = f.order[k][:0]
		f.version[k] = ^uint64(0)
	}
}

// Offering starts a scheduling opportunity: a node offering its free slots
// (a heartbeat, in Hadoop). A job is skipped at most once per opportunity, so
// that D counts nodes seen, not slots: a node with two free slots is one
// chance at locality, not two.
func (f *Fair) Offering(*State, int) { f.offer++ }

// Assign implements Algorithms 1 and 2.
func (f *Fair) Assign(s *State, node int, k Kind) int {
	f.sort(s, k)
	for _, j32 := range f.order[k] {
		j := int(j32)
		if k == Reduce || (f.Delay == 0 && f.RackDelay == 0) {
			return j
		}
		switch l := s.BestLocality(j, node, k); {
		case l == NodeLocal || l == NoInput:
			f.skip[j] = 0
			return j
		case l == RackLocal && int(f.skip[j]) >= f.Delay,
			l == Remote && int(f.skip[j]) >= f.Delay+f.RackDelay:
			return j
		}
		if f.skippedAt[j] != f.offer {
			f.skippedAt[j] = f.offer
			f.skip[j]++
		}
	}
	return Later
}

// sort orders the runnable jobs by running tasks. The order is kept between
// calls and only rebuilt when the runnable set changes; between changes
// running counts move by one at a time, so insertion sort on the nearly
// sorted slice is linear.
func (f *Fair) sort(s *State, k Kind) {
	running := func(j int32) int32 { return int32(s.Running(int(j), k)) }
	less := func(a, b int32) bool {
		ra, rb := running(a), running(b)
		return ra < rb || (ra == rb && a < b)
	}
	o := f.order[k]
	if v := s.RunnableVersion(k); v != f.version[k] {
		o = append(o[:0], s.Runnable(k)...)
		f.version[k] = v
		slices.SortFunc(o, func(a, b int32) int {
			if less(a, b) {
				return -1
			}
			return 1
		})
	} else {
		for i := 1; i < len(o); i++ {
			for m := i; m > 0 && less(o[m], o[m-1]); m-- {
				o[m], o[m-1] = o[m-1], o[m]
			}
		}
	}
	f.order[k] = o
}
