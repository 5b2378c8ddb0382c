package sim

import "fmt"

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
// answered Later, so it is offered again. Delay and RackDelay must not be
// negative (ParsePolicy refuses them; Start panics).
type Fair struct {
	Delay, RackDelay int

	order     [2]fairOrder
	changed   []int32
	skip      []int32
	skippedAt []uint64 // the offer in which the job was last skipped
	offer     uint64
}

var (
	_ Policy        = (*Fair)(nil)
	_ Starter       = (*Fair)(nil)
	_ OfferObserver = (*Fair)(nil)
	_ StickySlots   = (*Fair)(nil)
)

// StickySlots marks Fair as StickySlots: a freed slot usually goes back to
// the job whose task ended, which has just fallen behind the others.
func (*Fair) StickySlots() {}

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
	if f.Delay < 0 || f.RackDelay < 0 {
		// Assign's shortcut before D skips (only a node-local task can be
		// taken) holds only for waits that are not negative.
		panic(fmt.Sprintf("sim: Fair with a negative wait (Delay %d, RackDelay %d)", f.Delay, f.RackDelay))
	}
	f.skip = make([]int32, s.Jobs())
	f.skippedAt = make([]uint64, s.Jobs())
	f.offer = 0
	for k := range f.order {
		// A job never runs more tasks than it has, nor than there are slots.
		most := 0
		for j := range s.Jobs() {
			most = max(most, s.Remaining(j, Kind(k)))
		}
		f.order[k].reset(s.Jobs(), min(most, s.Slots(Kind(k))*s.Nodes()))
	}
	s.WatchJobs()
}

// Offering starts a scheduling opportunity: a node offering its free slots
// (a heartbeat, in Hadoop). A job is skipped at most once per opportunity, so
// that D counts nodes seen, not slots: a node with two free slots is one
// chance at locality, not two.
func (f *Fair) Offering(*State, int) { f.offer++ }

// Assign implements Algorithms 1 and 2.
func (f *Fair) Assign(s *State, node int, k Kind) int {
	c, j, lazy := f.head(s, k)
	if k == Reduce || (f.Delay == 0 && f.RackDelay == 0) {
		return j
	}
	o := &f.order[k]
	for ; j >= 0; c, j = o.after(c, j) {
		if int(f.skip[j]) < f.Delay {
			// Before D skips only a node-local task is taken, and whether
			// there is one costs less to learn than the best locality.
			if s.NodeLocal(j, node, k) {
				f.skip[j] = 0
				return j
			}
		} else {
			switch l := s.BestLocality(j, node, k); {
			case l == NodeLocal || l == NoInput:
				f.skip[j] = 0
				return j
			case l == RackLocal,
				l == Remote && int(f.skip[j]) >= f.Delay+f.RackDelay:
				return j
			}
		}
		if f.skippedAt[j] != f.offer {
			f.skippedAt[j] = f.offer
			f.skip[j]++
		}
		if j == lazy {
			// Passed over: filed under its count now, so that after goes
			// on from its place.
			f.refile(s, o, j, k)
		}
	}
	return Later
}

// refile files job j again under its running count, if it is runnable.
func (f *Fair) refile(s *State, o *fairOrder, j int, k Kind) {
	o.take(j)
	if s.IsRunnable(j, k) {
		o.put(j, s.Running(j, k))
	}
}

// head is the head of the order, its count and the job (or −1), after the
// jobs changed since the last slot are filed again (refileChanged): but for
// one. A freed slot usually goes back to the job whose task just ended
// (under naive fair sharing, nearly every launch): its count falls by
// one, which makes it the head, and the launch raises it again. Refiled
// both times, that job cost four set operations a launch. So one changed
// job whose count fell by one stays filed a count too high if it is the head
// even so (compared with the head of the others, as refiled), and is
// returned as lazy too (else lazy is −1). If Assign gives it the slot, the
// core launches it before it asks again (Policy), which puts its count back
// where it is filed; if Assign passes it over, Assign files it. Until then
// the order is a sort of the jobs but for that one.
func (f *Fair) head(s *State, k Kind) (c, j, lazy int) {
	o := &f.order[k]
	lazy = f.refileChanged(s, k)
	c, j = o.first()
	if lazy < 0 {
		return c, j, -1
	}
	// (The lazy job is filed, so the order has a head.)
	if lc := s.Running(lazy, k); lc < c || lc == c && lazy < j {
		return lc, lazy, lazy
	}
	f.refile(s, o, lazy, k)
	return c, j, -1
}

// refileChanged files again, under their running count now, the jobs whose
// count or runnability changed since the last slot (State.TakeChanged):
// O(1) per change, where re-sorting or merging the runnable jobs costs O(R)
// and, at 10⁷ tasks, nearly all of a fair run's time. A job whose count is
// what it is filed under (launched from a count too high, see head) stays;
// and the first runnable job whose count fell by one is left where it is
// filed and returned (or −1), for head to compare.
func (f *Fair) refileChanged(s *State, k Kind) (lazy int) {
	o := &f.order[k]
	f.changed = s.TakeChanged(k, f.changed)
	lazy = -1
	for _, j32 := range f.changed {
		j := int(j32)
		if !s.IsRunnable(j, k) {
			o.take(j)
			continue
		}
		switch c, key := int32(s.Running(j, k)), o.key[j]; {
		case c == key-1 && lazy < 0:
			lazy = j
		case c != key:
			o.take(j)
			o.put(j, int(c))
		}
	}
	return lazy
}

// fairOrder is the runnable jobs of one kind by running count, then index
// (but for a job Fair gives a slot while it is filed a count too high,
// Fair.head, filed at its count after the launch): a set of the jobs per
// count and a set of the counts that have jobs, so that a job changes place
// in O(1) and the order is walked from its head without being kept as a
// list. Each job set is a bitmap over all jobs (jobs/8 bytes and its
// summaries), and at most about √(2·slots) counts have jobs at once, since
// the running counts of distinct jobs sum to at most the slots: for the
// traces' tens of thousands of jobs a few hundred kilobytes.
type fairOrder struct {
	counts  *indexSet   // the counts some job in the order has
	byCount []*indexSet // the jobs by count; nil where none
	key     []int32     // the count job j is filed under, or −1 if not in the order
	spare   []*indexSet // empty job sets, for the next count that needs one
	jobs    int
}

// reset empties the order for a run of jobs jobs whose running counts are at
// most maxCount.
func (o *fairOrder) reset(jobs, maxCount int) {
	o.counts = newIndexSet(maxCount + 1)
	o.byCount = make([]*indexSet, maxCount+1)
	o.key = make([]int32, jobs)
	for j := range o.key {
		o.key[j] = -1
	}
	o.spare, o.jobs = o.spare[:0], jobs
}

// put files job j, not in the order, under count c.
func (o *fairOrder) put(j, c int) {
	b := o.byCount[c]
	if b == nil {
		if n := len(o.spare); n > 0 {
			b, o.spare = o.spare[n-1], o.spare[:n-1]
		} else {
			b = newIndexSet(o.jobs)
		}
		o.byCount[c] = b
		o.counts.add(c)
	}
	b.add(j)
	o.key[j] = int32(c)
}

// take removes job j from the order, if it is there.
func (o *fairOrder) take(j int) {
	c := o.key[j]
	if c < 0 {
		return
	}
	o.key[j] = -1
	b := o.byCount[c]
	if b.remove(j) {
		// An empty set is all zeros: ready for reuse as it is (its
		// bounds on members, lo and hi, are loose but still bounds).
		o.byCount[c] = nil
		o.spare = append(o.spare, b)
		o.counts.remove(int(c))
	}
}

// first is the head of the order (its count and job), or job −1.
func (o *fairOrder) first() (c, j int) {
	if c = o.counts.next(0); c < 0 {
		return -1, -1
	}
	return c, o.byCount[c].next(0)
}

// after is the job after job j, filed under count c, or job −1.
func (o *fairOrder) after(c, j int) (int, int) {
	if n := o.byCount[c].next(j + 1); n >= 0 {
		return c, n
	}
	if c = o.counts.next(c + 1); c < 0 {
		return -1, -1
	}
	return c, o.byCount[c].next(0)
}
