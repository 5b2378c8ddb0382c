package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// sortedKnapsack is the plain reference for levelSearch.knapsack: the jobs
// sorted by dual per VM, taken whole while they fit, the first that does
// not fit in part.
func sortedKnapsack(pi []float64, w []levelJob, theta, kappa, n float64) float64 {
	type item struct{ ratio, pi, w float64 }
	var items []item
	for j := range pi {
		wt := min(float64(w[j].p), theta*float64(w[j].h), (1-theta)*kappa*float64(w[j].e))
		if pi[j] > 0 && !math.IsInf(wt, 1) {
			items = append(items, item{pi[j] / wt, pi[j], wt})
		}
	}
	slices.SortFunc(items, func(a, b item) int { return -cmpFloat(a.ratio, b.ratio) })
	val := 0.0
	for _, it := range items {
		f := min(1, n/it.w)
		val += f * it.pi
		n -= f * it.w
		if n <= 0 {
			break
		}
	}
	return val
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestLevelKnapsackMatchesSort: the selection by partitioning gives the
// value the sorted reference gives, on random jobs with many equal ratios,
// jobs no role admits and knapsacks that every job fits in.
func TestLevelKnapsackMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	inf := float32(math.Inf(1))
	for c := range 2000 {
		m := 1 + rng.IntN(60)
		pi, w := make([]float64, m), make([]levelJob, m)
		for j := range m {
			pi[j] = float64(rng.IntN(6)) // zeros, and ties in the ratios
			w[j] = levelJob{float32(1 + rng.IntN(4)), float32(1 + rng.IntN(4)), float32(1 + rng.IntN(4))}
			switch rng.IntN(5) {
			case 0:
				w[j].p = inf
			case 1:
				w[j] = levelJob{inf, inf, inf}
			case 2:
				w[j].e = inf
			}
		}
		ls := &levelSearch{kappa: 1 + float64(rng.IntN(3)), n: float64(1 + rng.IntN(3*m)), scratch: []levelScratch{{x: make([]float64, m)}}}
		for _, th := range levelThetas {
			x := make([]float64, m)
			got := ls.knapsack(pi, w, th, x, &ls.scratch[0])
			want := sortedKnapsack(pi, w, th, ls.kappa, ls.n)
			if math.Abs(got-want) > 1e-9*max(1, want) {
				t.Fatalf("case %d, θ %v: knapsack %v, sorted %v", c, th, got, want)
			}
			// The fractions are a solution of that value within capacity.
			val, used := 0.0, 0.0
			for j, f := range x {
				if f < 0 || f > 1 {
					t.Fatalf("case %d: fraction %v", c, f)
				}
				if f > 0 {
					val += f * pi[j]
					used += f * min(float64(w[j].p), th*float64(w[j].h), (1-th)*ls.kappa*float64(w[j].e))
				}
			}
			if math.Abs(val-got) > 1e-9*max(1, got) || used > ls.n*(1+1e-12) {
				t.Fatalf("case %d: fractions worth %v using %v of %v, knapsack %v", c, val, used, ls.n, got)
			}
		}
	}
}

// TestLevelDualsHoldEveryPhase is Farley's condition on the duals that
// prove the level bound, against brute force: on random workloads of up to
// 6 jobs on random small clusters, every set of jobs, in its shortest phase
// over every role and VM count (bruteForcePhase, which shares no code with
// the phase solver), is worth at most that phase's length; and the bound
// is at most the optimum (bruteForce). The duals come from a search that
// makes some phase nearly tight, so a relaxation that missed a phase, or a
// maximum that missed a length, would show.
func TestLevelDualsHoldEveryPhase(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	cases := 150
	if testing.Short() {
		cases = 40
	}
	tight, overcommitted := 0, 0
	for i := range cases {
		m := 1 + i%6
		w := RandomWorkload(uint64(100+i), m)
		switch i % 5 {
		case 0:
			// A job slower on more VMs: its counts meeting D are an
			// interval that does not reach N.
			w.Jobs[0].Model = model.PowerLaw{A: w.Jobs[0].Model.(model.PowerLaw).A, B: 0.3}
		case 2:
			// A measured table that zigzags: not a valley, so the fewest
			// VMs meeting D need not sit next to the fastest count.
			t := &model.Table{Nodes: []int{1, 2, 3, 4, 5, 6}}
			for range t.Nodes {
				t.Times = append(t.Times, 100+float64(rng.IntN(400)))
			}
			w.Jobs[m-1].Model = t
		}
		p, err := model.NewProblem(w, randomSmallCluster(rng))
		if err != nil {
			t.Fatal(err)
		}
		bound, duals, ok := levelBound(newPhaseSolver(p), 1, nil)
		if !ok {
			t.Fatalf("case %d: not finished without a stop", i)
		}
		sum, most := 0.0, 0.0
		for _, d := range duals {
			sum += d
		}
		if math.Abs(sum-bound) > 1e-9*bound {
			t.Fatalf("case %d: duals sum to %v, bound %v", i, sum, bound)
		}
		for s := uint32(1); s < 1<<m; s++ {
			d := bruteForcePhase(p, s)
			if math.IsInf(d, 1) {
				continue
			}
			worth := 0.0
			for j := range m {
				if s&(1<<j) != 0 {
					worth += duals[j]
				}
			}
			if worth > d*(1+1e-9) {
				t.Fatalf("case %d (%+v): jobs %b worth %v in a phase of %v", i, p.Cluster, s, worth, d)
			}
			most = max(most, worth/d)
		}
		if most > 1-0.01 {
			tight++
		}
		if opt := bruteForce(p); bound > opt*(1+1e-9) {
			t.Fatalf("case %d: level bound %v above the optimum %v", i, bound, opt)
		}
		if p.Cluster.MaxExtraVMs() > 0 && m >= 2 {
			overcommitted++
		}
	}
	// The condition is only tested where some phase comes near it.
	if tight < cases*3/4 {
		t.Errorf("a phase within 1 %% of its length in only %d of %d cases", tight, cases)
	}
	if overcommitted < cases/4 {
		t.Errorf("only %d cases could overcommit", overcommitted)
	}
}

// TestLevelRatioCoversEveryLength: the maximum the bound divides by is at
// least value(D)/D at every candidate length D, the lengths a phase can
// last, priced one by one; the grid alone is 5 % apart.
func TestLevelRatioCoversEveryLength(t *testing.T) {
	for _, hosts := range []int{6, 60} {
		p, err := model.NewProblem(RandomWorkload(7, 30), model.Cluster{Hosts: hosts, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3}.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		ps := newPhaseSolver(p)
		ls := newLevelSearch(ps, 1)
		pi, ok := ls.search(nil)
		if !ok {
			t.Fatal("search stopped without a stop")
		}
		r, ok := ls.ratio(pi, nil)
		if !ok {
			t.Fatal("ratio stopped without a stop")
		}
		w, x := make([]levelJob, len(pi)), make([]float64, len(pi))
		most, grid := 0.0, 0.0
		for _, D := range ps.cands {
			ls.weights(D, w)
			v, _ := ls.value(pi, w, x, &ls.scratch[0])
			most = max(most, v/D)
		}
		for l, D := range ls.grid {
			v, _ := ls.value(pi, ls.w[l], x, &ls.scratch[0])
			grid = max(grid, v/D)
		}
		if r < most*(1-1e-12) || r > most*(1+2*levelTolerance) {
			t.Errorf("%d hosts: ratio %v, every length's maximum %v", hosts, r, most)
		}
		t.Logf("%d hosts: %d lengths: maximum %v, on the grid %v, ratio %v", hosts, len(ps.cands), most, grid, r)
	}
}

// TestLevelBoundAnyWorkers: the grid priced on one goroutine or several
// gives the same bound and duals, bit for bit.
func TestLevelBoundAnyWorkers(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(3, 120), model.Cluster{Hosts: 60, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	b1, d1, _ := levelBound(newPhaseSolver(p), 1, nil)
	b3, d3, _ := levelBound(newPhaseSolver(p), 3, nil)
	if b1 != b3 || !slices.Equal(d1, d3) {
		t.Errorf("1 goroutine: %v, 3: %v", b1, b3)
	}
	if area := LowerBound(p); b1 <= area {
		t.Errorf("level bound %v, area bound %v: the search found nothing", b1, area)
	}
}

// TestLevelBoundInSolve: past 100 primary VMs (and 100 jobs: no swarm runs
// first), auto's bound is at least the
// level bound and the note names it where it is the best; a work limit
// that ends the search inside the level bound's stage leaves the area
// bound; and a longer limit never lowers the bound or lengthens the plan.
func TestLevelBoundInSolve(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(2, 120), model.Cluster{Hosts: 60, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	ticks := 0
	level, _, _ := levelBound(newPhaseSolver(p), 1, func() bool { ticks++; return false })
	prevPlan, prevBound := math.Inf(1), 0.0
	named := false
	for _, limit := range []int64{int64(ticks) / 2, int64(ticks) + 20, 1500, 4000} {
		res, err := Solve(p, MethodAuto, &Settings{WorkLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		plan, bound := p.Makespan(res.Schedule), *res.LowerBound
		notes := strings.Join(res.Notes, " ")
		switch {
		case limit < int64(ticks):
			if bound > LowerBound(p)*(1+1e-12) || !strings.Contains(notes, "before it began") {
				t.Errorf("work limit %d inside the level stage (%d units): bound %v, area %v; %s", limit, ticks, bound, LowerBound(p), notes)
			}
		case bound < min(level, plan)*(1-1e-12):
			t.Errorf("work limit %d: bound %v below the level bound %v", limit, bound, level)
		case bound == level:
			named = true
			if !strings.Contains(notes, "the level bound") {
				t.Errorf("work limit %d: the level bound is the bound, the note does not say so: %s", limit, notes)
			}
		}
		if plan > prevPlan || bound < prevBound {
			t.Errorf("work limit %d: plan %v after %v, bound %v after %v", limit, plan, prevPlan, bound, prevBound)
		}
		prevPlan, prevBound = plan, bound
		t.Logf("work limit %d: plan %.1f, bound %.1f (level %.1f)", limit, plan, bound, level)
	}
	if !named {
		t.Error("the level bound was never the bound: the note's case went untested")
	}
}

// TestLevelNote: where the level bound is the bound, the note names it and
// does not say that a longer limit tightens the bound, which it does not
// (the LP's, which does, would say so at the same gap).
func TestLevelNote(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(1, 3), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	set := &Settings{shared: &sharedTables{p: p, lb: 100, hasLB: true, level: 120}}
	for _, c := range []struct {
		bound       float64
		name, other string
	}{
		{120, "(" + levelNote, weakNote},
		{125, "(Farley's bound on the LP duals" + weakNote, levelNote},
	} {
		cp := &checkpoints{makespan: 140, bound: c.bound, runs: 1, started: 1, last: &ColumnsResult{Ended: EndedStopped}}
		note := cp.note(set, false)
		if !strings.Contains(note, c.name) || strings.Contains(note, c.other) {
			t.Errorf("bound %v: note %q, want %q and not %q", c.bound, note, c.name, c.other)
		}
	}
}
