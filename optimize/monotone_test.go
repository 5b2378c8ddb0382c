package optimize

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// tickClock is a clock for Settings.Clock that advances a millisecond at
// every read: time is then a count of the solvers' checks, the same on any
// machine, and a limit of T ms passes at a known check.
type tickClock struct {
	t0    time.Time
	reads atomic.Int64
}

func (c *tickClock) now() time.Time {
	return c.t0.Add(time.Duration(c.reads.Add(1)) * time.Millisecond)
}

// monotoneProblem is a small random problem past the exact solver's reach
// (ExactJobs), so that auto runs the swarm and column generation.
func monotoneProblem(t *testing.T, seed uint64) *model.Problem {
	t.Helper()
	cl := model.PaperCluster()
	cl.Hosts = 2 + int(seed%3)
	p, err := model.NewProblem(RandomWorkload(seed, 18+int(seed%5)), cl)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// limitedSolve is auto on p with a small swarm of the given seed and the
// limits of set (TimeLimit, WorkLimit, Clock): its plan's makespan and bound.
func limitedSolve(t *testing.T, p *model.Problem, seed uint64, set Settings) (*Result, float64, float64) {
	t.Helper()
	set.Swarm = &pso.Settings{Particles: 40, Iterations: 15, Seed: seed}
	res, err := Solve(p, MethodAuto, &set)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(res.Schedule); err != nil || res.LowerBound == nil {
		t.Fatalf("seed %d: schedule %v, bound %v", seed, err, res.LowerBound)
	}
	return res, p.Makespan(res.Schedule), *res.LowerBound
}

// TestLongerLimitNeverWorse: on random problems, a longer work limit, or a
// longer time limit on a clock that ticks with the checks, never gives a
// longer plan or a lower bound than a shorter one, from a limit that ends
// the search before the swarm has run to none at all (0, work limits only:
// the time limits' 0 is the same search); and some limit cuts each
// problem's search (the test would pass vacuously if none did).
func TestLongerLimitNeverWorse(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		p := monotoneProblem(t, seed)
		for _, by := range []string{"work", "time"} {
			limits := []int64{1, 100, 300, 500, 700, 900, 1100, 1300}
			if by == "work" {
				// Past the first run that ends within the tolerance (at
				// 1,880 units on seed 1, 3,507 on seed 4), whose next run
				// prices to half of it.
				limits = append(limits, 2000, 4000, 8000, 0)
			}
			prevPlan, prevBound := 0.0, 0.0
			cut := false
			for i, l := range limits {
				set := Settings{WorkLimit: l}
				if by == "time" {
					clock := &tickClock{t0: time.Unix(1e9, 0)}
					set = Settings{TimeLimit: time.Duration(l) * time.Millisecond, Clock: clock.now}
				}
				res, plan, bound := limitedSolve(t, p, seed, set)
				cut = cut || strings.Contains(strings.Join(res.Notes, " "), "limit (")
				if i > 0 && (plan > prevPlan || bound < prevBound) {
					t.Errorf("seed %d, %s limit %d after %d: plan %v after %v, bound %v after %v", seed, by, l, limits[i-1], plan, prevPlan, bound, prevBound)
				}
				prevPlan, prevBound = plan, bound
			}
			if !cut {
				t.Errorf("seed %d: no %s limit cut the search", seed, by)
			}
		}
	}
}

// TestTimeCutRepeatsAsWorkLimit: a search the time limit ends notes how
// much work it had done, as Result.Work says too, and that work as
// --work-limit gives the same plan and bound (and Work); the work-limit
// run's notes hold nothing about time.
func TestTimeCutRepeatsAsWorkLimit(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		p := monotoneProblem(t, seed)
		for _, ms := range []int64{300, 800, 1200} {
			clock := &tickClock{t0: time.Unix(1e9, 0)}
			timed, plan, bound := limitedSolve(t, p, seed, Settings{TimeLimit: time.Duration(ms) * time.Millisecond, Clock: clock.now})
			var n int64
			for _, note := range timed.Notes {
				if i := strings.Index(note, "--work-limit "); i >= 0 {
					fmt.Sscan(note[i+len("--work-limit "):], &n)
				}
			}
			if n == 0 {
				t.Errorf("seed %d, %d ms: no work limit in the notes %q", seed, ms, timed.Notes)
				continue
			}
			if timed.Work != n {
				t.Errorf("seed %d, %d ms: Result.Work %d, the notes say %d", seed, ms, timed.Work, n)
			}
			worked, plan2, bound2 := limitedSolve(t, p, seed, Settings{WorkLimit: n})
			if worked.Work != n {
				t.Errorf("seed %d, %d ms: --work-limit %d: Result.Work %d", seed, ms, n, worked.Work)
			}
			if !reflect.DeepEqual(timed.Schedule, worked.Schedule) || plan != plan2 || bound != bound2 {
				t.Errorf("seed %d, %d ms: cut after %d units: plan %v bound %v; --work-limit %d: plan %v bound %v", seed, ms, n, plan, bound, n, plan2, bound2)
			}
			if notes := strings.Join(worked.Notes, " "); strings.Contains(notes, "time") || !strings.Contains(notes, fmt.Sprintf("the work limit (%d units) ended the search", n)) {
				t.Errorf("seed %d: work-limited notes %q", seed, worked.Notes)
			}
		}
	}
}

// TestWorkLimitAnyCores: under a work limit, with the swarm's evaluations
// on one core or two, the solution (schedule, placement, bound, notes) is
// the same, whether the limit cuts the swarm, column generation or nothing.
func TestWorkLimitAnyCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for seed := uint64(1); seed <= 4; seed++ {
		p := monotoneProblem(t, seed)
		for _, l := range []int64{150, 700, 1200} {
			var got []*Result
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				res, _, _ := limitedSolve(t, p, seed, Settings{WorkLimit: l})
				got = append(got, res)
			}
			if !reflect.DeepEqual(got[0].Solution, got[1].Solution) {
				t.Errorf("seed %d, work limit %d: GOMAXPROCS 1 gave %v (notes %q), 2 gave %v (notes %q)", seed, l,
					p.Makespan(got[0].Schedule), got[0].Notes, p.Makespan(got[1].Schedule), got[1].Notes)
			}
		}
	}
}

// TestCutRunKeepsItsPlan: without the plans the integer search finds
// before a limit cuts its run, the plan changes only when a run completes,
// so limits that complete the same whole runs give the same plan. Those
// plans are kept: among limits with as many whole runs, a later one gives a
// shorter plan than the first, and plans never lengthen as the limit grows.
// The note says where the plan comes from: "the best it started from" only
// when it is, and the cut run's integer search when it is.
func TestCutRunKeepsItsPlan(t *testing.T) {
	// Seed 1 cuts its second run, seed 4 its first.
	for _, c := range []struct {
		seed     uint64
		from, to int64
	}{{1, 1000, 1800}, {4, 900, 1100}} {
		cutRunKeepsItsPlan(t, c.seed, c.from, c.to)
	}
}

func cutRunKeepsItsPlan(t *testing.T, seed uint64, from, to int64) {
	p := monotoneProblem(t, seed)
	first := map[string]float64{} // plan at the least limit with that many whole runs
	prev, kept := 0.0, false
	start := regexp.MustCompile(`the best plan it started from \(pair plan and swarm\): ([0-9.]+) s`)
	for l := from; l <= to; l += 40 {
		res, plan, _ := limitedSolve(t, p, seed, Settings{WorkLimit: l})
		notes := strings.Join(res.Notes, " ")
		runs := "0"
		if m := regexp.MustCompile(`(\d+) whole runs`).FindStringSubmatch(notes); m != nil {
			runs = m[1]
		}
		m := start.FindStringSubmatch(notes)
		if m == nil {
			t.Fatalf("work limit %d: no starting plan in the notes: %s", l, notes)
		}
		if s := fmt.Sprintf("%.1f", plan); strings.Contains(notes, "the plan is the best it started from") != (s == m[1]) {
			t.Errorf("seed %d, work limit %d: plan %s, started from %s, but the note says: %s", seed, l, s, m[1], notes)
		}
		if prev > 0 && plan > prev {
			t.Errorf("seed %d, work limit %d: plan %v after %v", seed, l, plan, prev)
		}
		if v, ok := first[runs]; !ok {
			first[runs] = plan
		} else if plan < v {
			kept = true
			if !strings.Contains(notes, "the best the next run found before the limit cut it") && !strings.Contains(notes, "the best that run found before the limit") {
				t.Errorf("seed %d, work limit %d: the plan is from a cut run, and the note does not say so: %s", seed, l, notes)
			}
		}
		prev = plan
	}
	if !kept {
		t.Errorf("seed %d: no limit kept a plan found in a run it cut (plans by whole runs, at the first limit: %v)", seed, first)
	}
}

// TestUncutFollowsEveryStep: a run no limit cuts (ended always says no),
// stopped by its round cap so that a final bound round runs, records as
// the plan and bound it would keep if a limit cut it next the plan it
// returns, after every step of the integer search (dive, local search,
// branch-and-bound), and the bound it proves.
func TestUncutFollowsEveryStep(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		p := monotoneProblem(t, seed)
		pr, err := PairSchedule(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Columns(p, []model.Schedule{pr.Schedule}, ColumnsOptions{Rounds: 4, ended: func() bool { return false }})
		if err != nil {
			t.Fatal(err)
		}
		if res.Ended != EndedRounds || p.Makespan(res.uncut) != res.Makespan || res.uncutBound != res.proven {
			t.Errorf("seed %d: ended %q; kept plan %v, bound %v; the run's %v, %v", seed, res.Ended, p.Makespan(res.uncut), res.uncutBound, res.Makespan, res.proven)
		}
	}
}

// TestCutImproveKeepsItsDescent: improve only ever shortens the plan, so a
// limit that cuts it ends its descent early, and the run keeps where it got
// to. A run of 4 rounds, cut by the limit after 0, 10, …, 1,000 calls of its
// BranchStop (which the final bound round and the integer search ask), keeps
// plans that never lengthen and are never lost as the cut comes later, and
// some of them lie strictly between the first it keeps (the dive's, with
// the old rule the only one before improve ends) and the uncut run's plan.
func TestCutImproveKeepsItsDescent(t *testing.T) {
	p := monotoneProblem(t, 1)
	pr, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	run := func(cutAfter int) ColumnsResult {
		n, cut := 0, false
		res, err := Columns(p, []model.Schedule{pr.Schedule}, ColumnsOptions{Rounds: 4, ended: func() bool { return cut },
			BranchStop: func() bool {
				n++
				cut = cut || n > cutAfter
				return cut
			}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	final := run(math.MaxInt).Makespan
	first, prev, between := 0.0, math.Inf(1), 0
	for k := 0; k <= 1000; k += 10 {
		res := run(k)
		if res.uncut.Phases == nil {
			if first > 0 {
				t.Fatalf("cut after %d stop calls: no plan kept, an earlier cut kept %v", k, prev)
			}
			continue
		}
		if err := p.Check(res.uncut); err != nil {
			t.Fatalf("cut after %d: %v", k, err)
		}
		ms := p.Makespan(res.uncut)
		if ms > prev {
			t.Errorf("cut after %d stop calls: kept plan %v, after %v with an earlier cut", k, ms, prev)
		}
		if first == 0 {
			first = ms
		}
		if ms < first && ms > final {
			between++
		}
		prev = ms
	}
	if between == 0 {
		t.Errorf("no kept plan between the first (%v) and the uncut run's (%v): none from a descent the limit cut", first, final)
	}
}

// TestRoundingsKeptWhereTheLimitCuts: past largeDive jobs each pricing
// round rounds the LP (roundEach), and the progress reports the best plan
// round by round. A first run, which no limit cuts, finds a round k+1 whose
// rounding beats all before it. A second, whose limit says yes after round
// k and whose Stop ends it one round later, reports the same plans up to
// round k, none better in round k+1, and keeps round k's best as the plan
// any longer limit improves on (uncut); the roundings beat the seed, so
// that plan is not the seed's.
func TestRoundingsKeptWhereTheLimitCuts(t *testing.T) {
	cl := model.PaperCluster()
	cl.Hosts = 12
	p, err := model.NewProblem(RandomWorkload(3, largeDive+20), cl)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	seed := p.Makespan(pr.Schedule)
	// run reports the plan after each round, the limit saying yes after
	// round cutAt (0: never), Stop ending the run after round last (and the
	// integer search at once, which keeps the test quick).
	run := func(cutAt, last int) ([]float64, ColumnsResult) {
		var reported []float64
		res, err := Columns(p, []model.Schedule{pr.Schedule}, ColumnsOptions{
			ended:    func() bool { return cutAt > 0 && len(reported) >= cutAt },
			Stop:     func() bool { return len(reported) >= last },
			Progress: func(incumbent, _ float64) { reported = append(reported, incumbent) }})
		if err != nil {
			t.Fatal(err)
		}
		return reported, res
	}
	free, _ := run(0, 24)
	k := 0
	for r := 1; r < len(free) && k == 0; r++ {
		if free[r] < free[r-1] && free[r-1] < seed {
			k = r // round r+1 beats round r, whose plan beats the seed
		}
	}
	if k == 0 {
		t.Fatalf("no round's rounding beat an earlier one that beat the seed %v: %v", seed, free)
	}
	got, res := run(k, k+1)
	if len(got) != k+1 {
		t.Fatalf("%d rounds reported, want %d (the cut after round %d, then one more)", len(got), k+1, k)
	}
	for r := range k {
		if got[r] != free[r] {
			t.Errorf("round %d reports %v, the uncut run %v", r+1, got[r], free[r])
		}
	}
	kept := free[k-1]
	if got[k] != kept {
		t.Errorf("round %d, after the cut, reports %v: a rounding the limit cut is not on its course (kept %v)", k+1, got[k], kept)
	}
	if res.uncut.Phases == nil || p.Makespan(res.uncut) != kept {
		t.Errorf("kept plan %v, want the best before the cut, %v", p.Makespan(res.uncut), kept)
	} else if err := p.Check(res.uncut); err != nil {
		t.Errorf("kept plan: %v", err)
	}
}

// TestTwoDivesLongerLimitNeverWorse: on a cluster past fineDiveVMs primary
// VMs, where the integer search dives twice (diveSteps), a longer work
// limit never gives a longer plan or a lower bound, and two cores give the
// solution one does, at limits 100 units apart from the swarm's end to
// where the search ends by itself (about 2,350 units).
func TestTwoDivesLongerLimitNeverWorse(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cl := model.PaperCluster()
	cl.Hosts = 25
	p, err := model.NewProblem(RandomWorkload(2, 30), cl)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(newColumnGen(p, 0, 0).diveSteps()); n != 2 {
		t.Fatalf("%d dives on 50 primary VMs, want 2", n)
	}
	prevPlan, prevBound := 0.0, 0.0
	firstPlan, cut := 0.0, false
	for l := int64(700); l <= 2600; l += 100 {
		var got []*Result
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			res, _, _ := limitedSolve(t, p, 1, Settings{WorkLimit: l})
			got = append(got, res)
		}
		if !reflect.DeepEqual(got[0].Solution, got[1].Solution) {
			t.Errorf("work limit %d: GOMAXPROCS 1 gave %v, 2 gave %v", l, p.Makespan(got[0].Schedule), p.Makespan(got[1].Schedule))
		}
		plan, bound := p.Makespan(got[0].Schedule), *got[0].LowerBound
		cut = cut || strings.Contains(strings.Join(got[0].Notes, " "), "limit (")
		if firstPlan == 0 {
			firstPlan = plan
		}
		if plan > prevPlan && prevPlan > 0 || bound < prevBound {
			t.Errorf("work limit %d: plan %v after %v, bound %v after %v", l, plan, prevPlan, bound, prevBound)
		}
		prevPlan, prevBound = plan, bound
	}
	// Vacuous unless some limit cut the search and a longer one improved
	// the plan.
	if !cut || prevPlan >= firstPlan {
		t.Errorf("limits 700–2,600: cut %v, plan %v at the first, %v at the last", cut, firstPlan, prevPlan)
	}
}
