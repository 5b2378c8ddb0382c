package optimize

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

func TestParseMethod(t *testing.T) {
	for _, m := range Methods() {
		if got, err := ParseMethod(string(m)); err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %q, %v", m, got, err)
		}
	}
	_, err := ParseMethod("swarm")
	if !errors.Is(err, ErrUnknownMethod) {
		t.Fatalf("ParseMethod(swarm): %v does not wrap ErrUnknownMethod", err)
	}
	if want := `unknown algorithm "swarm" (want auto, exact, pso, columns, pair or sequential)`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// threeJobs is the hand-worked problem of TestPairScheduleThreeJobsHandWorked:
// the pair plan (A hosts B's extras for 72 s, then C alone 12 s) takes 84 s;
// sequential takes 60 + 30 + 12 = 102 s.
func threeJobs(t *testing.T) *model.Problem {
	return problem(t, smallCluster(), job("A", 240, -1, false, true), job("B", 120, -1, true, false), job("C", 48, -1, false, false))
}

func TestSolveMethods(t *testing.T) {
	p := threeJobs(t)
	ex, err := Exact(p)
	if err != nil {
		t.Fatal(err)
	}
	swarm := &pso.Settings{Particles: 30, Iterations: 10, Seed: 5}
	for _, c := range []struct {
		method       Method
		ran          Method
		makespan     float64 // 0: the exact optimum
		optimum      bool
		seed         bool
		notePrefixes []string
	}{
		{MethodSequential, MethodSequential, 102, false, false, nil},
		{MethodPair, MethodPair, 84, false, false, []string{"pairing exact"}},
		{MethodExact, MethodExact, 0, true, false, []string{"optimal", "phases ordered"}},
		// 339 units: 29 random starts (the pair plan's start is always
		// evaluated, unasked), 10 × 30 moves and a check after each of the
		// 10 iterations.
		{MethodSwarm, MethodSwarm, 0, true, true, []string{"particle swarm", "the search ran to its end (339 work units)", "phases ordered"}},
		{MethodAuto, MethodExact, 0, true, false, []string{"auto chose exact: 3 jobs (exact up to 16)", "optimal", "phases ordered"}},
	} {
		res, err := Solve(p, c.method, &Settings{Swarm: swarm})
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		want := c.makespan
		if want == 0 {
			want = ex.Makespan
		}
		if got := p.Makespan(res.Schedule); !near(got, want) {
			t.Errorf("%s: makespan %v, want %v", c.method, got, want)
		}
		if res.Method != c.ran || res.Algorithm != string(c.ran) {
			t.Errorf("%s: ran %q (algorithm %q), want %q", c.method, res.Method, res.Algorithm, c.ran)
		}
		if (res.Optimum != nil) != c.optimum || res.LowerBound != nil {
			t.Errorf("%s: optimum %v, lower bound %v", c.method, res.Optimum, res.LowerBound)
		}
		if c.optimum && !near(*res.Optimum, ex.Makespan) {
			t.Errorf("%s: optimum %v, want %v", c.method, *res.Optimum, ex.Makespan)
		}
		if (res.Seed != nil) != c.seed || (res.Swarm != nil) != c.seed {
			t.Errorf("%s: seed %v, swarm report %v", c.method, res.Seed, res.Swarm)
		}
		if c.seed && (*res.Seed != 5 || res.Particles != 30 || res.Iterations != 10 || !near(res.PairMakespan, 84)) {
			t.Errorf("%s: seed %d, %d particles × %d iterations, pair start %v", c.method, *res.Seed, res.Particles, res.Iterations, res.PairMakespan)
		}
		if len(res.Notes) != len(c.notePrefixes) {
			t.Errorf("%s: notes %q, want %d", c.method, res.Notes, len(c.notePrefixes))
		}
		for i, pre := range c.notePrefixes {
			if i < len(res.Notes) && !strings.HasPrefix(res.Notes[i], pre) {
				t.Errorf("%s: note %d %q, want it to start %q", c.method, i, res.Notes[i], pre)
			}
		}
		if len(res.Placement) != len(res.Schedule.Phases) {
			t.Fatalf("%s: %d placements for %d phases", c.method, len(res.Placement), len(res.Schedule.Phases))
		}
		for i, ph := range res.Schedule.Phases {
			if err := p.CheckPlacement(ph, res.Placement[i]); err != nil {
				t.Errorf("%s: phase %d: %v", c.method, i, err)
			}
		}
	}
}

// TestSolveAutoSwarm: with ExactJobs 2 the three jobs are too many for auto's
// exact solver, so it runs column generation seeded with the swarm and
// records the bound column generation proves, at least LowerBound's.
func TestSolveAutoSwarm(t *testing.T) {
	p := threeJobs(t)
	res, err := Solve(p, MethodAuto, &Settings{Swarm: &pso.Settings{Particles: 30, Iterations: 10, Seed: 5}, ExactJobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != MethodColumns || res.Algorithm != "columns" || res.Optimum != nil || res.LowerBound == nil || res.Swarm == nil {
		t.Fatalf("method %q, optimum %v, lower bound %v", res.Method, res.Optimum, res.LowerBound)
	}
	sw, err := Swarm(p, &pso.Settings{Particles: 30, Iterations: 10, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ms := p.Makespan(res.Schedule)
	if lb := LowerBound(p); *res.LowerBound < lb*(1-1e-12) || *res.LowerBound > ms+1e-9 || ms > sw.Makespan+1e-9 {
		t.Errorf("lower bound %v, LowerBound %v, makespan %v, swarm %v", *res.LowerBound, lb, ms, sw.Makespan)
	}
	if want := "auto chose columns: 3 jobs (exact up to 2)"; res.Notes[0] != want {
		t.Errorf("note %q, want %q", res.Notes[0], want)
	}
}

// TestSolveOrder: exact's phases are ordered by Smith's rule unless KeepOrder.
// The optimum here is the pair plan, {A, B} for 72 s and {C} for 12 s: per
// job 36 s and 12 s, so Smith's rule runs C first, for a mean completion of
// (12 + 84 + 84)/3 = 60 s against the solver's order's (72 + 72 + 84)/3 = 76 s.
func TestSolveOrder(t *testing.T) {
	p := threeJobs(t)
	ordered, err := Solve(p, MethodExact, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := Solve(p, MethodExact, &Settings{KeepOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := p.Makespan(ordered.Schedule), p.Makespan(kept.Schedule); !near(a, b) {
		t.Errorf("makespans %v and %v differ", a, b)
	}
	if a, b := p.MeanCompletion(ordered.Schedule), p.MeanCompletion(kept.Schedule); !near(a, 60) || !near(b, 76) {
		t.Errorf("mean completion %v in Smith's order, %v in the solver's; want 60 and 76", a, b)
	}
	for _, n := range kept.Notes {
		if strings.HasPrefix(n, "phases ordered") {
			t.Errorf("KeepOrder, yet a note says %q", n)
		}
	}
}

func TestSolveErrors(t *testing.T) {
	p := threeJobs(t)
	if _, err := Solve(p, "simplex", nil); !errors.Is(err, ErrUnknownMethod) {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := Solve(p, MethodAuto, &Settings{ExactJobs: MaxExactJobs + 1}); err == nil || !strings.Contains(err.Error(), "ExactJobs") {
		t.Errorf("ExactJobs past the limit: %v", err)
	}
	big, err := model.NewProblem(RandomWorkload(1, MaxExactJobs+1), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(big, MethodExact, nil); !errors.Is(err, ErrTooManyJobs) {
		t.Errorf("exact past its limit: %v", err)
	}
}

// TestSolveConcurrent runs the same swarm solve fresh, again and concurrently:
// the results agree, so Solve keeps no state between calls.
func TestSolveConcurrent(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(2, 7), model.Cluster{Hosts: 2}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	set := &Settings{Swarm: &pso.Settings{Particles: 40, Iterations: 15, Seed: 3}}
	first, err := Solve(p, MethodSwarm, set)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]float64, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Solve(p, MethodSwarm, set)
			if err != nil {
				got[i] = math.NaN()
				return
			}
			got[i] = p.Makespan(res.Schedule)
		}()
	}
	wg.Wait()
	for i, m := range got {
		if m != p.Makespan(first.Schedule) {
			t.Errorf("run %d: makespan %v, the first run %v", i, m, p.Makespan(first.Schedule))
		}
	}
}

// TestFormatProgress: the progress lines' wording and arithmetic
// (1100 / 1000 − 1 = 10 %).
func TestFormatProgress(t *testing.T) {
	if got, want := FormatProgress(1100, 1000), "columns: plan 1100.0 s (18m20s), bound 1000.0 s (16m40s), gap 10.00 %"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := FormatSwarmProgress(pso.Progress{Iteration: 3, Iterations: 200, Best: 60}), "pso: iteration 3/200, best makespan 60.0 s (1m00s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A search the time limit ends says so in the plan's notes (its plan
// depends on timing); one without a limit does not.
func TestSolveNotesTheTimeLimit(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(3, 40), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	limited := func(r *Result) bool {
		return slices.ContainsFunc(r.Solution.Notes, func(n string) bool { return strings.Contains(n, "the time limit (") })
	}
	for _, m := range []Method{MethodSwarm, MethodAuto} {
		r, err := Solve(p, m, &Settings{TimeLimit: time.Millisecond, Swarm: &pso.Settings{Particles: 200, Iterations: 200, Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if !limited(r) {
			t.Errorf("%s stopped after 1 ms: no note of the time limit in %q", m, r.Solution.Notes)
		}
	}
	r, err := Solve(p, MethodSwarm, &Settings{Swarm: &pso.Settings{Particles: 10, Iterations: 5, Seed: 1}})
	if err != nil || limited(r) {
		t.Errorf("no limit: %v, notes %q", err, r.Solution.Notes)
	}
}

// A column generation the limit stopped far from its plan says that the
// gap is the bound's as much as the plan's; one with no limit, which ends
// on its own (here within the tolerance of its LP), does not.
func TestSolveNotesAWeakBound(t *testing.T) {
	weak := func(r *Result) bool {
		return slices.ContainsFunc(r.Solution.Notes, func(n string) bool { return strings.Contains(n, "the LP had not converged") })
	}
	c := model.PaperCluster()
	c.Hosts = 50
	p, err := model.NewProblem(RandomWorkload(1, 60), c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Solve(p, MethodColumns, &Settings{TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if gap := p.Makespan(r.Schedule) / *r.LowerBound; gap <= 1+weakGap || !weak(r) {
		t.Errorf("stopped at once with plan/bound %.3f: want a gap past %v and a note of the weak bound in %q", gap, weakGap, r.Solution.Notes)
	}
	p, err = model.NewProblem(RandomWorkload(1, 20), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	if r, err = Solve(p, MethodColumns, nil); err != nil || weak(r) {
		t.Errorf("no limit: %v, notes %q", err, r.Solution.Notes)
	}
}

// TestDefaultTimeLimit: 10 s up to 200 jobs, 60 s from 1,000, a straight
// line between.
func TestDefaultTimeLimit(t *testing.T) {
	for _, c := range []struct {
		jobs int
		want time.Duration
	}{{1, 10 * time.Second}, {200, 10 * time.Second}, {600, 35 * time.Second}, {1000, 60 * time.Second}, {5000, 60 * time.Second}} {
		if got := DefaultTimeLimit(c.jobs); got != c.want {
			t.Errorf("DefaultTimeLimit(%d) = %v, want %v", c.jobs, got, c.want)
		}
	}
}

// TestToleranceHalvesAfterARunMeetsIt: 40 jobs on 9 hosts, searched to the
// end (2 s): a run that ended within the tolerance leaves the next half of
// it, so runs go on ending that way, at least once below DefaultTolerance,
// until one converges (the dive's residual pricing adds columns to the LP
// the next run starts from; a converged LP ends the search at whatever
// tolerance its run priced to, the bound then meeting the LP) or one at
// minTolerance ends within it; the last run's bound lies within its
// tolerance of its LP, and the note says which.
func TestToleranceHalvesAfterARunMeetsIt(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(1, 40), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	pr, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	set := &Settings{}
	set.shared = &sharedTables{p: p}
	set.clock = newWorkClock(set, set.now())
	cp, err := runCheckpoints(p, []model.Schedule{pr.Schedule}, set)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("runs %d, last ended %q at tolerance %v, LP %v, bound %v", cp.runs, cp.last.Ended, cp.tolerance, cp.last.LPValue, cp.bound)
	if cp.tolerance >= DefaultTolerance || (cp.tolerance != minTolerance && cp.last.Ended != EndedConverged) {
		t.Fatalf("the last of %d runs ended %q, priced to %v: want %v, or converged below %v", cp.runs, cp.last.Ended, cp.tolerance, minTolerance, DefaultTolerance)
	}
	last := cp.last
	if (last.Ended != EndedTolerance && last.Ended != EndedConverged) || cp.bound < last.LPValue*(1-cp.tolerance) {
		t.Fatalf("the last run ended %q with bound %v and LP %v: want it within %v", last.Ended, cp.bound, last.LPValue, cp.tolerance)
	}
	// Converged proves itself: Farley's bound, which holds over every
	// column (idle ones, and those never priced), meets the LP. A run that
	// called its LP optimal while a column still priced out would not.
	if last.Ended == EndedConverged && cp.bound < last.LPValue*(1-1e-6) {
		t.Fatalf("the last run converged at LP %v, but the bound is %v", last.LPValue, cp.bound)
	}
	want := "the bound came within 0.05 % of the LP"
	if last.Ended == EndedConverged {
		want = "converged; LP value " + model.FormatSeconds(last.LPValue)
	}
	if n := cp.note(set, false); !strings.Contains(n, want) {
		t.Errorf("note %q does not say %q", n, want)
	}
}

// TestAutoSwarmWhereItHelps: auto seeds column generation with its swarm
// up to 100 jobs or below 40 primary VMs, and where the settings ask for a
// swarm (iterations or initial points); elsewhere it runs none, says so,
// and its memory estimate holds no swarm. The plan is verified either way.
func TestAutoSwarmWhereItHelps(t *testing.T) {
	for _, c := range []struct {
		jobs, hosts int
		swarm       *pso.Settings
		want        bool
	}{
		{100, 50, nil, true},                            // 10 iterations
		{100, 50, &pso.Settings{Particles: 150}, true},  // 100 iterations of 150
		{101, 50, nil, false},                           // 9 iterations on 100 primary VMs
		{101, 19, nil, true},                            // 38 primary VMs
		{101, 20, nil, false},                           // 40
		{101, 20, &pso.Settings{Particles: 150}, false}, // particles alone do not ask
		{101, 20, &pso.Settings{Iterations: 2}, true},   // asked for
		{101, 20, &pso.Settings{Initial: [][]float64{make([]float64, 2*101)}}, true},
	} {
		p := randomOnHosts(t, 7, c.jobs, c.hosts)
		res, err := Solve(p, MethodAuto, &Settings{Swarm: c.swarm, WorkLimit: 300})
		if err != nil {
			t.Fatalf("%d jobs on %d hosts: %v", c.jobs, c.hosts, err)
		}
		if err := p.Check(res.Schedule); err != nil {
			t.Fatalf("%d jobs on %d hosts: %v", c.jobs, c.hosts, err)
		}
		none := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "no particle swarm: past 100 jobs on 40 primary VMs") })
		if got := res.Swarm != nil; got != c.want || (res.Seed != nil) != c.want || none == c.want {
			t.Errorf("%d jobs on %d hosts, swarm settings %+v: swarm ran %v (seed %v, note of none %v), want %v",
				c.jobs, c.hosts, c.swarm, got, res.Seed, none, c.want)
		}
		estimated := slices.ContainsFunc(EstimateMemory(p, MethodAuto, c.swarm), func(m MemoryPart) bool { return strings.HasPrefix(m.What, "the swarm's") })
		if estimated != c.want {
			t.Errorf("%d jobs on %d hosts, swarm settings %+v: memory estimate counts a swarm: %v, want %v", c.jobs, c.hosts, c.swarm, estimated, c.want)
		}
		// What sweeps count in a point's time: the swarm Solve ran.
		want := 0
		if res.Swarm != nil {
			want = res.Swarm.Settings.Particles * (res.Swarm.Settings.Iterations + 1)
		}
		if got := AutoSwarmEvaluations(c.jobs, p.Cluster, c.swarm); got != want {
			t.Errorf("%d jobs on %d hosts, swarm settings %+v: AutoSwarmEvaluations %d, want %d", c.jobs, c.hosts, c.swarm, got, want)
		}
	}
}

// TestNoteSaysWhoseGap: the column generation note warns that the gap
// measures the bound as much as the plan where the last run was cut short
// (stopped, or at the round cap) and the gap is over 5 %, but not where
// the run ended with its bound within the tolerance of the LP (then at
// most that much of the gap is the bound's) or by itself with relaxed
// pricing (a longer limit would not tighten it).
func TestNoteSaysWhoseGap(t *testing.T) {
	p := randomOnHosts(t, 1, 20, 9)
	set := &Settings{shared: &sharedTables{p: p}}
	lb := set.shared.bound()
	for _, c := range []struct {
		ended string
		gap   float64
		warns bool
	}{
		{EndedStopped, 1.2, true},
		{EndedRounds, 1.2, true},
		{EndedStopped, 1.04, false},
		{EndedTolerance, 1.2, false},
		{EndedRelaxed, 1.2, false},
	} {
		cp := &checkpoints{bound: 1.01 * lb, makespan: c.gap * 1.01 * lb, runs: 2, started: 3, startMakespan: 2 * lb,
			tolerance: 0.005, last: &ColumnsResult{Ended: c.ended, Rounds: 5, Columns: 40}}
		note := cp.note(set, false)
		if got := strings.Contains(note, "the gap measures the bound as much as the plan"); got != c.warns {
			t.Errorf("run ended %q, plan %.2f × bound: warns %v, want %v: %s", c.ended, c.gap, got, c.warns, note)
		}
		if c.ended == EndedTolerance && !strings.Contains(note, "the bound came within 0.5 % of the LP") {
			t.Errorf("run ended at the tolerance: %s", note)
		}
	}
}
