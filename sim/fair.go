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
	key       [2][]int32 // the running count each job in order was placed by
	in        [2][]bool  // the job is in order
	stamp     []uint64   // f.merges when the job was last seen runnable in a merge
	merges    uint64
	moved     []int32
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
	f.stamp = make([]uint64, s.Jobs())
	f.merges = 0
	f.offer = 0
	for k := range f.order {
		f.order[k] = f.order[k][:0]
		f.key[k] = make([]int32, s.Jobs())
		f.in[k] = make([]bool, s.Jobs())
		f.version[k] = ^uint64(0)
	}
	s.WatchRunning()
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

// sort orders the runnable jobs by running tasks, then index. Only what
// changed is redone: the jobs whose running count moved (State.TakeMoved)
// are taken out and put back where their new count belongs, by binary
// search; when the runnable set changed, the jobs that left are dropped in
// one pass and those that joined are put in likewise (a first build, or many
// joining at once, sorts afresh). A slot then costs O(moved · log R)
// comparisons, not a pass over all R runnable jobs, which at 10⁷ tasks was
// nearly all of a fair run's time.
func (f *Fair) sort(s *State, k Kind) {
	o, key := f.order[k], f.key[k]
	f.moved = s.TakeMoved(k, f.moved)
	for _, j := range f.moved {
		if !f.in[k][j] {
			continue // placed by its count when it joins
		}
		i, _ := slices.BinarySearchFunc(o, j, func(x, t int32) int { return cmpRun(key, x, t) })
		key[j] = int32(s.Running(int(j), k))
		o = slices.Delete(o, i, i+1)
		i, _ = slices.BinarySearchFunc(o, j, func(x, t int32) int { return cmpRun(key, x, t) })
		o = slices.Insert(o, i, j)
	}
	if v := s.RunnableVersion(k); v != f.version[k] {
		o = f.merge(s, k, o, v)
	}
	f.order[k] = o
}

// merge brings o, ordered, to the runnable set of version v.
func (f *Fair) merge(s *State, k Kind, o []int32, v uint64) []int32 {
	key, in := f.key[k], f.in[k]
	run := s.Runnable(k)
	f.merges++
	for _, j := range run {
		f.stamp[j] = f.merges
	}
	kept := o[:0]
	for _, j := range o {
		if f.stamp[j] == f.merges {
			kept = append(kept, j)
		} else {
			in[j] = false
		}
	}
	o = kept
	joined := len(run) - len(o)
	rebuild := f.version[k] == ^uint64(0) || joined > 32
	f.version[k] = v
	for _, j := range run {
		if in[j] {
			continue
		}
		in[j], key[j] = true, int32(s.Running(int(j), k))
		if rebuild {
			o = append(o, j)
			continue
		}
		i, _ := slices.BinarySearchFunc(o, j, func(x, t int32) int { return cmpRun(key, x, t) })
		o = slices.Insert(o, i, j)
	}
	if rebuild {
		slices.SortFunc(o, func(a, b int32) int { return cmpRun(key, a, b) })
	}
	return o
}

// cmpRun orders jobs by the running count in key, then by index.
func cmpRun(key []int32, a, b int32) int {
	if key[a] != key[b] {
		return int(key[a] - key[b])
	}
	return int(a - b)
}
