package pso

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

func sphere(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += (v - 1) * (v - 1)
	}
	return s
}

func box(dim int, lo, hi float64) (l, u []float64) {
	l, u = make([]float64, dim), make([]float64, dim)
	for d := range dim {
		l[d], u[d] = lo, hi
	}
	return l, u
}

// TestSphere: the minimum of Σ (x_d − 1)² over [−5, 5]^4 is 0 at (1, 1, 1, 1);
// 200 particles × 200 iterations get within 1e-6 of it.
func TestSphere(t *testing.T) {
	lo, hi := box(4, -5, 5)
	res, err := Minimize(Problem{Func: sphere, Lower: lo, Upper: hi}, &Settings{Particles: 200, Iterations: 200, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != IterationLimit || res.F > 1e-6 {
		t.Fatalf("status %v, f = %v at %v; want f ≤ 1e-6", res.Status, res.F, res.X)
	}
	// 200 initial evaluations (all feasible at once) + 200 × 200.
	if res.Evaluations != 200+200*200 || res.Iterations != 200 {
		t.Errorf("%d evaluations in %d iterations, want 40200 in 200", res.Evaluations, res.Iterations)
	}
}

// TestConstrainedStaysFeasible is Hu and Eberhart's setting: minimise
// x + y subject to x² + y² ≥ 1 on [0, 2]²; the optimum is on the circle at
// (1, 0) or (0, 1), value 1. Every point the run reports as best must be
// feasible, and the run must get close to 1.
func TestConstrainedStaysFeasible(t *testing.T) {
	feasible := func(x []float64) bool { return x[0]*x[0]+x[1]*x[1] >= 1 }
	var mu sync.Mutex
	var bad int
	lo, hi := box(2, 0, 2)
	p := Problem{
		Func:     func(x []float64) float64 { return x[0] + x[1] },
		Feasible: feasible,
		Lower:    lo, Upper: hi,
	}
	res, err := Minimize(p, &Settings{Particles: 100, Iterations: 300, Seed: 1, Recorder: func(pr Progress) {
		mu.Lock()
		defer mu.Unlock()
		if pr.Best < 1-1e-12 { // a best below 1 can only come from an infeasible point
			bad++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !feasible(res.X) || bad > 0 {
		t.Fatalf("best %v infeasible (or %d recorded infeasible bests)", res.X, bad)
	}
	if res.F > 1.001 {
		t.Errorf("f = %v, want within 0.1 %% of 1", res.F)
	}
}

// TestNoFeasiblePoint: a problem with no feasible point ends with the status
// and error saying so, after MaxInitTries rounds of random draws.
func TestNoFeasiblePoint(t *testing.T) {
	lo, hi := box(1, 0, 1)
	res, err := Minimize(Problem{Func: sphere, Feasible: func([]float64) bool { return false }, Lower: lo, Upper: hi},
		&Settings{Particles: 5, MaxInitTries: 3})
	if !errors.Is(err, ErrNoFeasiblePoint) || res.Status != NoFeasiblePoint || res.Status.String() != "NoFeasiblePoint" {
		t.Fatalf("got %v, %v", res.Status, err)
	}
	if res.Evaluations != 15 { // 5 particles × 3 tries
		t.Errorf("%d evaluations, want 15", res.Evaluations)
	}
}

// TestInitialIsKept: a swarm started at the optimum never reports worse.
func TestInitialIsKept(t *testing.T) {
	lo, hi := box(3, -5, 5)
	res, err := Minimize(Problem{Func: sphere, Lower: lo, Upper: hi},
		&Settings{Particles: 10, Iterations: 5, Initial: [][]float64{{1, 1, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.F != 0 {
		t.Fatalf("f = %v, want 0 (the initial point)", res.F)
	}
}

// rugged is a multimodal function (Rastrigin) whose search path is long
// enough that any dependence on scheduling would show.
func rugged(x []float64) float64 {
	s := 10 * float64(len(x))
	for _, v := range x {
		s += v*v - 10*math.Cos(2*math.Pi*v)
	}
	return s
}

// TestDeterministic: the same seed gives the same result with 1 and 4
// workers, at GOMAXPROCS 1 and 2, run fresh, again and concurrently.
func TestDeterministic(t *testing.T) {
	lo, hi := box(6, -5.12, 5.12)
	p := Problem{Func: rugged, Lower: lo, Upper: hi}
	run := func(workers int) *Result {
		res, err := Minimize(p, &Settings{Particles: 60, Iterations: 80, Seed: 42, Workers: workers})
		if err != nil {
			t.Error(err)
		}
		return res
	}
	want := run(1)
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		var wg sync.WaitGroup
		got := make([]*Result, 4)
		for i := range got {
			wg.Go(func() { got[i] = run(1 + i) })
		}
		wg.Wait()
		runtime.GOMAXPROCS(old)
		for i, g := range got {
			g.Settings.Workers = want.Settings.Workers
			if !reflect.DeepEqual(want, g) {
				t.Errorf("GOMAXPROCS %d, %d workers: got %+v, want %+v", procs, 1+i, g, want)
			}
		}
	}
	other, _ := Minimize(p, &Settings{Particles: 60, Iterations: 80, Seed: 43})
	if other.F == want.F && reflect.DeepEqual(other.X, want.X) {
		t.Errorf("seeds 42 and 43 give the same result: the seed is not used")
	}
}

// TestGlobalVersusRing: both topologies solve the sphere; the ring is the
// default and Global switches to Hu and Eberhart's global best.
func TestGlobalVersusRing(t *testing.T) {
	lo, hi := box(3, -5, 5)
	for _, global := range []bool{false, true} {
		res, err := Minimize(Problem{Func: sphere, Lower: lo, Upper: hi}, &Settings{Particles: 50, Iterations: 200, Global: global})
		if err != nil {
			t.Fatal(err)
		}
		if res.F > 1e-6 || res.Settings.Neighbors != 3 || res.Settings.Global != global {
			t.Errorf("global %v: f = %v, settings %+v", global, res.F, res.Settings)
		}
	}
}

func TestBadInput(t *testing.T) {
	lo, hi := box(2, 0, 1)
	ok := Problem{Func: sphere, Lower: lo, Upper: hi}
	for name, tc := range map[string]struct {
		p Problem
		s Settings
	}{
		"nil func":        {Problem{Lower: lo, Upper: hi}, Settings{}},
		"no dimensions":   {Problem{Func: sphere}, Settings{}},
		"inverted bounds": {Problem{Func: sphere, Lower: hi, Upper: lo}, Settings{}},
		"particles":       {ok, Settings{Particles: -1}},
		"iterations":      {ok, Settings{Iterations: -1}},
		"velocity":        {ok, Settings{VelocityLimit: -0.5}},
		"neighbors":       {ok, Settings{Neighbors: -2}},
		"initial outside": {ok, Settings{Initial: [][]float64{{2, 0}}}},
		"initial length":  {ok, Settings{Initial: [][]float64{{0}}}},
		"too many starts": {ok, Settings{Particles: 1, Initial: [][]float64{{0, 0}, {1, 1}}}},
	} {
		if _, err := Minimize(tc.p, &tc.s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// BenchmarkMinimize measures a Rastrigin run over a grid of particles.
func BenchmarkMinimize(b *testing.B) {
	lo, hi := box(16, -5.12, 5.12)
	for _, n := range []int{100, 1500} {
		b.Run("particles="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				res, err := Minimize(Problem{Func: rugged, Lower: lo, Upper: hi}, &Settings{Particles: n, Iterations: 50})
				if err != nil || res.Status != IterationLimit {
					b.Fatal(err)
				}
			}
		})
	}
}

// ExampleMinimize minimises (x − 1)² + (y − 1)² over [−5, 5]² with a small
// swarm; the zero Settings would use the paper's 1500 × 200.
func ExampleMinimize() {
	p := Problem{
		Func:  func(x []float64) float64 { return (x[0]-1)*(x[0]-1) + (x[1]-1)*(x[1]-1) },
		Lower: []float64{-5, -5},
		Upper: []float64{5, 5},
	}
	res, err := Minimize(p, &Settings{Particles: 40, Iterations: 100, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: f = %.6f at (%.3f, %.3f) after %d evaluations\n", res.Status, res.F, res.X[0], res.X[1], res.Evaluations)
	// Output:
	// IterationLimit: f = 0.000000 at (1.000, 1.000) after 4040 evaluations
}

// TestStop: Stop is asked before every evaluation and after every
// iteration. On one worker, with 10 particles: calls 1–10 precede the
// initial evaluations, 11–20 iteration 1's, 21 follows it, 22–24 precede
// three of iteration 2's evaluations and call 25 says yes: iteration 2 is
// dropped whole, and the run returns what a run of one iteration returns.
func TestStop(t *testing.T) {
	lo, hi := box(2, -5, 5)
	calls := 0
	res, err := Minimize(Problem{Func: sphere, Lower: lo, Upper: hi}, &Settings{Particles: 10, Iterations: 100, Seed: 1, Workers: 1,
		Stop: func() bool { calls++; return calls >= 25 }})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := Minimize(Problem{Func: sphere, Lower: lo, Upper: hi}, &Settings{Particles: 10, Iterations: 1, Seed: 1, Workers: 1})
	if res.Iterations != 1 || res.Evaluations != 20 || !res.Stopped || res.Settings.Stop != nil || res.F != sphere(res.X) || calls != 25 ||
		res.F != one.F || !slices.Equal(res.X, one.X) {
		t.Errorf("%d iterations, %d evaluations (stopped %v, %d calls), f %v at %v; one iteration: f %v at %v", res.Iterations, res.Evaluations, res.Stopped, calls, res.F, res.X, one.F, one.X)
	}
	// A Stop that says yes at once still evaluates the Initial points, and
	// returns the best of them.
	start := [][]float64{{0.5, 0.5}, {3, 3}}
	var asked atomic.Int64
	res, err = Minimize(Problem{Func: sphere, Lower: lo, Upper: hi}, &Settings{Particles: 50, Iterations: 100, Seed: 1, Initial: start,
		Stop: func() bool { asked.Add(1); return true }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Evaluations != 2 || !res.Stopped || res.X[0] != 0.5 || res.X[1] != 0.5 || asked.Load() == 0 {
		t.Errorf("stopped at once: %d evaluations, stopped %v, best %v, Stop asked %d times", res.Evaluations, res.Stopped, res.X, asked.Load())
	}
	// Without a Stop the run is not marked stopped.
	res, _ = Minimize(Problem{Func: sphere, Lower: lo, Upper: hi}, &Settings{Particles: 5, Iterations: 3, Seed: 1})
	if res.Stopped || res.Iterations != 3 {
		t.Errorf("unstopped run: stopped %v after %d iterations", res.Stopped, res.Iterations)
	}
}

// TestStopAnyWorkers: a Stop that says yes from its nth call on (counted
// atomically, asked concurrently) gives the same point, value, iterations
// and evaluations on 1 worker and on 4, for every n: the cut iteration is
// dropped whole, whichever particles its goroutines had reached.
func TestStopAnyWorkers(t *testing.T) {
	lo, hi := box(3, -5, 5)
	for n := int64(31); n <= 600; n += 7 {
		var got []*Result
		for _, workers := range []int{1, 4} {
			var calls atomic.Int64
			res, err := Minimize(Problem{Func: sphere, Lower: lo, Upper: hi}, &Settings{Particles: 30, Iterations: 50, Seed: 3, Workers: workers,
				Stop: func() bool { return calls.Add(1) >= n }})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, res)
		}
		a, b := got[0], got[1]
		if a.F != b.F || !slices.Equal(a.X, b.X) || a.Iterations != b.Iterations || a.Evaluations != b.Evaluations || a.Improved != b.Improved {
			t.Errorf("stop at call %d: 1 worker f %v at %v (%d iterations, %d evaluations), 4 workers f %v at %v (%d, %d)", n, a.F, a.X, a.Iterations, a.Evaluations, b.F, b.X, b.Iterations, b.Evaluations)
		}
	}
}
