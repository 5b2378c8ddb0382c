package model

import (
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Ernest is the runtime model of Venkataraman et al., "Ernest: Efficient
// Performance Prediction for Large-Scale Advanced Analytics", NSDI 2016:
//
//	F(n) = θ0 + θ1/n + θ2·ln n + θ3·n
//
// a serial part, a part divided among the VMs, a tree-shaped aggregation and
// a part that grows with every VM (all-to-all communication), each θ ≥ 0. It
// can bend upwards: past some n more VMs make the job slower.
type Ernest struct {
	Theta [4]float64 `json:"theta"`
}

var _ Model = Ernest{}

// ernestBasis is the four terms at n.
func ernestBasis(n float64) []float64 { return []float64{1, 1 / n, math.Log(n), n} }

// Seconds returns θ0 + θ1/n + θ2·ln n + θ3·n, and 0 for n ≤ 0.
func (e Ernest) Seconds(n int) float64 {
	if n <= 0 {
		return 0
	}
	var t float64
	for k, v := range ernestBasis(float64(n)) {
		t += e.Theta[k] * v
	}
	return t
}

// Kind is KindErnest.
func (Ernest) Kind() Kind { return KindErnest }

// String shows the law for people: "20 + 600/n + 3·ln n + 0.5·n".
func (e Ernest) String() string {
	return fmt.Sprintf("%.4g + %.4g/n + %.4g·ln n + %.4g·n", e.Theta[0], e.Theta[1], e.Theta[2], e.Theta[3])
}

// Validate reports a model that cannot describe a runtime: every θ finite and
// non-negative, and F(1) = θ0 + θ1 + θ3 positive (then F(n) > 0 for all n ≥ 1).
func (e Ernest) Validate() error {
	for k, t := range e.Theta {
		if err := within(fmt.Sprintf("model.theta[%d]", k), t, true); err != nil {
			return err
		}
	}
	return within("model.theta: F(1) = θ0 + θ1 + θ3", e.Theta[0]+e.Theta[1]+e.Theta[3], false)
}

// MarshalJSON writes {"kind": "ernest", "theta": [θ0, θ1, θ2, θ3]}.
func (e Ernest) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Kind  Kind       `json:"kind"`
		Theta [4]float64 `json:"theta"`
	}{KindErnest, e.Theta})
}

// ErnestFit is an Ernest model fitted to runs with the standard errors of
// its parameters (zero for one pinned at 0 or with no degree of freedom left).
type ErnestFit struct {
	Ernest
	SE     [4]float64
	Points int
	// Unconstrained and UnconstrainedSE are the least-squares fit of the
	// four terms without θ ≥ 0 and its standard errors, which Intervals
	// uses; set when there are more than four runs.
	Unconstrained, UnconstrainedSE [4]float64
	unconstrained                  bool
}

// FitErnest fits the Ernest form by non-negative least squares on relative
// error, as Ernest does (NNLS keeps every term physical). It needs four
// distinct node counts, one per parameter.
func FitErnest(nodes, seconds []float64) (ErnestFit, error) {
	if err := needRuns("ernest", 4, nodes, seconds); err != nil {
		return ErnestFit{}, err
	}
	f, err := fitLinear(ernestBasis, nodes, seconds)
	if err != nil {
		return ErnestFit{}, err
	}
	var e ErnestFit
	copy(e.Theta[:], f.Theta)
	copy(e.SE[:], f.SE)
	e.Points = len(nodes)
	e.Unconstrained, e.UnconstrainedSE, e.unconstrained = fitUnconstrained(nodes, seconds)
	return e, nil
}

// Intervals returns two-sided confidence intervals at the given level (for
// example 0.95) for θ0..θ3. NNLS's own standard errors (SE, from the
// parameters it left positive) are conditional on which it pinned at 0 and
// cover the truth too rarely when noise decides that; so the intervals are
// those of the unconstrained least-squares fit of all four terms, on the
// same rows weighted by 1/t, cut to θ ≥ 0, where every true θ lies:
//
//	[max(0, θ̂k − t·SEk), max(0, θ̂k + t·SEk)],  t Student's with Points − 4 degrees of freedom,
//
// θ̂ and SE the unconstrained fit's (Unconstrained, UnconstrainedSE). ok is
// false with no degree of freedom left (four points or fewer), when the
// four terms could not be told apart, or for a level outside (0, 1).
func (f ErnestFit) Intervals(level float64) (iv [4][2]float64, ok bool) {
	dof := f.Points - 4
	if dof < 1 || !f.unconstrained || !(level > 0 && level < 1) {
		return iv, false
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}.Quantile(0.5 + level/2)
	for k, th := range f.Unconstrained {
		iv[k] = [2]float64{max(0, th-t*f.UnconstrainedSE[k]), max(0, th+t*f.UnconstrainedSE[k])}
	}
	return iv, true
}

// fitUnconstrained is the ordinary least-squares fit of the Ernest terms on
// rows weighted by 1/t and its standard errors, s²·(XᵀX)⁻¹ with s² =
// SSE/(runs − 4); ok is false with four runs or fewer or a singular XᵀX.
func fitUnconstrained(nodes, seconds []float64) (theta, se [4]float64, ok bool) {
	m := len(nodes)
	if m <= 4 {
		return theta, se, false
	}
	x := mat.NewDense(m, 4, nil)
	y := mat.NewVecDense(m, nil)
	for i, n := range nodes {
		for k, v := range ernestBasis(n) {
			x.Set(i, k, v/seconds[i])
		}
		y.SetVec(i, 1)
	}
	var xtx, inv mat.Dense
	xtx.Mul(x.T(), x)
	if err := inv.Inverse(&xtx); err != nil {
		return theta, se, false
	}
	var xty, th, fitted mat.VecDense
	xty.MulVec(x.T(), y)
	th.MulVec(&inv, &xty)
	fitted.MulVec(x, &th)
	var sse float64
	for i := range m {
		r := 1 - fitted.AtVec(i)
		sse += r * r
	}
	s2 := sse / float64(m-4)
	for k := range 4 {
		theta[k], se[k] = th.AtVec(k), math.Sqrt(s2*inv.At(k, k))
	}
	return theta, se, true
}
