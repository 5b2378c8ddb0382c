package optimize

import (
	"math"
	"slices"
	"testing"
)

// freshResidual is the reference for fix: the LP of the jobs not covered
// built afresh from the singletons over lp's columns and transfers that hold
// no covered job, as subLP builds it.
func freshResidual(lp *coverLP, covered []bool) *coverLP {
	row := make([]int, lp.m)
	var single []float64
	for j := range row {
		row[j] = -1
		if !covered[j] {
			row[j] = len(single)
			single = append(single, lp.cost[j])
		}
	}
	ref := newCoverLP(single)
	for _, tr := range lp.trans {
		if row[tr[0]] >= 0 && row[tr[1]] >= 0 {
			ref.trans = append(ref.trans, [2]int{row[tr[0]], row[tr[1]]})
		}
	}
	for c := lp.m; c < len(lp.cols); c++ {
		if !disjoint(lp.cols[c], covered) {
			continue
		}
		rows := make([]int, len(lp.cols[c]))
		for k, j := range lp.cols[c] {
			rows[k] = row[j]
		}
		ref.add(rows, lp.cost[c])
	}
	return ref
}

// TestFixMatchesFreshLP: a dive's LP fixed a column at a time (fix: the
// dual simplex from the last step's optimal basis) is at the optimum of the
// residual LP built afresh from the singletons over the same columns and
// transfers as soon as the dual simplex ends, before solve pivots (the
// ratio test kept the reduced costs ≥ 0), with no banned variable in its
// basis, every basic value ≥ 0 and every job left covered by its columns
// and transfers; the dual simplex, not the restart from the singletons,
// restores most steps; and a column added later is banned exactly when it
// holds a covered job. It takes fewer than half the pivots of solving each
// step afresh.
func TestFixMatchesFreshLP(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		p := randomOnHosts(t, seed, 60, 9)
		m := len(p.Jobs)
		cg := newColumnGen(p, 0, 0)
		priceRounds(cg, 8, 50*m)
		cg.lp.solve(1<<30, nil)
		if !cg.lp.optimal {
			t.Fatalf("seed %d: the master LP did not reach its optimum", seed)
		}
		master := cg.lp.objective()
		lp := cg.lp.forDive()
		covered := make([]bool, m)
		steps, dual := 0, 0
		fixedPivots, freshPivots := 0, 0
		for {
			lam := lp.values()
			best := -1
			for c, v := range lam {
				if v > 1e-9 && disjoint(lp.cols[c], covered) && (best < 0 || v > lam[best]) {
					best = c
				}
			}
			if best < 0 {
				break
			}
			var fresh []int
			for _, j := range lp.cols[best] {
				covered[j] = true
				fresh = append(fresh, j)
			}
			if !slices.Contains(covered, false) {
				break
			}
			steps++
			if steps%2 == 0 {
				// B⁻¹ afresh after the first dual pivot of this step:
				// the values must stay as they are, not clamped at 0.
				lp.pivots = lp.m - 1
			}
			before := lp.work
			ok := lp.fix(fresh, 4*m, nil)
			if steps == 1 {
				// Columns added now: banned exactly when they hold a
				// covered job (both costs leave the LP's optimum alone).
				in, out := fresh[0], slices.Index(covered, false)
				if lp.add([]int{out, in}, lp.cost[out]+lp.cost[in]); !lp.ban[len(lp.cols)-1] {
					t.Errorf("seed %d: a column added with covered job %d is not banned", seed, in)
				}
				if lp.add([]int{out}, lp.cost[out]); lp.ban[len(lp.cols)-1] {
					t.Errorf("seed %d: a column added with job %d alone, not covered, is banned", seed, out)
				}
			}
			ref := freshResidual(lp, covered)
			ref.solve(1<<30, nil)
			freshPivots += ref.work
			want := ref.objective()
			if ok {
				dual++
				if got := lp.objective(); math.Abs(got-want) > 1e-7*(1+want) {
					t.Errorf("seed %d step %d: after the dual simplex %.6f, the fresh LP's optimum %.6f", seed, steps, got, want)
				}
			}
			lp.solve(1<<30, nil)
			fixedPivots += lp.work - before
			if !lp.optimal || !ref.optimal {
				t.Fatalf("seed %d step %d: optimal: fixed %v, fresh %v", seed, steps, lp.optimal, ref.optimal)
			}
			if got := lp.objective(); math.Abs(got-want) > 1e-7*(1+want) {
				t.Fatalf("seed %d step %d: fixed LP %.6f, fresh %.6f", seed, steps, got, want)
			}
			// Row by row, what the columns and transfers in the basis
			// give (the surpluses left out): every job left covered.
			x := lp.primal()
			cover := make([]float64, m)
			for k, b := range lp.basis {
				if lp.banned(b) {
					t.Fatalf("seed %d step %d: banned variable %d in the basis", seed, steps, b)
				}
				if x[k] < -feasTol {
					t.Fatalf("seed %d step %d: basic value %.3g", seed, steps, x[k])
				}
				if b >= 0 || lp.transfer(b) >= 0 {
					lp.entries(b, func(j int, a float64) { cover[j] += a * x[k] })
				}
			}
			for j, c := range covered {
				if !c && cover[j] < 1-1e-7 {
					t.Fatalf("seed %d step %d: job %d covered %.9f", seed, steps, j, cover[j])
				}
			}
		}
		if steps < 5 || 2*dual < steps {
			t.Errorf("seed %d: %d steps (master LP %.1f), the dual simplex restored %d", seed, steps, master, dual)
		}
		// What fix is for: fewer pivots than solving each step afresh.
		if 2*fixedPivots > freshPivots {
			t.Errorf("seed %d: %d pivots fixing, %d solving afresh", seed, fixedPivots, freshPivots)
		}
		t.Logf("seed %d: %d steps, %d by the dual simplex; %d pivots, afresh %d", seed, steps, dual, fixedPivots, freshPivots)
	}
}
