package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Exact points a·n^b must give back a and b to 1e-9, whatever the sign of b.
func TestFitPowerLawRecoversExactPoints(t *testing.T) {
	for _, tc := range []struct{ a, b float64 }{
		{1500, -0.55}, // s-srt-like: 1500 s on one VM, diminishing returns
		{820, -1},     // perfectly divisible work: 820/n
		{40, 0.2},     // gets slower with more nodes
		{3.5, 0},      // flat
	} {
		nodes := []float64{2, 4, 6, 8, 2, 4, 6, 8}
		secs := make([]float64, len(nodes))
		for i, n := range nodes {
			secs[i] = tc.a * math.Pow(n, tc.b)
		}
		f, err := FitPowerLaw(nodes, secs)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.A-tc.a) > 1e-9*tc.a || math.Abs(f.B-tc.b) > 1e-9 {
			t.Errorf("a=%v b=%v: fitted a=%.12g b=%.12g", tc.a, tc.b, f.A, f.B)
		}
		if f.R2 < 1-1e-12 || f.ResidualSE > 1e-9 {
			t.Errorf("a=%v b=%v: exact points gave R²=%v, residual SE=%v", tc.a, tc.b, f.R2, f.ResidualSE)
		}
		// With no noise the intervals collapse onto the estimates.
		ai, bi, ok := f.Intervals(0.95)
		if !ok || ai[1]-ai[0] > 1e-6*tc.a || bi[1]-bi[0] > 1e-9 {
			t.Errorf("a=%v b=%v: intervals %v %v ok=%v, want width ≈ 0", tc.a, tc.b, ai, bi, ok)
		}
	}
}

// A hand-worked interval. Points (1, e), (e, e), (e², e³) in log space are
// (0, 1), (1, 1), (2, 3): mean x = 1, Sxx = 2, b = (−1·−2/3 + 0 + 1·4/3)/2 = 1,
// ln a = 5/3 − 1 = 2/3; residuals 1/3, −2/3, 1/3 → SSE = 2/3, 1 dof,
// s = √(2/3), SE(b) = s/√2 = 1/√3, SE(ln a) = s·√(Σx²/(n·Sxx)) = s·√(5/6) = √5/3.
// t(0.975, 1 dof) = 12.7062, so b ∈ 1 ± 12.7062/√3 = 1 ± 7.3359.
func TestIntervalsHandWorked(t *testing.T) {
	e := math.E
	f, err := FitPowerLaw([]float64{1, e, e * e}, []float64{e, e, e * e * e})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.6g, want %.6g", what, got, want)
		}
	}
	near("b", f.B, 1)
	near("ln a", math.Log(f.A), 2.0/3)
	near("SE(b)", f.SEB, 1/math.Sqrt(3))
	near("SE(ln a)", f.SELogA, math.Sqrt(5)/3)
	a, b, ok := f.Intervals(0.95)
	if !ok {
		t.Fatal("no interval with 1 degree of freedom")
	}
	near("b low", b[0], 1-12.7062/math.Sqrt(3))
	near("b high", b[1], 1+12.7062/math.Sqrt(3))
	near("a high", a[1], math.Exp(2.0/3+12.7062*math.Sqrt(5)/3))
	if _, _, ok := f.Intervals(1); ok {
		t.Error("level 1 accepted")
	}
	two, _ := FitPowerLaw([]float64{2, 4}, []float64{10, 5})
	if _, _, ok := two.Intervals(0.95); ok {
		t.Error("two points gave an interval: no residual is left to estimate noise from")
	}
}

// With multiplicative log-normal noise the 95 % intervals must contain the
// true a and b in at least 90 % of 200 seeded trials each, and must not be so
// wide that they always do (190 ± 3 expected; 200 of 200 would mean the
// intervals are inflated).
func TestIntervalsCoverNoisyTruth(t *testing.T) {
	const trueA, trueB, sigma, trials = 900.0, -0.6, 0.08, 200
	rng := rand.New(rand.NewPCG(4, 2026))
	nodes := []float64{2, 4, 6, 8, 2, 4, 6, 8, 2, 4, 6, 8} // 4 node counts × 3 repeats
	var inA, inB int
	for range trials {
		secs := make([]float64, len(nodes))
		for i, n := range nodes {
			secs[i] = trueA * math.Pow(n, trueB) * math.Exp(sigma*rng.NormFloat64())
		}
		f, err := FitPowerLaw(nodes, secs)
		if err != nil {
			t.Fatal(err)
		}
		a, b, ok := f.Intervals(0.95)
		if !ok {
			t.Fatal("no interval with 10 degrees of freedom")
		}
		if a[0] <= trueA && trueA <= a[1] {
			inA++
		}
		if b[0] <= trueB && trueB <= b[1] {
			inB++
		}
	}
	t.Logf("coverage of 95 %% intervals over %d trials: a %d, b %d", trials, inA, inB)
	for _, c := range []struct {
		name string
		in   int
	}{{"a", inA}, {"b", inB}} {
		if c.in < trials*9/10 || c.in == trials {
			t.Errorf("true %s inside its interval in %d of %d trials, want ≥ %d and < %d", c.name, c.in, trials, trials*9/10, trials)
		}
	}
}
