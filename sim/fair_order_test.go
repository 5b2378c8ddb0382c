package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkedFair is Fair that, after every ordering, checks that its
// incrementally kept order is exactly the runnable jobs sorted by running
// tasks, then index: what a full sort on every slot would give.
type checkedFair struct {
	Fair
	t      *testing.T
	checks int
}

func (c *checkedFair) Assign(s *State, node int, k Kind) int {
	j := c.Fair.Assign(s, node, k)
	want := fairSorted(s, k)
	if got := orderList(&c.Fair.order[k]); !slices.Equal(got, want) {
		c.t.Fatalf("t = %v, kind %d: order %v, want %v", s.Now(), k, got, want)
	}
	c.checks++
	return j
}

// TestFairOrderIsASort: on random workloads, with and without delay
// scheduling, Fair's order after every slot equals a full sort.
func TestFairOrderIsASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	checks := 0
	for i := range 40 {
		w := randomWorkload(rng, i%2 == 0, i%3 != 0)
		p := &checkedFair{Fair: Fair{Delay: i % 3, RackDelay: i % 2}, t: t}
		mustRun(t, w, p, &Settings{Seed: uint64(i)})
		checks += p.checks
	}
	if checks < 1000 {
		t.Errorf("only %d orderings checked", checks)
	}
}

// orderList is the order walked from its head, as Assign walks it.
func orderList(o *fairOrder) []int32 {
	var l []int32
	for c, j := o.first(); j >= 0; c, j = o.after(c, j) {
		l = append(l, int32(j))
	}
	return l
}

// fairSorted is the runnable jobs of kind k sorted afresh by running tasks,
// then index: the order Fair keeps incrementally.
func fairSorted(s *State, k Kind) []int32 {
	order := slices.Clone(s.Runnable(k))
	slices.SortFunc(order, func(a, b int32) int {
		if ra, rb := s.Running(int(a), k), s.Running(int(b), k); ra != rb {
			return ra - rb
		}
		return int(a - b)
	})
	return order
}
