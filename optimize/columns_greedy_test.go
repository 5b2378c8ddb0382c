package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// largeClusterGen is column generation on m random jobs on 80 hosts: 160
// primary VMs, past maxCells, so pricing counts units of 2 VMs and quick
// rounds price greedily too. Its duals are random, seeded.
func largeClusterGen(t *testing.T, seed uint64, m int) (*columnGen, *rand.Rand) {
	t.Helper()
	p := randomOnHosts(t, seed, m, 80)
	cg := newColumnGen(p, 0, 0)
	if cg.scale < 2 {
		t.Fatalf("scale %d: the test needs a cluster past maxCells", cg.scale)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	pi := make([]float64, m)
	for j := range pi {
		if rng.Float64() < 0.8 {
			pi[j] = cg.lp.cost[j] * rng.Float64() * 0.3
		}
	}
	cg.pi, cg.y = pi, pi
	return cg, rng
}

// The greedy's set fits a phase of its length (phaseSolver.fits, the
// model's own test), takes each job once in a role its class allows, is
// worth what it says, and never more than the exact programme in single
// VMs, of which it is a heuristic: a set worth more would be a phase the
// programme missed, or no phase.
func TestGreedySetFitsAndIsBelowTheProgramme(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		cg, _ := largeClusterGen(t, seed, 120)
		ps := cg.ps
		var sumGreedy, sumExact float64
		for i, D := range cg.grid {
			if i%4 != 0 {
				continue
			}
			jobs, roles, v := cg.greedySet(D)
			exact, _, _ := cg.knapsack(D, 1, false, false)
			if v > exact+1e-9*max(1, exact) {
				t.Fatalf("seed %d, D %.1f: greedy worth %.6f, the exact programme %.6f", seed, D, v, exact)
			}
			sumGreedy, sumExact = sumGreedy+v, sumExact+exact
			if len(jobs) == 0 {
				continue
			}
			seen := map[int]bool{}
			var worth float64
			for k, j := range jobs {
				if seen[j] {
					t.Fatalf("seed %d, D %.1f: job %d twice", seed, D, j)
				}
				seen[j] = true
				if !slices.Contains(ps.roles(j), roles[k]) {
					t.Fatalf("seed %d, D %.1f: job %d in role %d, not among %v", seed, D, j, roles[k], ps.roles(j))
				}
				worth += cg.pi[j]
			}
			if math.Abs(worth-v) > 1e-9*max(1, v) {
				t.Fatalf("seed %d, D %.1f: says %.6f, its jobs are worth %.6f", seed, D, v, worth)
			}
			lo, hi := make([]int, len(jobs)), make([]int, len(jobs))
			if !ps.fits(jobs, roles, D, lo, hi) {
				t.Fatalf("seed %d, D %.1f: the greedy's %d jobs do not fit a phase of that length", seed, D, len(jobs))
			}
		}
		// A heuristic that is never worse than exact is worth checking
		// for being any good: most of the programme's value.
		if sumGreedy < 0.8*sumExact {
			t.Errorf("seed %d: greedy worth %.1f in all, the exact programme %.1f", seed, sumGreedy, sumExact)
		}
	}
}

// A greedy round enters only columns that price out on the LP's duals,
// at least one at the singleton LP's duals, and new ones only.
func TestGreedyRoundEntersPricedOutColumns(t *testing.T) {
	p := randomOnHosts(t, 5, 150, 80)
	cg := newColumnGen(p, 0, 0)
	cg.lp.solve(50*len(p.Jobs), nil)
	cg.y = cg.clampedDuals()
	cg.pi = cg.y
	before := len(cg.lp.cols)
	added := cg.greedyRound()
	if added == 0 || len(cg.lp.cols) != before+added {
		t.Fatalf("entered %d, columns %d → %d", added, before, len(cg.lp.cols))
	}
	for c := before; c < len(cg.lp.cols); c++ {
		var v float64
		for _, j := range cg.lp.cols[c] {
			v += cg.y[j]
		}
		if cost := cg.lp.cost[c]; cost-v >= 0 {
			t.Fatalf("column %d: cost %.3f, duals %.3f: does not price out", c, cost, v)
		}
	}
}
