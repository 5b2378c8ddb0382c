package optimize

import (
	"math"
	"slices"
)

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

// pricingState is what pricing learns beyond the columns: the durations
// the grid grew to and how far it may grow, and the stabilisation centre
// with its bound. A run of runCheckpoints starts from the last whole run's,
// as it starts from its columns and basis, so it neither regrows the grid
// from its first size nor smooths towards the area duals again.
type pricingState struct {
	gridIdx   []int
	growCap   int
	centre    []float64
	bestBound float64
}

// state is cg's pricingState, copied.
func (cg *columnGen) state() pricingState {
	return pricingState{slices.Clone(cg.gridIdx), cg.growCap, slices.Clone(cg.centre), cg.bestBound}
}

// resume takes up st, a pricingState of the same problem.
func (cg *columnGen) resume(st pricingState) {
	cg.gridIdx, cg.growCap = slices.Clone(st.gridIdx), st.growCap
	cg.grid = cg.grid[:0:0]
	for _, i := range cg.gridIdx {
		cg.grid = append(cg.grid, cg.ps.cands[i])
	}
	if st.centre != nil {
		cg.centre, cg.bestBound = slices.Clone(st.centre), st.bestBound
	}
}
