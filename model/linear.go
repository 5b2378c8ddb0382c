package model

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// linearFit is a model linear in its parameters, F(n) = Σ θₖ·φₖ(n) with every
// θₖ ≥ 0, fitted to runs by non-negative least squares on relative error:
// each row is divided by its measured time, so that a 10 s job's 1 s miss
// weighs as much as a 1000 s job's 100 s one, as the power law's fit in log
// space does.
type linearFit struct {
	Theta []float64
	// SE are the standard errors of the parameters NNLS left positive, from
	// s²·(XᵀX)⁻¹ on those columns with s² = SSE/(runs − positive
	// parameters); zero for a parameter pinned at 0 and when no degree of
	// freedom is left.
	SE []float64
}

// fitLinear fits Σ θₖ·φₖ(n) to the runs. Nodes and seconds must be finite and
// positive; checkRuns has done that.
func fitLinear(basis func(n float64) []float64, nodes, seconds []float64) (linearFit, error) {
	p := len(basis(1))
	x := mat.NewDense(len(nodes), p, nil)
	ones := make([]float64, len(nodes))
	for i, n := range nodes {
		for k, v := range basis(n) {
			x.Set(i, k, v/seconds[i])
		}
		ones[i] = 1
	}
	theta, err := nnls(x, ones)
	if err != nil {
		return linearFit{}, err
	}
	f := linearFit{Theta: theta, SE: make([]float64, p)}
	var active []int
	for k, t := range theta {
		if t > 0 {
			active = append(active, k)
		}
	}
	dof := len(nodes) - len(active)
	if dof < 1 || len(active) == 0 {
		return f, nil
	}
	var sse float64
	for i := range nodes {
		r := 1.0
		for k := range p {
			r -= theta[k] * x.At(i, k)
		}
		sse += r * r
	}
	xa := mat.NewDense(len(nodes), len(active), nil)
	for c, k := range active {
		for i := range nodes {
			xa.Set(i, c, x.At(i, k))
		}
	}
	var xtx, inv mat.Dense
	xtx.Mul(xa.T(), xa)
	if err := inv.Inverse(&xtx); err != nil {
		return f, nil // the fit stands; only its standard errors are unknown
	}
	s2 := sse / float64(dof)
	for c, k := range active {
		f.SE[k] = math.Sqrt(s2 * inv.At(c, c))
	}
	return f, nil
}

// needRuns is checkRuns, and fails with ErrTooFewNodeCounts when the runs
// cover fewer than need distinct node counts, the least the form needs.
func needRuns(form string, need int, nodes, seconds []float64) error {
	d, err := checkRuns(nodes, seconds)
	if err == nil && d < need {
		err = fmt.Errorf("%w: %s needs %d, got %d", ErrTooFewNodeCounts, form, need, d)
	}
	return err
}

// checkRuns checks observed (nodes, seconds) pairs and counts distinct node
// counts.
func checkRuns(nodes, seconds []float64) (distinct int, err error) {
	if len(nodes) != len(seconds) {
		return 0, fmt.Errorf("model: %d node counts but %d runtimes", len(nodes), len(seconds))
	}
	seen := map[float64]bool{}
	for i := range nodes {
		n, s := nodes[i], seconds[i]
		if !(n > 0) || math.IsInf(n, 0) {
			return 0, fmt.Errorf("model: observation %d: nodes must be finite and positive, got %v", i+1, n)
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return 0, fmt.Errorf("model: observation %d: seconds must be finite and positive, got %v", i+1, s)
		}
		seen[n] = true
	}
	return len(seen), nil
}

// finite is false for NaN and infinities.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
