package model

import (
	"encoding/json"
	"fmt"
	"math"
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
		if !finite(t) || t < 0 {
			return fmt.Errorf("model.theta[%d] must be finite and non-negative, got %v", k, t)
		}
	}
	if f1 := e.Theta[0] + e.Theta[1] + e.Theta[3]; !(f1 > 0) || !finite(f1) {
		return fmt.Errorf("model.theta: F(1) = θ0 + θ1 + θ3 must be finite and positive, got %v", f1)
	}
	return nil
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
	return e, nil
}
