package optimize

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// TestPricingWorkersSamePlan: auto under a work limit gives the same plan,
// bound and notes whether column generation prices on one goroutine or on
// several, on problems big enough to share pricing out (exact pricing on 50
// hosts, units of VMs on 80), with limits that cut runs in quick rounds,
// full rounds and the integer search.
func TestPricingWorkersSamePlan(t *testing.T) {
	cases := []struct {
		jobs, hosts int
		seed        uint64
		limits      []int64
	}{
		{30, 50, 1, []int64{400, 3000}},
		{60, 80, 3, []int64{1200}},
	}
	for _, c := range cases {
		cl := model.PaperCluster()
		cl.Hosts = c.hosts
		p, err := model.NewProblem(RandomWorkload(c.seed, c.jobs), cl)
		if err != nil {
			t.Fatal(err)
		}
		if cg := newColumnGen(p, 0, 0); func() int { cg.pi, cg.workers = cg.ps.areaDuals(), 3; return cg.workersFor(cg.scale) }() != 3 {
			t.Fatalf("%d jobs on %d hosts: too small to price in parallel", c.jobs, c.hosts)
		}
		for _, limit := range c.limits {
			var first *Result
			for _, workers := range []int{1, 3} {
				set := Settings{WorkLimit: limit, workers: workers, Swarm: &pso.Settings{Particles: 30, Iterations: 4, Seed: c.seed}}
				res, err := Solve(p, MethodAuto, &set)
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = res
					continue
				}
				if !reflect.DeepEqual(res.Schedule, first.Schedule) || *res.LowerBound != *first.LowerBound || !reflect.DeepEqual(res.Notes, first.Notes) {
					t.Errorf("%d jobs on %d hosts, work limit %d: %d workers give plan %.1f, bound %.1f, notes %q; 1 gives %.1f, %.1f, %q",
						c.jobs, c.hosts, limit, workers, p.Makespan(res.Schedule), *res.LowerBound, res.Notes,
						p.Makespan(first.Schedule), *first.LowerBound, first.Notes)
				}
			}
		}
	}
}

// TestParallelPivotSameLP: solving random master LPs with B⁻¹'s update,
// the entering column's B⁻¹a, the choice of the entering variable, the
// Devex weights and B⁻¹'s refactorisation shared among goroutines gives the same
// pivots, basis, B⁻¹, value, duals and weights, bit for bit, as one
// goroutine; with B⁻¹ as sparse factors (seeds 3 and 4: the passes over
// the columns shared, factorLU not), the same etas after the first solve
// too.
func TestParallelPivotSameLP(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		var lps [2]*coverLP
		var etas [2][]float64
		for i, workers := range []int{1, 3} {
			lps[i] = randomCoverLP(rand.New(rand.NewPCG(seed, 7)), 60+10*int(seed), 400)
			if seed > 2 {
				lps[i].represent(true)
				lps[i].restart()
			}
			lps[i].workers, lps[i].parallelAt = workers, 1
			lps[i].solve(100_000, nil)
			if lps[i].lu != nil {
				etas[i] = slices.Clone(lps[i].lu.eval)
			}
			lps[i].refactor(nil) // a dense elimination shared too
			lps[i].solve(100_000, nil)
		}
		a, b := lps[0], lps[1]
		if a.work == 0 || a.work != b.work || a.objective() != b.objective() || !slices.Equal(a.basis, b.basis) ||
			!slices.Equal(a.duals(), b.duals()) || !slices.EqualFunc(a.binv, b.binv, slices.Equal[[]float64]) ||
			!slices.Equal(a.wCol, b.wCol) || !slices.Equal(etas[0], etas[1]) || (a.lu != nil && len(etas[0]) == 0) {
			t.Errorf("seed %d: one goroutine: %d pivots, value %v; three: %d pivots, value %v, or their bases, B⁻¹ or weights differ",
				seed, a.work, a.objective(), b.work, b.objective())
		}
	}
}

// TestPriceAllEqualsOneByOne: priceAll, on one goroutine and on three,
// gives what pricing the durations one after another with knapsack gives,
// the plain reference: the same values and sets, the same calls to the
// limit, the same cut, and, when no cut, the same table cells; and
// farleyTheta, whose refinement prices ahead on three, the same θ, place,
// cells and grid as on one. Exact pricing on 50 hosts, units of 2 VMs on
// 80; random duals, some 0.
func TestPriceAllEqualsOneByOne(t *testing.T) {
	for _, hosts := range []int{50, 80} {
		p := randomOnHosts(t, 4, 40, hosts)
		rng := rand.New(rand.NewPCG(uint64(hosts), 9))
		pi := newColumnGen(p, 0, 0).ps.areaDuals()
		for j := range pi {
			pi[j] *= 0.5 + rng.Float64()
			if rng.IntN(5) == 0 {
				pi[j] = 0
			}
		}
		for _, trace := range []bool{false, true} {
			for _, fire := range []int{0, 1, 2, 7} { // the call to the limit that says yes; 0: none
				calls := 0
				stop := func() bool { calls++; return calls == fire }
				ref := newColumnGen(p, 0, 0)
				ref.pi, ref.stop = pi, stop
				up := trace && ref.scale > 1
				var want []priced
				for k, D := range ref.grid {
					if ref.stopped(k) {
						want = nil
						break
					}
					v, jobs, roles := ref.knapsack(D, ref.scale, trace, up)
					want = append(want, priced{v: v, jobs: jobs, roles: roles})
				}
				wantCalls := calls
				for _, workers := range []int{1, 3, 5} { // chunks of 4, 12 and 20
					calls = 0
					cg := newColumnGen(p, 0, 0)
					cg.pi, cg.stop, cg.workers = pi, stop, workers
					if cg.workersFor(cg.scale) != workers {
						t.Fatalf("%d hosts: %d workers asked, %d price", hosts, workers, cg.workersFor(cg.scale))
					}
					got := cg.priceAll(cg.grid, cg.scale, trace, up)
					for i := range got {
						got[i].work = 0
					}
					if calls != wantCalls || cg.cut != ref.cut || !reflect.DeepEqual(got, want) || (!cg.cut && cg.work != ref.work) {
						t.Errorf("%d hosts, trace %v, limit at call %d, %d workers: %d calls, cut %v, %d cells; one by one: %d, %v, %d; values equal: %v",
							hosts, trace, fire, workers, calls, cg.cut, cg.work, wantCalls, ref.cut, ref.work, reflect.DeepEqual(got, want))
					}
				}
			}
		}
		var theta [2]float64
		var at [2]int
		var cells [2]int64
		var grids [2][]float64
		for i, workers := range []int{1, 3} {
			cg := newColumnGen(p, 0, 0)
			cg.pi, cg.workers = pi, workers
			var best []float64
			for _, o := range cg.priceAll(cg.grid, cg.scale, false, false) {
				best = append(best, o.v)
			}
			theta[i], at[i] = cg.farleyTheta(best)
			cells[i], grids[i] = cg.work, cg.grid
		}
		if theta[0] != theta[1] || at[0] != at[1] || cells[0] != cells[1] || !slices.Equal(grids[0], grids[1]) {
			t.Errorf("%d hosts: farleyTheta on one goroutine: θ %v at %d, %d cells; on three: θ %v at %d, %d cells (grids equal: %v)",
				hosts, theta[0], at[0], cells[0], theta[1], at[1], cells[1], slices.Equal(grids[0], grids[1]))
		}
	}
}

// TestEnteringTiesInPieces: of columns with the same score in different
// pieces of a shared pricing, entering picks the first, as one goroutine
// does; under Bland's rule the first that prices out, whatever its score.
// Hand-worked: two jobs at duals 3 and 4, six columns, in three pieces of
// two on three goroutines.
func TestEnteringTiesInPieces(t *testing.T) {
	for _, workers := range []int{1, 3} {
		lp := newCoverLP([]float64{5, 5}) // columns 0 and 1: the singletons
		lp.add([]int{0, 1}, 6)            // 2: reduced cost 6 − 7 = −1, score 1
		lp.add([]int{1}, 2)               // 3: 2 − 4 = −2, score 4
		lp.add([]int{0}, 4)               // 4: 4 − 3 = 1, does not price out
		lp.add([]int{1}, 2)               // 5: −2, score 4, ties with 3
		lp.workers, lp.parallelAt = workers, 1
		lp.resetWeights()
		y := []float64{3, 4}
		// The singletons cost 5: reduced costs 2 and 1, neither prices out.
		if v, ok := lp.entering(y, false, nil, false); !ok || v != 3 {
			t.Errorf("%d workers: entering %d (%v), want column 3, the first of the best", workers, v, ok)
		}
		if v, ok := lp.entering(y, true, nil, false); !ok || v != 2 {
			t.Errorf("%d workers, Bland: entering %d (%v), want column 2, the first that prices out", workers, v, ok)
		}
		if v, ok := lp.entering(y, false, map[int]bool{3: true}, false); !ok || v != 5 {
			t.Errorf("%d workers, 3 rejected: entering %d (%v), want column 5", workers, v, ok)
		}
		// Cached, the reduced costs are devex's, not y's: column 4 at −3
		// (score 9) is the best, column 1 at −1 the first to price out.
		lp.rcNext = []float64{2, -1, 1, -2, -3, 0}
		if v, ok := lp.entering(y, false, nil, true); !ok || v != 4 {
			t.Errorf("%d workers, cached: entering %d (%v), want column 4", workers, v, ok)
		}
		if v, ok := lp.entering(y, true, nil, true); !ok || v != 1 {
			t.Errorf("%d workers, cached, Bland: entering %d (%v), want column 1", workers, v, ok)
		}
	}
}
