package model

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// PowerLaw is the runtime model F(n) = A·n^B. A is the time in seconds on one
// VM; B < 0 means more VMs help, with diminishing returns when −1 < B < 0.
type PowerLaw struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

var _ Model = PowerLaw{}

// Kind is KindPower.
func (PowerLaw) Kind() Kind { return KindPower }

// String shows the law for people: "1500·n^-0.5500".
func (p PowerLaw) String() string { return fmt.Sprintf("%.4g·n^%.4f", p.A, p.B) }

// Seconds returns A·n^B, and 0 for n ≤ 0 (a job with no VMs takes no time in
// a phase: the packing paper defines F(0) = 0).
func (p PowerLaw) Seconds(n int) float64 {
	if n <= 0 {
		return 0
	}
	return p.A * math.Pow(float64(n), p.B)
}

// Validate reports a model that cannot describe a runtime: A must be finite and
// positive, B finite.
func (p PowerLaw) Validate() error {
	if err := within("model.a", p.A, false); err != nil {
		return err
	}
	if !(math.Abs(p.B) <= MaxExponent) {
		return fmt.Errorf("model.b must be between %g and %g (doubling the VMs changes the runtime at most %g-fold), got %v", -MaxExponent, MaxExponent, math.Pow(2, MaxExponent), p.B)
	}
	return nil
}

// Fit is a power law fitted to observations, with the statistics a planner
// needs to judge it.
type Fit struct {
	PowerLaw
	// R2 is the coefficient of determination of the regression of ln(seconds)
	// on ln(n), in [0, 1] (1 for a perfect fit).
	R2 float64
	// ResidualSE is the residual standard error of that regression, in natural
	// log units: exp(ResidualSE) − 1 is roughly the typical relative error.
	// It is 0 when there are only two points (no degrees of freedom left).
	ResidualSE float64
	// SEA and SEB are the standard errors of ln(A) and of B; zero with two points.
	SELogA, SEB float64
	// Points is the number of observations used.
	Points int
}

// ErrTooFewPoints is returned by FitPowerLaw when fewer than two distinct node
// counts are given: a line needs two x values.
var ErrTooFewPoints = errors.New("model: a power-law fit needs at least two distinct node counts")

// FitPowerLaw fits F(n) = a·n^b to observed (nodes, seconds) pairs by ordinary
// least squares on ln(seconds) = ln(a) + b·ln(n), as the packing paper (Aboulnaga et al., CloudDB 2009) does. Repeated
// node counts are allowed and all points are used. Every n and every seconds
// value must be finite and positive.
func FitPowerLaw(nodes, seconds []float64) (Fit, error) {
	if len(nodes) != len(seconds) {
		return Fit{}, fmt.Errorf("model: %d node counts but %d runtimes", len(nodes), len(seconds))
	}
	xs := make([]float64, len(nodes))
	ys := make([]float64, len(nodes))
	distinct := map[float64]bool{}
	for i := range nodes {
		n, s := nodes[i], seconds[i]
		if !(n > 0) || math.IsInf(n, 0) {
			return Fit{}, fmt.Errorf("model: observation %d: nodes must be finite and positive, got %v", i+1, n)
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return Fit{}, fmt.Errorf("model: observation %d: seconds must be finite and positive, got %v", i+1, s)
		}
		xs[i], ys[i] = math.Log(n), math.Log(s)
		distinct[n] = true
	}
	if len(distinct) < 2 {
		return Fit{}, ErrTooFewPoints
	}
	alpha, beta := stat.LinearRegression(xs, ys, nil, false)
	f := Fit{PowerLaw: PowerLaw{A: math.Exp(alpha), B: beta}, Points: len(xs)}
	f.R2 = stat.RSquared(xs, ys, nil, alpha, beta)
	lo, hi := ys[0], ys[0]
	for _, y := range ys {
		lo, hi = min(lo, y), max(hi, y)
	}
	if math.IsNaN(f.R2) || hi-lo <= 1e-12*max(1, math.Abs(hi)) {
		// All runtimes equal (to rounding): the flat line explains all there
		// is, though the ratio of two rounding residues may say anything.
		f.R2 = 1
	}
	if dof := len(xs) - 2; dof > 0 {
		var sse float64
		for i := range xs {
			r := ys[i] - (alpha + beta*xs[i])
			sse += r * r
		}
		f.ResidualSE = math.Sqrt(sse / float64(dof))
		mx := stat.Mean(xs, nil)
		var sxx, sx2 float64
		for _, x := range xs {
			sxx += (x - mx) * (x - mx)
			sx2 += x * x
		}
		f.SEB = f.ResidualSE / math.Sqrt(sxx)
		f.SELogA = f.ResidualSE * math.Sqrt(sx2/(float64(len(xs))*sxx))
	}
	return f, nil
}
