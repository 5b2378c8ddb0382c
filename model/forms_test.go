package model

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

var formNodes = []float64{1, 2, 4, 6, 9, 12, 18}

// pointsOf evaluates m at formNodes, times (1 + noise·u), u uniform in [−1, 1].
func pointsOf(m Model, noise float64, rng *rand.Rand) (ns, ss []float64) {
	for _, n := range formNodes {
		ns = append(ns, n)
		u := 0.0
		if rng != nil {
			u = 2*rng.Float64() - 1
		}
		ss = append(ss, m.Seconds(int(n))*(1+noise*u))
	}
	return ns, ss
}

// Every form fitted to its own exact points predicts them to 1e-9.
func TestFormsRecoverExactPoints(t *testing.T) {
	for _, m := range []Model{
		PowerLaw{A: 1500, B: -0.55},
		Amdahl{A: 40, C: 900},
		Amdahl{A: 0, C: 120}, // perfectly parallel: NNLS pins a at 0
		Amdahl{A: 75, C: 0},  // no speed-up at all
		Ernest{Theta: [4]float64{20, 600, 3, 0.5}},
		Ernest{Theta: [4]float64{0, 300, 0, 4}}, // rises past n = √(300/4) ≈ 8.7
		&Table{Nodes: []int{1, 2, 4, 6, 9, 12, 18}, Times: []float64{100, 60, 35, 30, 28, 29, 31}},
	} {
		ns, ss := pointsOf(m, 0, nil)
		got, err := FitForm(m.Kind(), ns, ss)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for _, n := range formNodes {
			if w, g := m.Seconds(int(n)), got.Seconds(int(n)); !scalar.EqualWithinAbsOrRel(g, w, 1e-9, 1e-9) {
				t.Errorf("%s fitted as %s: F(%v) = %v, want %v", m, got, n, g, w)
			}
		}
	}
}

// From points with up to ±2 % noise, Amdahl's a and c come back within
// ±10 % of c and ±3 s (a is a small part of the total, 40 of 940 s at n = 1,
// so its absolute error is the meaningful bound), and Ernest's curve within
// 3 % of the true one at every measured n (its four parameters trade off
// against each other; the curve is what it is fitted for). The 95 % intervals
// from the standard errors cover Amdahl's c in at least 85 % of 400 trials.
func TestFormsRecoverNoisyParameters(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	am := Amdahl{A: 40, C: 900}
	er := Ernest{Theta: [4]float64{20, 600, 3, 0.5}}
	covered := 0
	const trials = 400
	for range trials {
		ns, ss := pointsOf(am, 0.02, rng)
		f, err := FitAmdahl(ns, ss)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.C-am.C) > 0.1*am.C || math.Abs(f.A-am.A) > 3 {
			t.Errorf("amdahl from noisy points: %s, want about %s", f.Amdahl, am)
		}
		if math.Abs(f.C-am.C) <= 1.96*f.SEC {
			covered++
		}
		ns, ss = pointsOf(er, 0.02, rng)
		e, err := FitErnest(ns, ss)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range formNodes {
			if g, w := e.Seconds(int(n)), er.Seconds(int(n)); math.Abs(g-w) > 0.03*w {
				t.Errorf("ernest from noisy points: F(%v) = %v, want %v ± 3 %%", n, g, w)
			}
		}
	}
	if covered < trials*85/100 {
		t.Errorf("95 %% intervals covered the true c in %d of %d trials", covered, trials)
	}
}

// nnls against brute force: the best of every subset of columns solved
// without constraints, kept when non-negative, on random small problems.
func TestNNLSAgainstSubsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		m, n := 3+rng.IntN(5), 1+rng.IntN(3)
		a := mat.NewDense(m, n, nil)
		b := make([]float64, m)
		for i := range m {
			for j := range n {
				a.Set(i, j, rng.NormFloat64())
			}
			b[i] = rng.NormFloat64()
		}
		x, err := nnls(a, b)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		best := math.Inf(1)
		for mask := range 1 << n {
			passive := make([]bool, n)
			for j := range n {
				passive[j] = mask&(1<<j) != 0
			}
			s, err := solvePassive(a, mat.NewVecDense(m, b), passive)
			if err != nil || slicesAnyNegative(s) {
				continue
			}
			best = min(best, residual(a, s, b))
		}
		for _, v := range x {
			if v < 0 {
				t.Fatalf("trial %d: negative component %v", trial, v)
			}
		}
		if got := residual(a, x, b); got > best+1e-9 {
			t.Errorf("trial %d: nnls residual %v, brute force %v", trial, got, best)
		}
	}
}

func slicesAnyNegative(s []float64) bool {
	for _, v := range s {
		if v < 0 {
			return true
		}
	}
	return false
}

func residual(a *mat.Dense, x, b []float64) float64 {
	var r mat.VecDense
	r.MulVec(a, mat.NewVecDense(len(x), x))
	r.SubVec(&r, mat.NewVecDense(len(b), b))
	return mat.Norm(&r, 2)
}

// The table passes through its points, stays between neighbours (monotone
// data gives a monotone curve), and extrapolates below on the end secant:
// 100 s on 2 nodes, 50 on 4 is b = −1, so 1 node → 200 s. Above, a table of
// two points does the same (8 nodes → 25 s); one of three or more follows
// Amdahl's law through its last three points: 60 s on 2, 35 on 4 and 22.5
// on 8 are a + c/n with c/8 = 35 − 22.5, so c = 100, a = 10, and 16 nodes
// → 10 + 100/16 = 16.25 s (the power law through 4 and 8, b = log2(22.5/35),
// would say 14.5 s).
func TestTableInterpolation(t *testing.T) {
	tb := &Table{Nodes: []int{2, 4, 10, 20}, Times: []float64{100, 50, 30, 28}}
	if got := tb.Seconds(1); !scalar.EqualWithinAbsOrRel(got, 200, 1e-12, 1e-12) {
		t.Errorf("F(1) = %v, want 200", got)
	}
	if got := (&Table{Nodes: []int{2, 4}, Times: []float64{100, 50}}).Seconds(8); !scalar.EqualWithinAbsOrRel(got, 25, 1e-12, 1e-12) {
		t.Errorf("two points: F(8) = %v, want 25", got)
	}
	if got := (&Table{Nodes: []int{2, 4, 8}, Times: []float64{60, 35, 22.5}}).Seconds(16); !scalar.EqualWithinAbsOrRel(got, 16.25, 1e-9, 1e-9) {
		t.Errorf("three points: F(16) = %v, want 16.25", got)
	}
	if got := tb.Seconds(40); !(got > 0 && got < 28) {
		t.Errorf("F(40) = %v, want below F(20) = 28 and positive", got)
	}
	// Beyond the last point the tail runs on without a jump and keeps
	// falling where the times fall: 100, 50, 10 s at 2, 4, 8 nodes fit a
	// slope whose line through (8, 10) would cross 0, so a = 0 and c = 80:
	// 9 nodes → 80/9 s; 100, 30, 29 s stay at or below 29 s.
	for _, times := range [][]float64{{100, 50, 10}, {100, 30, 29}, {60, 35, 22.5}} {
		tt := &Table{Nodes: []int{2, 4, 8}, Times: times}
		prev := tt.Seconds(8)
		for n := 9; n <= 64; n++ {
			got := tt.Seconds(n)
			if got > prev || got <= 0 {
				t.Errorf("%v: F(%d) = %v after F(%d) = %v", times, n, got, n-1, prev)
			}
			prev = got
		}
		if got := tt.Seconds(9); math.Abs(got-tt.Seconds(8)) > 0.2*tt.Seconds(8) {
			t.Errorf("%v: F(9) = %v jumps from F(8) = %v", times, got, tt.Seconds(8))
		}
	}
	if got := (&Table{Nodes: []int{2, 4, 8}, Times: []float64{100, 50, 10}}).Seconds(9); !scalar.EqualWithinAbsOrRel(got, 80.0/9, 1e-12, 1e-12) {
		t.Errorf("F(9) = %v, want 80/9", got)
	}
	prev := math.Inf(1)
	for n := 2; n <= 20; n++ {
		got := tb.Seconds(n)
		if got > prev+1e-12 {
			t.Errorf("F(%d) = %v rose above F(%d) = %v on falling data", n, got, n-1, prev)
		}
		prev = got
	}
	one := &Table{Nodes: []int{4}, Times: []float64{60}}
	if one.Seconds(1) != 60 || one.Seconds(9) != 60 || one.Seconds(0) != 0 {
		t.Error("a one-point table is flat, and 0 at n = 0")
	}
}

// Leave-one-out choice: exact Amdahl points with a large serial part are
// predicted far better by Amdahl than by the power law; exact power-law
// points keep the power law; rising times pick a form that can rise.
func TestChooseModel(t *testing.T) {
	for _, tc := range []struct {
		m    Model
		want []Kind
	}{
		{PowerLaw{A: 1000, B: -0.7}, []Kind{KindPower}},
		{Amdahl{A: 300, C: 900}, []Kind{KindAmdahl}},
		{Ernest{Theta: [4]float64{10, 400, 0, 6}}, []Kind{KindErnest, KindTable}},
	} {
		ns, ss := pointsOf(tc.m, 0, nil)
		c, err := ChooseModel(ns, ss, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(c.Chosen), string(tc.want[0])) && (len(tc.want) < 2 || c.Chosen != tc.want[1]) {
			t.Errorf("%s: chose %s (%s)", tc.m, c.Chosen, c.Reason)
		}
	}
	// Three node counts: Ernest cannot be fitted, and forcing it says why.
	if _, err := ChooseModel([]float64{1, 2, 4}, []float64{10, 6, 4}, KindErnest); !errors.Is(err, ErrTooFewNodeCounts) || !strings.Contains(err.Error(), "ernest needs 4") {
		t.Errorf("forced ernest on 3 node counts: %v", err)
	}
	c, err := ChooseModel([]float64{1, 2}, []float64{10, 6}, "")
	if err != nil || c.Chosen != KindPower {
		t.Errorf("two node counts: %v %v, want the power law by default", c.Chosen, err)
	}
}

// Files: a model without kind is the power law; named forms round-trip.
func TestModelJSON(t *testing.T) {
	for in, want := range map[string]Model{
		`{"a": 1500, "b": -0.55}`:                               PowerLaw{1500, -0.55},
		`{"kind": "power", "a": 2, "b": -1}`:                    PowerLaw{2, -1},
		`{"kind": "amdahl", "a": 20, "c": 600}`:                 Amdahl{20, 600},
		`{"kind": "ernest", "theta": [20, 600, 3, 0.5]}`:        Ernest{[4]float64{20, 600, 3, 0.5}},
		`{"kind": "table", "nodes": [2, 4], "seconds": [9, 5]}`: &Table{Nodes: []int{2, 4}, Times: []float64{9, 5}},
	} {
		m, err := ParseModel([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		b, _ := json.Marshal(m)
		again, err := ParseModel(b)
		if err != nil {
			t.Fatalf("%s → %s: %v", in, b, err)
		}
		for n := 1; n <= 20; n++ {
			if m.Seconds(n) != want.Seconds(n) || again.Seconds(n) != want.Seconds(n) {
				t.Fatalf("%s: F(%d) = %v, again %v, want %v", in, n, m.Seconds(n), again.Seconds(n), want.Seconds(n))
			}
		}
	}
	if b, _ := json.Marshal(PowerLaw{3, -1}); string(b) != `{"a":3,"b":-1}` {
		t.Errorf("power law written as %s, want the old form", b)
	}
	for in, want := range map[string]string{
		`{"kind": "cubic"}`:                                     "unknown form",
		`{"kind": "amdahl", "a": 20}`:                           "model.c is missing",
		`{"kind": "ernest", "theta": [1, 2]}`:                   "4 numbers",
		`{"kind": "ernest", "theta": [1, -2, 0, 0]}`:            "theta[1]",
		`{"kind": "table", "nodes": [4, 2], "seconds": [1, 2]}`: "ascend",
		`{"kind": "table", "nodes": [2], "seconds": [1, 2]}`:    "model.nodes has 1",
		`{"kind": "amdahl", "a": 0, "c": 0}`:                    "F(1) = model.a + model.c must be between 0.001 and 1e+10 seconds, got 0",
		// Implausible values: one line naming the field and the value.
		`{"a": 1500, "b": -1e308}`:                                    "model.b must be between -4 and 4 (doubling the VMs changes the runtime at most 16-fold), got -1e+308",
		`{"a": 1e12, "b": -0.5}`:                                      "model.a must be between 0.001 and 1e+10 seconds, got 1e+12",
		`{"a": 1e-9, "b": -0.5}`:                                      "model.a must be between 0.001 and 1e+10 seconds, got 1e-09",
		`{"kind": "amdahl", "a": 20, "c": 1e300}`:                     "model.c must be between 0 and 1e+10 seconds, got 1e+300",
		`{"kind": "ernest", "theta": [0, 0, 1e300, 1e-300]}`:          "model.theta[2] must be between 0 and 1e+10 seconds, got 1e+300",
		`{"kind": "table", "nodes": [1], "seconds": [1e308]}`:         "model.seconds[0] must be between 0.001 and 1e+10 seconds, got 1e+308",
		`{"kind": "table", "nodes": [1, 2000000], "seconds": [9, 5]}`: "model.nodes[1] must be at most 1048576 VMs, got 2000000",
	} {
		if _, err := ParseModel([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", in, err, want)
		}
	}
}

// FuzzParseModel: the reader never panics; what it accepts is valid, gives a
// finite non-negative runtime for every n it can be asked about, and survives a
// round trip with the same runtimes.
func FuzzParseModel(f *testing.F) {
	for _, s := range []string{`{"a": 1500, "b": -0.55}`, `{"kind": "amdahl", "a": 20, "c": 600}`,
		`{"kind": "ernest", "theta": [20, 600, 3, 0.5]}`, `{"kind": "table", "nodes": [2, 4, 8], "seconds": [300, 160, 95]}`,
		`{"kind": "table", "nodes": [1], "seconds": [1e308]}`, `{"kind": "ernest", "theta": [0, 0, 1e300, 1e-300]}`, `null`, `{`,
		`{"a": 1500, "b": -1e308}`, `{"a": 1e12, "b": -0.5}`, `{"a": 1e10, "b": 4}`, `{"a": 0.001, "b": -4}`,
		`{"kind": "ernest", "theta": [1e10, 0, 1e10, 1e10]}`, `{"kind": "amdahl", "a": 1e-4, "c": 0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseModel(data)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid model: %v", err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseModel(b)
		if err != nil {
			t.Fatalf("round trip rejected: %v\n%s", err, b)
		}
		for n := 0; n <= 64; n++ {
			s := m.Seconds(n)
			if math.IsNaN(s) || s < 0 || s != again.Seconds(n) {
				t.Fatalf("%s: F(%d) = %v, after a round trip %v", m, n, s, again.Seconds(n))
			}
		}
		// Within the plausibility bounds, every form stays finite on the
		// largest cluster, and all but a table (whose F(1) may be
		// extrapolated) run F(1) between MinJobSeconds and MaxJobSeconds.
		if s := m.Seconds(MaxPrimaryVMs); math.IsInf(s, 0) || math.IsNaN(s) {
			t.Fatalf("%s: F(%d) = %v", m, MaxPrimaryVMs, s)
		}
		if f1 := m.Seconds(1); m.Kind() != KindTable && !(f1 >= MinJobSeconds && f1 <= MaxJobSeconds) {
			t.Fatalf("%s: F(1) = %v s, past the plausibility bounds", m, f1)
		}
	})
}
