package optimize

import "math"

// areaDuals is the stabilisation centre column generation starts from,
// before any full round has proved a bound: π_j = w_j/(N + P·⌊k/r⌋), w_j
// the fewest VM-seconds job j takes in any role and VM count. A phase of
// length D keeps at most N primary and P·⌊k/r⌋ extra VMs for D each, and
// each of its jobs holds its VMs for its runtime, so π(phase) ≤ D: Farley's
// θ is at least 1 and the bound at these duals is at least Σπ, the area
// bound with both pools merged. The singleton LP's first duals are the jobs'
// runtimes on all N VMs, far from any optimum; smoothing towards these
// instead steadies the first rounds. Any π ≥ 0 keeps Farley's bound valid.
func (ps *phaseSolver) areaDuals() []float64 {
	pi := make([]float64, len(ps.p.Jobs))
	capacity := float64(ps.n + ps.emax)
	for j := range pi {
		w := math.Inf(1)
		for role := range 3 {
			for x, t := range ps.rt[j][role] {
				if x > 0 {
					w = min(w, float64(x)*t)
				}
			}
		}
		if !math.IsInf(w, 1) {
			pi[j] = w / capacity
		}
	}
	return pi
}
