package model

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func TestPowerLawSeconds(t *testing.T) {
	p := PowerLaw{A: 1200, B: -1}
	for _, c := range []struct {
		n    int
		want float64
	}{
		{0, 0},  // F(0) = 0 by definition (Aboulnaga et al., Packing the Most Onto Your Cloud, CloudDB 2009, 5.2)
		{-3, 0}, // no VMs, no time
		{1, 1200},
		{4, 300}, // 1200 · 4^−1
		{6, 200},
	} {
		if got := p.Seconds(c.n); got != c.want {
			t.Errorf("F(%d) = %v, want %v", c.n, got, c.want)
		}
	}
	// 100 · 16^−0.5 = 100 / 4 = 25
	if got := (PowerLaw{A: 100, B: -0.5}).Seconds(16); !scalar.EqualWithinAbsOrRel(got, 25, 1e-12, 1e-12) {
		t.Errorf("F(16) = %v, want 25", got)
	}
}

func TestPowerLawValidate(t *testing.T) {
	for _, p := range []PowerLaw{{0, -1}, {-5, -1}, {math.NaN(), -1}, {math.Inf(1), -1}, {10, math.NaN()}, {10, math.Inf(-1)}} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: want an error", p)
		}
	}
	if err := (PowerLaw{A: 10, B: 0.2}).Validate(); err != nil {
		t.Errorf("a positive b is a valid (if unusual) model: %v", err)
	}
}

func TestFitPowerLawExact(t *testing.T) {
	for _, want := range []PowerLaw{{1500, -0.55}, {20000, -1.04}, {3.5, 0.3}} {
		var ns, ss []float64
		for _, n := range []float64{2, 4, 6, 8, 12, 18} {
			ns = append(ns, n)
			ss = append(ss, want.A*math.Pow(n, want.B))
		}
		f, err := FitPowerLaw(ns, ss)
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbsOrRel(f.A, want.A, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(f.B, want.B, 1e-9, 1e-9) {
			t.Errorf("fit of exact %+v points = a %v, b %v", want, f.A, f.B)
		}
		if !scalar.EqualWithinAbsOrRel(f.R2, 1, 1e-9, 1e-9) || f.ResidualSE > 1e-9 {
			t.Errorf("exact points: R² %v, residual SE %v; want 1 and 0", f.R2, f.ResidualSE)
		}
	}
}

func TestFitPowerLawHandWorked(t *testing.T) {
	// Three points: (1, e^1), (e, e^0), (e^2, e^0) in log space are
	// (0, 1), (1, 0), (2, 0). OLS: mean x = 1, mean y = 1/3,
	// Sxy = (−1)(2/3) + 0 + (1)(−1/3) = −1, Sxx = 2, so b = −1/2 and
	// ln a = 1/3 + 1/2 = 5/6. Residuals: 1 − 5/6 = 1/6, 0 − 1/3 = −1/3,
	// 0 − (−1/6) = 1/6; SSE = 1/36 + 4/36 + 1/36 = 1/6; one degree of freedom,
	// so the residual SE is √(1/6). SST = (2/3)² + 2·(1/3)² = 2/3, R² = 1 − (1/6)/(2/3) = 3/4.
	f, err := FitPowerLaw([]float64{1, math.E, math.E * math.E}, []float64{math.E, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want float64) {
		t.Helper()
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("b", f.B, -0.5)
	check("a", f.A, math.Exp(5.0/6))
	check("R²", f.R2, 0.75)
	check("residual SE", f.ResidualSE, math.Sqrt(1.0/6))
	// SE(b) = s/√Sxx = √(1/6)/√2.
	check("SE(b)", f.SEB, math.Sqrt(1.0/6)/math.Sqrt2)
	if f.Points != 3 {
		t.Errorf("points = %d", f.Points)
	}
}

func TestFitPowerLawErrors(t *testing.T) {
	if _, err := FitPowerLaw([]float64{4, 4}, []float64{10, 11}); !errors.Is(err, ErrTooFewPoints) {
		t.Errorf("one node count: err = %v, want ErrTooFewPoints", err)
	}
	if _, err := FitPowerLaw([]float64{2, 4}, []float64{10}); err == nil {
		t.Error("length mismatch: want an error")
	}
	for _, bad := range [][2]float64{{0, 10}, {-1, 10}, {2, 0}, {2, -3}, {math.Inf(1), 1}, {2, math.NaN()}} {
		if _, err := FitPowerLaw([]float64{bad[0], 8}, []float64{bad[1], 5}); err == nil {
			t.Errorf("observation %v: want an error", bad)
		}
	}
}

func TestFitPowerLawFlat(t *testing.T) {
	// The same runtime at every node count: b = 0 and a perfect fit, even
	// when ln(39.7815) leaves rounding residues that make gonum's R² 0.
	ns := []float64{2, 4, 6, 9, 12, 18}
	ss := []float64{39.7815, 39.7815, 39.7815, 39.7815, 39.7815, 39.7815}
	f, err := FitPowerLaw(ns, ss)
	if err != nil {
		t.Fatal(err)
	}
	if f.R2 != 1 || math.Abs(f.B) > 1e-12 || math.Abs(f.A-39.7815) > 1e-9 {
		t.Errorf("flat fit: a %v, b %v, R² %v; want 39.7815, 0, 1", f.A, f.B, f.R2)
	}
}
