package optimize

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestLNSFindsWhatMovesMiss: four jobs F(x) = 100·x^−0.5, neither class
// (primary only), on 2 hosts × 2 disks (N = 4 VMs). The start plan runs
// them in two pairs on 2 VMs each: 2 · 100/√2 = 141.42 s. Every move of
// one job makes a phase of three (on 2, 1 and 1 VMs: 100 s) and one alone
// (on 4 VMs: 50 s), 150 s; every swap gives two pairs again. So moves and
// swaps stop at 141.42 s. The optimum runs all four on 1 VM each, 100 s
// (the other partitions: 3 + 1 and 2 + 1 + 1 cost 150 and 170.71 s, four
// alone 200 s): a step of lns that destroys both pairs re-packs the four
// jobs exactly and finds it.
func TestLNSFindsWhatMovesMiss(t *testing.T) {
	var jobs []model.Job
	for _, name := range []string{"a", "b", "c", "d"} {
		jobs = append(jobs, model.Job{Name: name, Model: model.PowerLaw{A: 100, B: -0.5}})
	}
	p, err := model.NewProblem(&model.Workload{Name: "four", Jobs: jobs}, model.Cluster{Hosts: 2}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	pair := func(x, y int) model.Phase {
		return model.Phase{Jobs: []model.Assignment{{Job: x, VMs: 2, Role: model.Primary}, {Job: y, VMs: 2, Role: model.Primary}}}
	}
	start := model.Schedule{Phases: []model.Phase{pair(0, 1), pair(2, 3)}}
	if err := p.Check(start); err != nil {
		t.Fatal(err)
	}
	if ms := p.Makespan(start); math.Abs(ms-200/math.Sqrt2) > 1e-9 {
		t.Fatalf("start makespan %v, want %v", ms, 200/math.Sqrt2)
	}
	ps := newPhaseSolver(p)
	// Moves and swaps alone stay where they started.
	phases := ps.loosePhases(start)
	ps.localSearch(phases, nil, 1, nil)
	if ms := p.Makespan(ps.looseSchedule(phases)); math.Abs(ms-200/math.Sqrt2) > 1e-9 {
		t.Fatalf("moves and swaps alone: %v, want them stuck at %v", ms, 200/math.Sqrt2)
	}
	s := ps.improve(start, 1, nil)
	if err := p.Check(s); err != nil {
		t.Fatal(err)
	}
	// The record of clean pairs changes nothing improve finds.
	if plain := ps.improveWith(start, nil, 1, nil); !reflect.DeepEqual(plain, s) {
		t.Errorf("improve keeping clean pairs gives %v, without %v", s, plain)
	}
	if len(s.Phases) != 1 || math.Abs(p.Makespan(s)-100) > 1e-9 {
		t.Errorf("improve: %d phases, makespan %v; want 1 phase of 100 s", len(s.Phases), p.Makespan(s))
	}
	ex, err := Exact(p)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ex.Makespan-100) > 1e-9 {
		t.Errorf("exact optimum %v, want 100 (the hand count is wrong)", ex.Makespan)
	}
}

// TestRepackEqualsExact: with every job free and no anchors, a re-packing is
// the exact solver's problem: the same optimum on random workloads and
// clusters, in phases that fit.
func TestRepackEqualsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	for i := range 60 {
		p, ex, _ := pairCase(t, rng, uint64(3600+i), 2+i%9, i%2 == 1)
		ps := newPhaseSolver(p)
		free := make([]int, len(p.Jobs))
		for j := range free {
			free[j] = j
		}
		var sub lnsSub
		sol, total := ps.repack(&sub, free, nil, math.Inf(1), nil)
		if math.Abs(total-ex.Makespan) > 1e-9*ex.Makespan {
			t.Fatalf("case %d: repack %v, exact %v", i, total, ex.Makespan)
		}
		checkRepacked(t, ps, sol, total)
	}
}

// checkRepacked checks that every phase of a re-packing fits in its roles
// and that they last total at most.
func checkRepacked(t *testing.T, ps *phaseSolver, sol [][]looseJob, total float64) {
	t.Helper()
	sum := 0.0
	for _, jobs := range sol {
		if len(jobs) == 0 {
			continue
		}
		_, T := ps.price(jobs, math.Inf(1))
		if math.IsInf(T, 1) {
			t.Fatalf("re-packed phase %v does not fit", jobs)
		}
		sum += T
	}
	if sum > total*(1+1e-12) {
		t.Fatalf("re-packed phases last %v, repack said %v", sum, total)
	}
}

// TestRepackAgainstBruteForce: anchors (parts of an optimal plan's phases,
// in their roles) and free jobs: repack's total equals a brute force over
// every assignment of the free jobs to the anchors or to new phases, every
// role the free jobs may take and every partition of the new ones, each
// phase priced by phaseSolver.best.
func TestRepackAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 2))
	checked := 0
	for i := range 40 {
		p, ex, _ := pairCase(t, rng, uint64(3700+i), 4+i%5, i%2 == 0)
		ps := newPhaseSolver(p)
		var free []int
		var anchors [][]looseJob
		for _, ph := range ex.Schedule.Phases {
			var keep []looseJob
			for _, a := range ph.Jobs {
				if rng.IntN(2) == 0 {
					free = append(free, a.Job)
				} else {
					keep = append(keep, looseJob{a.Job, slices.Index(roleOf[:], a.Role)})
				}
			}
			anchors = append(anchors, keep)
		}
		if len(free) == 0 || len(free) > 6 {
			continue
		}
		checked++
		var sub lnsSub
		sol, total := ps.repack(&sub, free, anchors, math.Inf(1), nil)
		want := bruteRepack(ps, free, anchors)
		if math.Abs(total-want) > 1e-9*want {
			t.Fatalf("case %d: repack %v, brute force %v (free %v, anchors %v)", i, total, want, free, anchors)
		}
		if total > ex.Makespan*(1+1e-9) {
			t.Fatalf("case %d: repack %v above the plan it came from, %v", i, total, ex.Makespan)
		}
		checkRepacked(t, ps, sol, total)
	}
	if checked < 20 {
		t.Fatalf("only %d cases checked", checked)
	}
}

// bruteRepack is repack's reference: every assignment of each free job to an
// anchor or to the new phases, the new ones partitioned every way.
func bruteRepack(ps *phaseSolver, free []int, anchors [][]looseJob) float64 {
	best := math.Inf(1)
	to := make([]int, len(free)) // anchor index, or len(anchors): new
	var rec func(k int)
	rec = func(k int) {
		if k == len(free) {
			total := 0.0
			var fresh []int
			for a, anchor := range anchors {
				var add []int
				for f, j := range free {
					if to[f] == a {
						add = append(add, j)
					}
				}
				if len(anchor) > 0 || len(add) > 0 {
					total += brutePhase(ps, anchor, add)
				}
			}
			for f, j := range free {
				if to[f] == len(anchors) {
					fresh = append(fresh, j)
				}
			}
			best = min(best, total+brutePartition(ps, fresh))
			return
		}
		for a := range len(anchors) + 1 {
			to[k] = a
			rec(k + 1)
		}
	}
	rec(0)
	return best
}

// brutePhase is the best duration of anchor's jobs (in their roles) with the
// jobs add in any roles they may take.
func brutePhase(ps *phaseSolver, anchor []looseJob, add []int) float64 {
	ids := make([]int, 0, len(anchor)+len(add))
	roles := make([]int, 0, len(anchor)+len(add))
	for _, x := range anchor {
		ids, roles = append(ids, x.job), append(roles, x.role)
	}
	ids = append(ids, add...)
	roles = append(roles, make([]int, len(add))...)
	n := len(ids)
	lo, hi := make([]int, n), make([]int, n)
	best := math.Inf(1)
	for mask := 0; mask < 1<<len(add); mask++ {
		for k, j := range add {
			roles[len(anchor)+k] = ps.overRole(j, mask&(1<<k) != 0)
		}
		best = min(best, ps.best(ids, roles, lo, hi))
	}
	return best
}

// brutePartition is the best split of jobs into new phases.
func brutePartition(ps *phaseSolver, jobs []int) float64 {
	if len(jobs) == 0 {
		return 0
	}
	first, rest := jobs[0], jobs[1:]
	best := math.Inf(1)
	for mask := 0; mask < 1<<len(rest); mask++ {
		phase, others := []int{first}, []int{}
		for k, j := range rest {
			if mask&(1<<k) != 0 {
				phase = append(phase, j)
			} else {
				others = append(others, j)
			}
		}
		best = min(best, brutePhase(ps, nil, phase)+brutePartition(ps, others))
	}
	return best
}

// TestImproveLongerNeverWorse: improve's search is one trajectory that stop
// only cuts: given more stop calls it never ends with a longer plan, the
// same budget gives the same plan, at GOMAXPROCS 1 and 2, and every plan is
// valid and no longer than where it started.
func TestImproveLongerNeverWorse(t *testing.T) {
	for _, seed := range []uint64{1} {
		p, pr := randomPairPlan(t, seed, 30, model.PaperCluster())
		ps := newPhaseSolver(p)
		run := func(budget int) model.Schedule {
			n := 0
			return ps.improve(pr.Schedule, 1, func() bool { n++; return n > budget })
		}
		last := p.Makespan(pr.Schedule)
		for _, budget := range []int{0, 50, 300, 700, 1500} {
			s := run(budget)
			if err := p.Check(s); err != nil {
				t.Fatalf("seed %d, budget %d: %v", seed, budget, err)
			}
			ms := p.Makespan(s)
			if ms > last*(1+1e-12) {
				t.Errorf("seed %d: budget %d gives %v, a smaller one %v", seed, budget, ms, last)
			}
			last = ms
		}
		prev := runtime.GOMAXPROCS(1)
		one := run(700)
		runtime.GOMAXPROCS(2)
		two := run(700)
		runtime.GOMAXPROCS(prev)
		if !reflect.DeepEqual(one, two) {
			t.Errorf("seed %d: the same budget gave two plans (%v and %v)", seed, p.Makespan(one), p.Makespan(two))
		}
	}
}

// TestBestFromEqualsBest: durations with bestFrom (starting each subset's
// search at its subsets' durations) fills the same tables, bit for bit, as
// with best's binary search over the whole range, roles included, on
// random re-packings: 2–4 phases of a pair plan opened, up to 10 of their
// jobs freed, the rest anchors in their roles, under no limit or the
// phases' own length (which empties ranges and leaves subsets unfit).
func TestBestFromEqualsBest(t *testing.T) {
	rng, probe := rand.New(rand.NewPCG(36, 5)), rand.New(rand.NewPCG(36, 6))
	compared, unfit, above := 0, 0, 0
	for i := range 60 {
		cl := model.PaperCluster()
		cl.Hosts = 1 + rng.IntN(12)
		if i%3 == 0 {
			cl = randomSmallCluster(rng)
		}
		p, pr := randomPairPlan(t, uint64(500+i), 12+rng.IntN(30), cl)
		ps := newPhaseSolver(p)
		phases := pr.Schedule.Phases
		var free []int
		var anchors [][]looseJob
		was := 0.0
		for _, c := range rng.Perm(len(phases))[:min(len(phases), 2+rng.IntN(3))] {
			was += p.PhaseDuration(phases[c])
			var keep []looseJob
			for _, a := range phases[c].Jobs {
				if len(free) < 10 && rng.IntN(3) > 0 {
					free = append(free, a.Job)
				} else {
					keep = append(keep, looseJob{a.Job, slices.Index(roleOf[:], a.Role)})
				}
			}
			anchors = append(anchors, keep)
		}
		if len(free) == 0 {
			continue
		}
		limit := math.Inf(1)
		if i%2 == 1 {
			limit = was
		}
		var fast, plain lnsSub
		plain.plain = true
		fastSol, fastTotal := ps.repack(&fast, free, anchors, limit, nil)
		plainSol, plainTotal := ps.repack(&plain, free, anchors, limit, nil)
		if fastTotal != plainTotal || !reflect.DeepEqual(fastSol, plainSol) {
			t.Fatalf("case %d: repack %v with bestFrom, %v with best", i, fastTotal, plainTotal)
		}
		if plain.top < 0 {
			continue
		}
		// bestFrom against best at any floor, the answer's or not: a
		// hint above the answer (which subsets' durations never give
		// here) takes the path that falls back to best's search.
		for range 200 {
			a := probe.IntN(len(anchors) + 1)
			set := uint32(1 + probe.IntN(1<<len(free)-1))
			lo := probe.IntN(fast.top + 1)
			top := lo + probe.IntN(fast.top-lo+1)
			hint := lo + probe.IntN(top-lo+2)
			got, o := fast.bestFrom(a, set, lo, hint, top)
			pt, po := fast.best(a, set, lo, top)
			if got != pt || o != po {
				t.Fatalf("case %d: bestFrom(%d, %b, %d, hint %d, %d) = %d (roles %b), best %d (%b)", i, a, set, lo, hint, top, got, o, pt, po)
			}
			if pt >= 0 && hint > pt {
				above++
			}
		}
		g, over := fast.durations(limit, nil)
		pg, pover := plain.durations(limit, nil)
		for a := range g {
			for s := range g[a] {
				if g[a][s] != pg[a][s] || over[a][s] != pover[a][s] {
					t.Fatalf("case %d, anchor %d, subset %b: %v (roles %b) with bestFrom, %v (%b) with best",
						i, a, s, g[a][s], over[a][s], pg[a][s], pover[a][s])
				}
				compared++
				if math.IsInf(g[a][s], 1) {
					unfit++
				}
			}
		}
	}
	// Both kinds of entry occur, or the comparison proves little.
	if compared < 5000 || unfit < 200 || unfit > compared-200 || above < 500 {
		t.Fatalf("compared %d entries, %d unfit; %d probes hinted above the answer", compared, unfit, above)
	}
	t.Logf("compared %d entries, %d unfit; %d probes hinted above the answer", compared, unfit, above)
}

// randomPairPlan is RandomWorkload(seed, m) on cluster c and its pair plan,
// where a test starts improving from.
func randomPairPlan(t *testing.T, seed uint64, m int, c model.Cluster) (*model.Problem, PairResult) {
	t.Helper()
	p, err := model.NewProblem(RandomWorkload(seed, m), c)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, pr
}
