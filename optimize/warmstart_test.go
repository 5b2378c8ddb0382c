package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestWarmStartGoesOn: a column generation that starts from another's
// columns (added in another order) and final basis (as each run of auto starts from the last whole
// run's) starts at that LP's optimum: the same value before any pivot, and
// no pivot to prove it optimal; solving the same columns from the
// singletons reaches the same value only after pivots. A basis that is not
// one (a column twice) is refused and leaves the LP as it was.
func TestWarmStartGoesOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 11))
	pivoted := 0
	for inst := range 30 {
		p, err := model.NewProblem(RandomWorkload(uint64(9200+inst), 8+rng.IntN(20)), randomSmallCluster(rng))
		if err != nil {
			t.Fatal(err)
		}
		m := len(p.Jobs)
		first := newColumnGen(p, 0, 0)
		first.incumbent = math.Inf(1)
		for round := 1; round <= 6; round++ {
			first.lp.solve(1000*m, nil)
			if added, _, _ := first.price(round); added == 0 {
				break
			}
		}
		z := first.lp.solve(1000*m, nil)
		if !first.lp.optimal {
			t.Fatalf("instance %d: the first LP did not reach its optimum", inst)
		}
		again := newColumnGen(p, 0, 0) // the columns in reverse: the basis must be mapped
		for _, ph := range slices.Backward(first.phases) {
			again.addPhase(ph)
		}
		if !again.warmStart(first.phases, slices.Clone(first.lp.basis), nil) {
			t.Fatalf("instance %d: the first LP's optimal basis was refused", inst)
		}
		if v := again.lp.objective(); math.Abs(v-z) > 1e-9*z {
			t.Fatalf("instance %d: warm start at value %v, the first LP ended at %v", inst, v, z)
		}
		before := again.lp.work
		if v := again.lp.solve(1000*m, nil); !again.lp.optimal || again.lp.work != before || math.Abs(v-z) > 1e-9*z {
			t.Fatalf("instance %d: warm solve took %d pivots to %v (optimal %v), want 0 to %v", inst, again.lp.work-before, v, again.lp.optimal, z)
		}
		cold := newColumnGen(p, 0, 0)
		for _, ph := range first.phases {
			cold.addPhase(ph)
		}
		if v := cold.lp.solve(1000*m, nil); math.Abs(v-z) > 1e-9*z {
			t.Fatalf("instance %d: cold solve of the same columns gives %v, want %v", inst, v, z)
		}
		pivoted += cold.lp.work
		bad := slices.Clone(first.lp.basis)
		col := len(first.phases) - 1
		for k := range bad {
			bad[k] = -1 - k // the surpluses...
		}
		bad[0], bad[1] = col, col // ... and one column twice: singular
		cold2 := newColumnGen(p, 0, 0)
		for _, ph := range first.phases {
			cold2.addPhase(ph)
		}
		v0 := cold2.lp.objective()
		if cold2.warmStart(first.phases, bad, nil) {
			t.Fatalf("instance %d: a basis with column %d twice was taken", inst, col)
		}
		if v := cold2.lp.objective(); v != v0 || !slices.Equal(cold2.lp.basis, identityBasis(m)) {
			t.Fatalf("instance %d: a refused basis changed the LP (value %v, was %v; basis %v)", inst, v, v0, cold2.lp.basis)
		}
	}
	if pivoted < 30 {
		t.Errorf("cold solves took %d pivots in all: the warm start saved nothing to test", pivoted)
	}
}

// identityBasis is the singleton columns' basis, column j in row j.
func identityBasis(m int) []int {
	b := make([]int, m)
	for j := range b {
		b[j] = j
	}
	return b
}
