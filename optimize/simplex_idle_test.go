package optimize

import (
	"math"
	"testing"
)

// TestIdleColumnsKeepTheOptimum: the master LP of 120 jobs on 50 hosts
// after 60 pricing rounds, solved from the singletons with every column
// but the singletons idle, ends optimal at the value the same LP reaches
// with every column active (the plain reference): wake brings back each
// column the optimum needs. The column generator's own LP, whose columns
// went idle along the way (some must have, never a singleton), ends at
// that value too, both count their idle columns' non-zeros right
// (idleNZ), and an idle column pricing finds again is not entered twice.
func TestIdleColumnsKeepTheOptimum(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		p := randomOnHosts(t, seed, 120, 50)
		m := len(p.Jobs)
		cg := newColumnGen(p, 0, 0)
		priceRounds(cg, 60, 1000*m)
		z := cg.lp.solve(1000*m, nil)
		idle := 0
		for _, i := range cg.lp.idle {
			if i {
				idle++
			}
		}
		plain := freshLP(cg)
		want := plain.solve(1000*m, nil)
		woken := freshLP(cg)
		woken.idle, woken.age = make([]bool, len(woken.cols)), make([]int32, len(woken.cols))
		for c := m; c < len(woken.cols); c++ {
			woken.idle[c] = true
			woken.idleNZ += len(woken.cols[c])
		}
		got := woken.solve(1000*m, nil)
		if !plain.optimal || !woken.optimal || !cg.lp.optimal {
			t.Fatalf("seed %d: optimal: plain %v, all idle %v, column generation's %v", seed, plain.optimal, woken.optimal, cg.lp.optimal)
		}
		if idle == 0 {
			t.Fatalf("seed %d: no column of %d went idle in 60 rounds: the test would not test it", seed, len(cg.lp.cols))
		}
		for name, v := range map[string]float64{"all idle at first": got, "column generation's": z} {
			if math.Abs(v-want) > 1e-9*(1+want) {
				t.Errorf("seed %d: the LP %s ends at %v, with every column active at %v", seed, name, v, want)
			}
		}
		for name, lp := range map[string]*coverLP{"all idle at first": woken, "column generation's": cg.lp} {
			nz := 0
			for c, i := range lp.idle {
				if i {
					nz += len(lp.cols[c])
				}
			}
			if nz != lp.idleNZ {
				t.Errorf("seed %d: the LP %s counts %d idle non-zeros, its idle columns hold %d", seed, name, lp.idleNZ, nz)
			}
		}
		// No idle column prices out at the final duals: wake left none
		// behind.
		y := woken.duals()
		for c, i := range woken.idle {
			if i && woken.reducedCostOf(c, y) < woken.tolerance() {
				t.Errorf("seed %d: column %d is idle but prices out (%v)", seed, c, woken.reducedCostOf(c, y))
			}
		}
		for c := range m {
			if cg.lp.idle[c] {
				t.Errorf("seed %d: singleton column %d went idle", seed, c)
			}
		}
		// A phase pricing finds again is not entered twice, idle or not.
		for c := len(cg.lp.cols) - 1; c >= m; c-- {
			if cg.lp.idle[c] {
				if n := len(cg.lp.cols); cg.addPhase(cg.phases[c]) || len(cg.lp.cols) != n || !cg.lp.idle[c] {
					t.Errorf("seed %d: idle column %d found again: %d columns (were %d), idle %v", seed, c, len(cg.lp.cols), n, cg.lp.idle[c])
				}
				break
			}
		}
		t.Logf("seed %d: %d of %d columns idle after 60 rounds; LP %v", seed, idle, len(cg.lp.cols), want)
	}
}
