package optimize

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// jumpClock is a clock for Settings.Clock that stands still for its first
// after reads and then jumps by jump: the time limit passes at a known read,
// whatever the machine's speed. It counts its reads (the solvers ask it
// concurrently).
type jumpClock struct {
	t0    time.Time
	after int64
	jump  time.Duration
	reads atomic.Int64
}

func (c *jumpClock) now() time.Time {
	if c.reads.Add(1) <= c.after {
		return c.t0
	}
	return c.t0.Add(c.jump)
}

func limitProblem(t *testing.T, m, hosts int) *model.Problem {
	t.Helper()
	cl := model.PaperCluster()
	cl.Hosts = hosts
	p, err := model.NewProblem(RandomWorkload(1, m), cl)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTimeLimitEndsEverySearch: with a clock past the limit from the
// second read on, pso, columns and auto each end at once with a valid,
// placed plan and the note that the limit ended the search. The work
// counters show how soon: the swarm evaluates only its start (the pair
// plan), column generation prices one round.
func TestTimeLimitEndsEverySearch(t *testing.T) {
	p := limitProblem(t, 200, 9)
	for _, method := range []Method{MethodSwarm, MethodColumns, MethodAuto} {
		clock := &jumpClock{t0: time.Unix(1e9, 0), after: 1, jump: time.Hour}
		res, err := Solve(p, method, &Settings{TimeLimit: 10 * time.Second, Clock: clock.now, Swarm: &pso.Settings{Seed: 1}})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if err := p.Check(res.Schedule); err != nil || len(res.Placement) != len(res.Schedule.Phases) {
			t.Fatalf("%s: schedule %v, %d placements for %d phases", method, err, len(res.Placement), len(res.Schedule.Phases))
		}
		notes := strings.Join(res.Notes, "\n")
		if !strings.Contains(notes, timeLimitNote(10*time.Second)) || res.Interrupted {
			t.Errorf("%s: no time-limit note (interrupted %v):\n%s", method, res.Interrupted, notes)
		}
		if res.Swarm != nil && (res.Swarm.Evaluations != 1 || !res.Swarm.Stopped) {
			t.Errorf("%s: the swarm evaluated %d points (stopped %v) after the limit passed; want only its start", method, res.Swarm.Evaluations, res.Swarm.Stopped)
		}
		// auto's swarm comes first and the limit cuts it, so column
		// generation does not begin; -a columns begins at once.
		want := map[Method]string{MethodColumns: "the limit ended its first run", MethodAuto: "the limit ended the search before it began"}[method]
		if want != "" && !strings.Contains(notes, want) {
			t.Errorf("%s: column generation went on past the limit, or its note does not say so (want %q):\n%s", method, want, notes)
		}
		if strings.Contains(notes, "--work-limit well above") {
			t.Errorf("%s: the time limit ended the search, and the note advises a work limit:\n%s", method, notes)
		}
		if clock.reads.Load() < 2 {
			t.Errorf("%s: the clock was read %d times: the limit was not asked", method, clock.reads.Load())
		}
	}
}

// TestWorkLimitInsideSwarm: auto's note, where a work limit ends the search
// inside its swarm, says about how many units the swarm takes; measured,
// not recomputed: 2 % below that number column generation does not begin,
// 2 % above it does.
func TestWorkLimitInsideSwarm(t *testing.T) {
	p := limitProblem(t, 200, 9)
	sw := &pso.Settings{Particles: 300, Seed: 1}
	units := AutoSwarmEvaluations(200, p.Cluster, sw)
	for _, c := range []struct {
		limit  int64
		inside bool
	}{{int64(units) * 98 / 100, true}, {int64(units) * 102 / 100, false}} {
		res, err := Solve(p, MethodAuto, &Settings{WorkLimit: c.limit, Swarm: sw})
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(res.Notes, "\n")
		said := strings.Contains(notes, fmt.Sprintf("auto's swarm alone takes about %d work units, so only a --work-limit well above that", units))
		if began := !strings.Contains(notes, "before it began"); began == c.inside || said != c.inside {
			t.Errorf("limit %d, swarm of about %d units: column generation began %v, note says so %v:\n%s", c.limit, units, began, said, notes)
		}
	}
}

// TestTimeLimitLaterJump: the swarm asks the clock before every evaluation,
// so a limit that passes in the middle of an iteration ends it there; the
// cut iteration is dropped whole, and the plan is the one the same swarm
// gives with as many iterations as were whole, and no limit.
func TestTimeLimitLaterJump(t *testing.T) {
	p := limitProblem(t, 60, 9)
	for _, after := range []int64{400, 5000, 9000} {
		clock := &jumpClock{t0: time.Unix(1e9, 0), after: after, jump: time.Hour}
		res, err := Solve(p, MethodSwarm, &Settings{TimeLimit: time.Minute, Clock: clock.now, Swarm: &pso.Settings{Seed: 1, Particles: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Swarm.Stopped || (res.Swarm.Evaluations != 1 && res.Swarm.Evaluations%1000 != 0) || clock.reads.Load() > after+2*1000+10 {
			t.Errorf("jump after %d reads: %d evaluations (not whole iterations), %d iterations, stopped %v, %d reads", after, res.Swarm.Evaluations, res.Swarm.Iterations, res.Swarm.Stopped, clock.reads.Load())
			continue
		}
		if res.Swarm.Iterations == 0 {
			continue
		}
		whole, err := Solve(p, MethodSwarm, &Settings{Swarm: &pso.Settings{Seed: 1, Particles: 1000, Iterations: res.Swarm.Iterations}})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := p.Makespan(res.Schedule), p.Makespan(whole.Schedule); a != b || !reflect.DeepEqual(res.Schedule, whole.Schedule) {
			t.Errorf("jump after %d reads: %d whole iterations gave %v, the same without a limit %v", after, res.Swarm.Iterations, a, b)
		}
	}
}

// TestInterruptEndsSearch: a closed Settings.Interrupt ends pso, columns and
// auto with the best plan so far, marked interrupted (and not as cut by the
// time limit, which there is none of); pair, which does not search, is not
// marked.
func TestInterruptEndsSearch(t *testing.T) {
	p := limitProblem(t, 120, 9)
	stop := make(chan struct{})
	close(stop)
	for _, method := range []Method{MethodSwarm, MethodColumns, MethodAuto, MethodPair} {
		res, err := Solve(p, method, &Settings{Interrupt: stop})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if err := p.Check(res.Schedule); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		notes := strings.Join(res.Notes, "\n")
		searches := method != MethodPair
		if res.Interrupted != searches || strings.Contains(notes, interruptedNote) != searches || strings.Contains(notes, "the time limit") {
			t.Errorf("%s: interrupted %v; notes:\n%s", method, res.Interrupted, notes)
		}
		if searches && method != MethodSwarm && res.LowerBound == nil {
			t.Errorf("%s: interrupted without its bound", method)
		}
	}
}

// TestMemoryLimit: the estimate is refused before anything is allocated,
// with a *MemoryError that names the limit; the swarm's 1,500 particles × 2M
// coordinates (positions, velocities, personal bests) dominate pso's
// estimate: 1,500 × 2,000 × 8 bytes × 3 = 72 MB at M = 1,000.
func TestMemoryLimit(t *testing.T) {
	p := limitProblem(t, 1000, 9)
	var swarm float64
	for _, part := range EstimateMemory(p, MethodSwarm, nil) {
		if strings.Contains(part.What, "swarm") {
			swarm = part.Bytes
		}
	}
	if want := 1500.0 * 2000 * 8 * 3; swarm < want || swarm > want*1.1 {
		t.Errorf("the swarm's estimate is %v bytes, want about %v", swarm, want)
	}
	_, err := Solve(p, MethodSwarm, &Settings{MaxMemory: 50e6, MemorySource: "a test's limit"})
	var me *MemoryError
	if !errors.As(err, &me) || !errors.Is(err, ErrOutOfMemory) || me.Limit != 50e6 {
		t.Fatalf("pso under 50 MB: %v", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "50 MB (a test's limit)") || !strings.Contains(msg, "swarm") {
		t.Errorf("error %q: want one line naming the limit, its source and the swarm", msg)
	}
	// The pair scheduler's costs fit the same limit.
	if _, err := Solve(p, MethodPair, &Settings{MaxMemory: 50e6}); err != nil {
		t.Errorf("pair under 50 MB: %v", err)
	}
	if err := (&Settings{MaxMemory: -1}).Validate(); err == nil {
		t.Error("a negative MaxMemory passed")
	}
}

// TestPairSparse: past denseJobs jobs the pair scheduler prices each job
// with its nearest partners only: still every job once, never slower than
// sequential, and it says so.
func TestPairSparse(t *testing.T) {
	p := limitProblem(t, denseJobs+101, 9)
	res, err := Solve(p, MethodPair, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(res.Schedule); err != nil {
		t.Fatal(err)
	}
	if ms, seq := p.Makespan(res.Schedule), p.SequentialMakespan(); ms > seq*(1+1e-12) || ms < LowerBound(p) {
		t.Errorf("pair %v against sequential %v and bound %v", ms, seq, LowerBound(p))
	}
	if !strings.Contains(strings.Join(res.Notes, " "), "nearest partners") {
		t.Errorf("notes %q do not say how the pairs were priced", res.Notes)
	}
	// The sparse table prices about 4·pairNeighbours pairs a job, not M²/2.
	if tab := pairCosts(p); tab.dense || len(tab.cands) > 2*pairNeighbours*len(p.Jobs) {
		t.Errorf("dense %v, %d pairs priced for %d jobs", tab.dense, len(tab.cands), len(p.Jobs))
	}
}

// TestReserveShortensSearch: Reserve comes off the time the searches share
// (at most half of TimeLimit): at 5.8 s of a 10 s limit a swarm with 4 s
// reserved has passed 95 % of its 6 s and stops at its next evaluation, one
// with none has not; a reserve of an hour counts as 5 s.
func TestReserveShortensSearch(t *testing.T) {
	p := limitProblem(t, 40, 9)
	for _, c := range []struct {
		reserve time.Duration
		stopped bool
	}{{0, false}, {4 * time.Second, true}, {time.Hour, true}} {
		clock := &jumpClock{t0: time.Unix(1e9, 0), after: 1, jump: 5800 * time.Millisecond}
		res, err := Solve(p, MethodSwarm, &Settings{TimeLimit: 10 * time.Second, Reserve: c.reserve, Clock: clock.now,
			Swarm: &pso.Settings{Particles: 20, Iterations: 5, Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Swarm.Stopped != c.stopped || (c.stopped && res.Swarm.Evaluations != 1) {
			t.Errorf("reserve %v: stopped %v after %d evaluations, want stopped %v", c.reserve, res.Swarm.Stopped, res.Swarm.Evaluations, c.stopped)
		}
	}
	if got := PlanWriteReserve(limitProblem(t, 5000, 200)); got != 3*time.Second {
		t.Errorf("PlanWriteReserve at 5,000 jobs on 200 hosts: %v, want 2,500 phases × 600 VMs × 2 µs = 3 s", got)
	}
}
