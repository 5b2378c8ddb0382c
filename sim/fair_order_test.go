package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkedFair is Fair that, after every ordering, checks that its
// incrementally kept order is exactly the runnable jobs sorted by running
// tasks, then index: what a full sort on every slot would give; that every
// runnable job is filed under its running count and no other job is filed;
// and, where the head takes every slot (naive fair sharing, reduces), that
// the job given the slot is the head. The job Fair gives the slot while it
// is filed a count too high is sorted and checked at the count its launch
// gives it.
type checkedFair struct {
	Fair
	t            *testing.T
	checks, kept int
}

func (c *checkedFair) Assign(s *State, node int, k Kind) int {
	j := c.Fair.Assign(s, node, k)
	o := &c.Fair.order[k]
	launching := -1 // the job given the slot, if left filed a count too high
	if j >= 0 && o.key[j] == int32(s.Running(j, k))+1 {
		launching = j
		c.kept++
	}
	// (Under delay scheduling the head may be passed over: the rules test
	// checks every choice against the paper's algorithm.)
	if k == Reduce || c.Delay == 0 && c.RackDelay == 0 {
		if head := fairSorted(s, k, -1)[0]; int(head) != j {
			c.t.Fatalf("t = %v, kind %d: job %d given the slot, the head is %d", s.Now(), k, j, head)
		}
	}
	for i, key := range o.key {
		want := int32(-1)
		if s.IsRunnable(i, k) {
			want = int32(s.Running(i, k))
			if i == launching {
				want++
			}
		}
		if key != want {
			c.t.Fatalf("t = %v, kind %d: job %d filed under count %d, want %d", s.Now(), k, i, key, want)
		}
	}
	want := fairSorted(s, k, launching)
	if got := orderList(o); !slices.Equal(got, want) {
		c.t.Fatalf("t = %v, kind %d: order %v, want %v", s.Now(), k, got, want)
	}
	c.checks++
	return j
}

// TestFairOrderIsASort: on random workloads, with and without delay
// scheduling and heartbeats, Fair's order after every slot equals a full
// sort (but for a job given the slot while filed a count too high, sorted
// as launched).
func TestFairOrderIsASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	checks, kept := 0, 0
	for i := range 40 {
		w := randomWorkload(rng, i%2 == 0, i%3 != 0)
		p := &checkedFair{Fair: Fair{Delay: i % 3, RackDelay: i % 2}, t: t}
		if i%4 == 0 {
			p.Fair = Fair{} // naive fair sharing, for maps as well as reduces
		}
		set := &Settings{Seed: uint64(i)}
		if i%5 >= 3 {
			// Several jobs change between two offers.
			set.Heartbeat = 3
		}
		mustRun(t, w, p, set)
		checks += p.checks
		kept += p.kept
	}
	if checks < 1000 || kept < 100 {
		t.Errorf("only %d orderings checked, %d with a job left filed a count too high", checks, kept)
	}
	t.Logf("%d orderings checked, %d with a job left filed a count too high", checks, kept)
}

// orderList is the order walked from its head, as Assign walks it.
func orderList(o *fairOrder) []int32 {
	var l []int32
	for c, j := o.first(); j >= 0; c, j = o.after(c, j) {
		l = append(l, int32(j))
	}
	return l
}

// fairSorted is the runnable jobs of kind k sorted afresh by running tasks
// (one more for job launching, if not −1), then index: the order Fair keeps
// incrementally.
func fairSorted(s *State, k Kind, launching int) []int32 {
	order := slices.Clone(s.Runnable(k))
	running := func(j int32) int {
		if int(j) == launching {
			return s.Running(int(j), k) + 1
		}
		return s.Running(int(j), k)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if ra, rb := running(a), running(b); ra != rb {
			return ra - rb
		}
		return int(a - b)
	})
	return order
}
