package optimize

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// TestColumnsAgainstExact is the acceptance property on random workloads of
// M ≤ 14 jobs (fewer with -short): the proven bound never exceeds the exact
// optimum, it lies within 1 % of it at the median, and the plan equals the
// optimum on at least 90 % of them.
func TestColumnsAgainstExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	cases, top := 40, 14
	if testing.Short() {
		cases, top = 12, 10
	}
	var gaps []float64
	optimal := 0
	for i := range cases {
		m := 4 + i%(top-3)
		c := model.PaperCluster()
		if i%3 == 2 {
			c = randomSmallCluster(rng)
		}
		p, ex := randomExact(t, uint64(500+i), m, c)
		_, res := pairSeededColumns(t, p)
		if res.proven > ex.Makespan*(1+1e-9) {
			t.Errorf("case %d (M = %d): bound %v (before the cap at the plan) above the optimum %v", i, m, res.proven, ex.Makespan)
		}
		if res.Makespan < ex.Makespan*(1-1e-9) {
			t.Errorf("case %d: plan %v below the optimum %v", i, res.Makespan, ex.Makespan)
		}
		if res.Makespan <= ex.Makespan*(1+1e-9) {
			optimal++
		}
		gaps = append(gaps, 100*(1-res.LowerBound/ex.Makespan))
	}
	sort.Float64s(gaps)
	t.Logf("bound below optimum, %% (sorted): %.2f; plan optimal on %d of %d", gaps, optimal, cases)
	if med := gaps[len(gaps)/2]; med > 1 {
		t.Errorf("median bound gap %.2f %%, want ≤ 1 %%", med)
	}
	// The acceptance bar: 90 % (37 of 40 when written, with exact pricing,
	// diving and the branch-and-bound; the greedy rounding before them: 30).
	if optimal*10 < 9*cases {
		t.Errorf("plan optimal on %d of %d, want ≥ 90 %%", optimal, cases)
	}
}

// TestColumnsLarge: past the exact solver, the plan is feasible, no worse
// than the pair plan it was seeded with, and above its proven bound, which is
// at least LowerBound's.
func TestColumnsLarge(t *testing.T) {
	for _, m := range []int{16, 20} {
		p, err := model.NewProblem(RandomWorkload(7, m), model.PaperCluster())
		if err != nil {
			t.Fatal(err)
		}
		pr, res := pairSeededColumns(t, p)
		if err := p.Check(res.Schedule); err != nil {
			t.Fatal(err)
		}
		pair, lb := p.Makespan(pr.Schedule), LowerBound(p)
		if res.Makespan > pair || res.LowerBound > res.Makespan || res.LowerBound < lb*(1-1e-12) {
			t.Errorf("M = %d: plan %v, pair %v, bound %v, LowerBound %v", m, res.Makespan, pair, res.LowerBound, lb)
		}
		t.Logf("M = %d: plan %.1f, bound %.1f (gap %.1f %%), LP %.1f, %d columns, %d rounds, pair %.1f",
			m, res.Makespan, res.LowerBound, 100*(res.Makespan/res.LowerBound-1), res.LPValue, res.Columns, res.Rounds, pair)
	}
}

// pairSeededColumns runs Columns on p seeded with the pair scheduler's plan.
func pairSeededColumns(t testing.TB, p *model.Problem) (PairResult, ColumnsResult) {
	t.Helper()
	pr, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Columns(p, []model.Schedule{pr.Schedule}, ColumnsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pr, res
}

// equal reports whether st and o hold the same state.
func (st pricingState) equal(o pricingState) bool {
	return slices.Equal(st.gridIdx, o.gridIdx) && st.growCap == o.growCap &&
		slices.Equal(st.centre, o.centre) && st.bestBound == o.bestBound
}

// TestPricingEqualsBruteForce: with unscaled capacities the pricing
// programme's value for a duration D is the most Σπ over every subset of
// jobs and every role choice that phaseSolver finds feasible within D, on
// random small problems (up to 7 jobs, random clusters) and random duals.
func TestPricingEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 60 {
		m := 1 + i%7
		p, err := model.NewProblem(RandomWorkload(uint64(900+i), m), randomSmallCluster(rng))
		if err != nil {
			t.Fatal(err)
		}
		cg := newColumnGen(p, 0, 0)
		if cg.scale != 1 {
			t.Fatalf("case %d: scale %d", i, cg.scale)
		}
		cg.pi = make([]float64, m)
		for j := range cg.pi {
			cg.pi[j] = rng.Float64() * 100
		}
		for _, D := range []float64{cg.ps.cands[0], cg.ps.cands[len(cg.ps.cands)/3], cg.ps.cands[len(cg.ps.cands)/2], cg.ps.cands[len(cg.ps.cands)-1]} {
			got, jobs, roles := cg.knapsack(D, 1, true, false)
			want := bruteForcePrice(cg, D)
			if math.Abs(got-want) > 1e-9*(1+want) {
				t.Fatalf("case %d, D = %v: pricing %v, brute force %v", i, D, got, want)
			}
			// The untraced programme (its own loop, groupDP.addRow) agrees.
			if v, _, _ := cg.knapsack(D, 1, false, false); math.Abs(v-want) > 1e-9*(1+want) {
				t.Fatalf("case %d, D = %v: untraced pricing %v, brute force %v", i, D, v, want)
			}
			checkTraced(t, cg, D, got, jobs, roles)
		}
	}
}

// checkTraced fails unless the traced set of the programme at D is worth
// its value v (Σπ) and fits a phase of length D.
func checkTraced(t *testing.T, cg *columnGen, D, v float64, jobs, roles []int) {
	t.Helper()
	sum := 0.0
	for _, j := range jobs {
		sum += cg.pi[j]
	}
	if math.Abs(sum-v) > 1e-9*(1+v) {
		t.Fatalf("D = %v: traced set %v is worth %v, the programme %v", D, jobs, sum, v)
	}
	if len(jobs) > 0 {
		lo, hi := make([]int, len(jobs)), make([]int, len(jobs))
		if T := cg.ps.best(jobs, roles, lo, hi); T > D {
			t.Fatalf("D = %v: traced set %v roles %v lasts %v", D, jobs, roles, T)
		}
	}
}

// TestPricingTracesOn50Hosts: on 50 hosts (100 primary VMs, exact units,
// the largest tables) the traced and untraced programmes agree at every
// grid duration, and the traced set is worth that value and fits, at duals
// with zeros (jobs the programme skips) and without.
func TestPricingTracesOn50Hosts(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 36))
	for _, seed := range []uint64{1, 2} {
		p := randomOnHosts(t, seed, 120, 50)
		cg := newColumnGen(p, 0, 0)
		if cg.scale != 1 {
			t.Fatalf("scale %d, want 1", cg.scale)
		}
		cg.pi = make([]float64, len(p.Jobs))
		for j := range cg.pi {
			if seed == 1 || rng.IntN(3) > 0 {
				cg.pi[j] = 100 * rng.Float64()
			}
		}
		for _, D := range cg.grid {
			v, jobs, roles := cg.knapsack(D, 1, true, false)
			if u, _, _ := cg.knapsack(D, 1, false, false); u != v {
				t.Fatalf("seed %d, D = %v: traced %v, untraced %v", seed, D, v, u)
			}
			checkTraced(t, cg, D, v, jobs, roles)
		}
	}
}

// bruteForcePrice tries every subset and role choice (3^M).
func bruteForcePrice(cg *columnGen, D float64) float64 {
	m := len(cg.pi)
	best := 0.0
	total := 1
	for range m {
		total *= 4 // absent, primary, host, extra
	}
	for code := 1; code < total; code++ {
		var jobs, roles []int
		var v float64
		for j, c := 0, code; j < m; j, c = j+1, c/4 {
			if c%4 == 0 {
				continue
			}
			role := c%4 - 1
			if (role == roleHost && !cg.ps.canHost[j]) || (role == roleExtra && !cg.ps.canExtra[j]) {
				v = math.Inf(-1)
			}
			jobs, roles = append(jobs, j), append(roles, role)
			v += cg.pi[j]
		}
		lo, hi := make([]int, len(jobs)), make([]int, len(jobs))
		if v > best && cg.ps.best(jobs, roles, lo, hi) <= D {
			best = v
		}
	}
	return best
}

// TestColumnsStop: a Stop that is already true still returns a checked plan
// no worse than the seed and a bound no higher than it; Solve's TimeLimit
// does the same through auto on 40 jobs within a generous margin.
func TestColumnsStop(t *testing.T) {
	p, pr := randomPairPlan(t, 3, 40, model.PaperCluster())
	res, err := Columns(p, []model.Schedule{pr.Schedule}, ColumnsOptions{Stop: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds != 1 || res.Converged || res.Makespan > p.Makespan(pr.Schedule) || res.LowerBound > res.Makespan || p.Check(res.Schedule) != nil {
		t.Errorf("rounds %d, plan %v (pair %v), bound %v", res.Rounds, res.Makespan, p.Makespan(pr.Schedule), res.LowerBound)
	}
	t0 := time.Now()
	sr, err := Solve(p, MethodAuto, &Settings{TimeLimit: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 20*time.Second || sr.LowerBound == nil || *sr.LowerBound > p.Makespan(sr.Schedule) {
		t.Errorf("auto with a 300 ms limit took %v, bound %v", d, sr.LowerBound)
	}
}

// TestCheckSize: the limits name what is too large, and Solve applies them.
func TestCheckSize(t *testing.T) {
	c := model.PaperCluster()
	c.Hosts = 200_000 // 20 jobs × 200,000 hosts × 5 counts per host = 2·10⁷ > 2^24
	// A literal Problem: NewProblem would check every job on all 400,000 VM
	// counts first, which is slow and beside the point here.
	p := &model.Problem{Jobs: RandomWorkload(1, 20).Jobs, Cluster: c}
	if _, err := Solve(p, MethodPair, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("200,000 hosts: err = %v", err)
	}
	p, err := model.NewProblem(RandomWorkload(1, 5), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSize(p, &pso.Settings{Particles: 1 << 23}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("2^23 particles × 10 coordinates: err = %v", err)
	}
	if err := CheckSize(p, &pso.Settings{Particles: 1 << 20}); err != nil {
		t.Errorf("2^20 particles × 10 coordinates: %v", err)
	}
}

// TestColumnsBoundWithScaledPricing: where the pricing table would be too
// large, pricing counts capacity in units of several VMs (rounded down for
// the bound, up for new columns), and where the candidate durations are too
// many a full round prices a thinned grid and refines Farley's bound between
// its points; the bound must still never pass the exact optimum, and the
// plan never go below it. The clusters here are small enough for the exact
// solver, so the test forces both: tables of at most 12² (or 40²) cells and
// grids of 8 durations on every other case.
func TestColumnsBoundWithScaledPricing(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 77))
	scaled := 0
	for i := range 16 {
		m := 4 + i%5
		k := 2 + rng.IntN(4)
		c := model.Cluster{Hosts: 40/k + 1 + rng.IntN(20), DisksPerHost: k, ExtraRatio: 1 + rng.IntN(k), Alpha: 1 + rng.Float64()}.WithDefaults()
		p, err := model.NewProblem(RandomWorkload(uint64(7000+i), m), c)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		opt := ColumnsOptions{cells: 144, grid: 8 * (i % 2)}
		if i%4 == 1 {
			opt.cells = 1600
		}
		if newColumnGen(p, opt.cells, opt.grid).scale > 1 {
			scaled++
		}
		res, err := Columns(p, []model.Schedule{model.Sequential(p)}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.proven > ex.Makespan*(1+1e-9) || res.Makespan < ex.Makespan*(1-1e-9) {
			t.Errorf("case %d (M = %d, N = %d): bound %v (before the cap at the plan), plan %v, optimum %v", i, m, c.PrimaryVMs(), res.proven, res.Makespan, ex.Makespan)
		}
		if res.Converged && (opt.grid > 0 || res.RelaxedPricing) {
			t.Errorf("case %d: converged on a relaxed pricing programme (%s)", i, res.Ended)
		}
		// Seeded with the optimum too, pricing leaves out every phase not
		// shorter than it; the bound must still hold.
		withOpt, err := Columns(p, []model.Schedule{model.Sequential(p), ex.Schedule}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if withOpt.proven > ex.Makespan*(1+1e-9) {
			t.Errorf("case %d, seeded with the optimum: bound %v above it, %v", i, withOpt.proven, ex.Makespan)
		}
	}
	if scaled < 12 {
		t.Errorf("only %d of 16 cases had scaled pricing: the test no longer tests it", scaled)
	}
}

// TestFarleyRefinement: on a grid thinned to 6 durations, farleyTheta's
// refinement between grid points finds the same θ as pricing every
// candidate duration, min over D of D/best(D), whenever it ends on a single
// candidate; and it is never above it (a valid bound) when it does not.
func TestFarleyRefinement(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	exact := 0
	for i := range 30 {
		m := 3 + i%8
		p, err := model.NewProblem(RandomWorkload(uint64(300+i), m), randomSmallCluster(rng))
		if err != nil {
			t.Fatal(err)
		}
		cg := newColumnGen(p, 0, 6)
		cg.pi = make([]float64, m)
		for j := range cg.pi {
			cg.pi[j] = rng.Float64() * 1000
		}
		want := math.Inf(1)
		for _, D := range cg.ps.cands {
			if v, _, _ := cg.knapsack(D, 1, false, false); v > 0 {
				want = min(want, D/v)
			}
		}
		best := make([]float64, len(cg.grid))
		for k, D := range cg.grid {
			best[k], _, _ = cg.knapsack(D, 1, false, false)
		}
		got, at := cg.farleyTheta(best)
		if at >= 0 {
			exact++
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("case %d: refined θ %v, every candidate's %v", i, got, want)
			}
		} else if got > want*(1+1e-12) {
			t.Errorf("case %d: θ %v above every candidate's %v", i, got, want)
		}
	}
	if exact < 25 {
		t.Errorf("refinement ended on a single candidate in %d of 30 cases", exact)
	}
}

// TestColumnsConvergeOnOptimalDuals cuts every round's LP solve to two
// pivots: duals that are not yet the LP's may price no column out, and that
// must not be taken for convergence. Run to the end, the cut runs must reach
// the LP optimum the uncut ones reach (the LP over all phases has one value),
// by converging or by a bound that meets their LP's value.
func TestColumnsConvergeOnOptimalDuals(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		p, err := model.NewProblem(RandomWorkload(900+seed, 10+int(seed)), model.PaperCluster())
		if err != nil {
			t.Fatal(err)
		}
		full, err := Columns(p, nil, ColumnsOptions{Tolerance: -1})
		if err != nil {
			t.Fatal(err)
		}
		cut, err := Columns(p, nil, ColumnsOptions{Tolerance: -1, maxPivots: 2})
		if err != nil {
			t.Fatal(err)
		}
		// A cut run may also end on the tolerance: with none, that means
		// its bound reached its LP's value, which proves it the optimum.
		if !full.Converged || !cut.Converged && cut.Ended != EndedTolerance {
			t.Fatalf("seed %d: converged %v (%s) and, cut, %v (%s: LP %v, bound %v)", seed, full.Converged, full.Ended, cut.Converged, cut.Ended, cut.LPValue, cut.proven)
		}
		if math.Abs(cut.LPValue-full.LPValue) > 1e-6*full.LPValue {
			t.Errorf("seed %d: LP value %v with solves cut to 2 pivots, %v without: the cut run declared convergence on duals that were not the LP's", seed, cut.LPValue, full.LPValue)
		}
	}
}

// TestColumnsGoesOnFromColumns: a run given a previous run's columns starts
// with every one of them in its master, so its first LP is no worse than
// the LP the previous run ended on, and it ends with at least as many.
func TestColumnsGoesOnFromColumns(t *testing.T) {
	for _, m := range []int{16, 20} {
		p, pr := randomPairPlan(t, uint64(m), m, model.PaperCluster())
		seeds := []model.Schedule{pr.Schedule}
		first, err := Columns(p, seeds, ColumnsOptions{Rounds: 8, noFinalBound: true})
		if err != nil {
			t.Fatal(err)
		}
		next, err := Columns(p, seeds, ColumnsOptions{Rounds: 1, noFinalBound: true, columns: first.phases})
		if err != nil {
			t.Fatal(err)
		}
		if len(first.phases) <= len(pr.Schedule.Phases) || next.Columns < len(first.phases) {
			t.Errorf("M = %d: first run %d columns, the next starts from %d and ends with %d", m, len(first.phases), len(first.phases), next.Columns)
		}
		// The first run's LPValue is its last round's solve, before that
		// round's columns entered: the next run's first solve has them all.
		if next.LPValue > first.LPValue*(1+1e-9) {
			t.Errorf("M = %d: the next run's first LP %v is above the first run's last %v", m, next.LPValue, first.LPValue)
		}
	}
}

// TestColumnsGoesOnFromPricing: a run given a previous run's pricing state
// starts on the grid that run grew (the durations rebuilt from their
// indices) and from its cap, and smooths towards its centre, with its best
// bound; without it a run starts again from the first grid. The state handed
// on is a copy: the next run grows its own grid and leaves the first run's
// untouched.
func TestColumnsGoesOnFromPricing(t *testing.T) {
	p, pr := randomPairPlan(t, 7, 20, model.PaperCluster())
	seeds := []model.Schedule{pr.Schedule}
	first, err := Columns(p, seeds, ColumnsOptions{Rounds: 12, grid: 8, noFinalBound: true})
	if err != nil {
		t.Fatal(err)
	}
	st, kept := first.pricing, first.pricing.clone()
	g0 := newColumnGen(p, 0, 8).grid0
	if st.bestBound <= 0 || len(st.gridIdx) <= g0 || st.growCap <= gridGrowth*g0 {
		t.Fatalf("the first run proved no bound, grew no grid or lifted no cap: bound %v, grid %d, cap %d, first grid %d",
			st.bestBound, len(st.gridIdx), st.growCap, g0)
	}
	for _, carry := range []bool{false, true} {
		opt := ColumnsOptions{Rounds: 12, grid: 8, noFinalBound: true, columns: first.phases}
		if carry {
			opt.pricing = &first.pricing
		}
		var start, end pricingState
		var rebuilt bool
		opt.resumed = func(cg *columnGen) {
			start, rebuilt = cg.state().clone(), len(cg.grid) == len(cg.gridIdx)
			for k, i := range cg.gridIdx {
				rebuilt = rebuilt && cg.grid[k] == cg.ps.cands[i]
			}
		}
		opt.priced = func(cg *columnGen, _ *ColumnsResult) { end = cg.state().clone() }
		if _, err := Columns(p, seeds, opt); err != nil {
			t.Fatal(err)
		}
		switch {
		case !rebuilt:
			t.Errorf("carried %v: the grid's durations are not those of its indices", carry)
		case carry && !start.equal(kept):
			t.Errorf("carried: started on grid %d (cap %d, bound %v), want the first run's %d (cap %d, bound %v)",
				len(start.gridIdx), start.growCap, start.bestBound, len(kept.gridIdx), kept.growCap, kept.bestBound)
		case carry && len(end.gridIdx) <= len(kept.gridIdx):
			t.Fatalf("carried: the next run grew no grid (%d durations), so the copy is not tested", len(end.gridIdx))
		case !carry && len(start.gridIdx) != g0:
			t.Errorf("not carried: started on %d durations, want the first grid's %d", len(start.gridIdx), g0)
		}
	}
	if !st.equal(kept) {
		t.Error("the next run changed the first run's pricing state")
	}
}

// TestSeedBelowTheLPStaysOut: a seed shorter than the LP value the previous
// run ended with is the incumbent but not in the master (its phases would
// hold the LP at that plan's integral vertex); one no shorter enters as
// columns, as seeds of a first run always do.
func TestSeedBelowTheLPStaysOut(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(5, 24), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	seq := model.Sequential(p)
	pr, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	first, err := Columns(p, []model.Schedule{seq}, ColumnsOptions{Rounds: 2, noFinalBound: true})
	if err != nil {
		t.Fatal(err)
	}
	ms := p.Makespan(pr.Schedule)
	for _, lpValue := range []float64{ms * 1.01, ms} {
		res, err := Columns(p, []model.Schedule{seq, pr.Schedule}, ColumnsOptions{Rounds: 1, noFinalBound: true, columns: first.phases, lpValue: lpValue})
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]bool{}
		for _, ph := range res.phases {
			in[phaseKey(ph)] = true
		}
		missing := 0
		for _, ph := range pr.Schedule.Phases {
			if !in[phaseKey(model.Normalize(model.Schedule{Phases: []model.Phase{ph}}).Phases[0])] {
				missing++
			}
		}
		if below := ms < lpValue; below && missing == 0 || !below && missing > 0 {
			t.Errorf("pair plan %.1f s, previous LP %.1f s: %d of its %d phases not columns", ms, lpValue, missing, len(pr.Schedule.Phases))
		}
		if res.Makespan > ms {
			t.Errorf("previous LP %.1f s: plan %.1f s, longer than the pair plan's %.1f s", lpValue, res.Makespan, ms)
		}
	}
}

// randomOnHosts is RandomWorkload(seed, m) on the paper's cluster of the
// given number of hosts.
func randomOnHosts(tb testing.TB, seed uint64, m, hosts int) *model.Problem {
	tb.Helper()
	cl := model.PaperCluster()
	cl.Hosts = hosts
	p, err := model.NewProblem(RandomWorkload(seed, m), cl)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// freshLP is a master LP over cg's columns and transfers, from the
// singleton basis, with cg's workers and every column active (it
// makes none idle).
func freshLP(cg *columnGen) *coverLP {
	m := len(cg.p.Jobs)
	lp := newCoverLP(cg.lp.cost[:m])
	lp.trans, lp.workers = cg.lp.trans, cg.workers
	for c := m; c < len(cg.lp.cols); c++ {
		lp.add(cg.lp.cols[c], cg.lp.cost[c])
	}
	return lp
}

// freshLPAs is freshLP keeping B⁻¹ as sparse factors or dense, whatever
// the jobs.
func freshLPAs(cg *columnGen, sparse bool) *coverLP {
	lp := freshLP(cg)
	lp.represent(sparse)
	lp.restart()
	return lp
}

// priceRounds runs rounds pricing rounds of cg, each on its LP solved with
// up to pivots pivots, as Columns' loop does without its limits.
func priceRounds(cg *columnGen, rounds, pivots int) {
	for round := 1; round <= rounds; round++ {
		cg.lp.solve(pivots, nil)
		cg.price(round)
	}
}

// TestGridLiftReachesLPOptimum: on a grid thinned to about 6 durations
// whose refinement may split only 3 gaps a round, the refinement cannot pin
// θ to single durations once the grid has reached its cap, so no column
// comes from between grid points. Generating to the end (no tolerance), the
// run must lift the cap (liftAtCap) and reach the LP optimum that pricing
// every candidate duration reaches (the plain reference): the same LP
// value, a bound that meets it, and an end before the round cap.
func TestGridLiftReachesLPOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 61))
	whileEntering := 0 // cases whose cap went in a round that entered columns
	for i := range 5 {
		m := 10 + rng.IntN(5)
		c := model.Cluster{Hosts: 12 + rng.IntN(20), DisksPerHost: 2, ExtraRatio: 1 + rng.IntN(2), Alpha: 1 + rng.Float64()}.WithDefaults()
		p, err := model.NewProblem(RandomWorkload(uint64(6100+i), m), c)
		if err != nil {
			t.Fatal(err)
		}
		all := newColumnGen(p, 0, 1<<20)
		if !all.exact || all.scale != 1 {
			t.Fatalf("case %d: the reference does not price every duration in single VMs", i)
		}
		want, err := Columns(p, nil, ColumnsOptions{Tolerance: -1, grid: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if !want.Converged {
			t.Fatalf("case %d: the reference ended %q", i, want.Ended)
		}
		lifted := false
		opt := ColumnsOptions{Tolerance: -1, grid: 6, splits: 3}
		opt.priced = func(cg *columnGen, _ *ColumnsResult) { lifted = cg.growCap > gridGrowth*cg.grid0 }
		got, err := Columns(p, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !lifted {
			t.Errorf("case %d: the cap was never lifted: the test no longer starves the refinement", i)
		}
		if got.Ended == EndedRounds || math.Abs(got.LPValue-want.LPValue) > 1e-6*want.LPValue || got.proven < want.LPValue*(1-1e-6) {
			t.Errorf("case %d (M = %d, %d hosts): thinned grid ended %q after %d rounds at LP %v, bound %v; every duration: LP %v",
				i, m, c.Hosts, got.Ended, got.Rounds, got.LPValue, got.proven, want.LPValue)
		}
		// The cap goes in the first round whose refinement meets it with the
		// bound short, whether or not the round enters columns.
		cols := 0
		for k := 1; k <= got.Rounds; k++ {
			var up bool
			var n int
			opt := ColumnsOptions{Tolerance: -1, grid: 6, splits: 3, Rounds: k}
			opt.priced = func(cg *columnGen, _ *ColumnsResult) { up, n = cg.growCap > gridGrowth*cg.grid0, len(cg.lp.cols) }
			if _, err := Columns(p, nil, opt); err != nil {
				t.Fatal(err)
			}
			if up {
				if n > cols {
					whileEntering++
				}
				break
			}
			cols = n
		}
	}
	if whileEntering == 0 {
		t.Error("in no case did the cap go in a round that entered columns: the lift waited for a round that entered none")
	}
}

// TestLiftAtCapDecides: the cap goes only after a round whose refinement
// met it with the bound short of the LP, in single VMs; pricing goes on
// after a round that entered nothing if that round met the cap or grew the
// grid, and not in units of VMs. Hand-worked on a grid thinned to 6.
func TestLiftAtCapDecides(t *testing.T) {
	p := randomOnHosts(t, 3, 20, 30)
	fresh := func() *columnGen {
		cg := newColumnGen(p, 0, 6)
		if cg.scale != 1 || cg.exact || cg.growCap >= len(cg.ps.cands) {
			t.Fatalf("want a thinned grid in single VMs below its candidates, got scale %d, %d of %d, cap %d", cg.scale, len(cg.grid), len(cg.ps.cands), cg.growCap)
		}
		return cg
	}
	for _, c := range []struct {
		capped, short, lifted bool
	}{{true, true, true}, {true, false, false}, {false, true, false}, {false, false, false}} {
		cg := fresh()
		cap0 := cg.growCap
		cg.capped = c.capped
		cg.liftAtCap(c.short)
		if got := cg.growCap == len(cg.ps.cands); got != c.lifted || !got && cg.growCap != cap0 {
			t.Errorf("capped %v, short %v: cap %d of %d candidates, want lifted %v", c.capped, c.short, cg.growCap, len(cg.ps.cands), c.lifted)
		}
	}
	cg := fresh()
	n := len(cg.grid)
	if cg.liftGrid(n) {
		t.Error("a round that neither met the cap nor grew the grid lets pricing go on")
	}
	if cg.capped = true; !cg.liftGrid(n) {
		t.Error("a round that met the cap does not let pricing go on")
	}
	cg.capped = false
	cg.grow(slices.IndexFunc(cg.ps.cands, func(d float64) bool { return !slices.Contains(cg.grid, d) }))
	if len(cg.grid) != n+1 || !cg.liftGrid(n) {
		t.Errorf("a round that grew the grid (%d to %d) does not let pricing go on", n, len(cg.grid))
	}
	if cg.scale, cg.capped = 2, true; cg.liftGrid(n) {
		t.Error("in units of VMs pricing goes on")
	}
	cg = fresh()
	cg.scale, cg.capped = 2, true
	if cg.liftAtCap(true); cg.growCap == len(cg.ps.cands) {
		t.Error("in units of VMs the cap is lifted")
	}
	cg = fresh()
	cg.growCap = len(cg.grid)
	outside := slices.IndexFunc(cg.ps.cands, func(d float64) bool { return !slices.Contains(cg.grid, d) })
	if cg.grow(outside); !cg.capped || len(cg.grid) != cg.growCap {
		t.Errorf("grow at the cap: capped %v, grid %d of cap %d", cg.capped, len(cg.grid), cg.growCap)
	}
}
