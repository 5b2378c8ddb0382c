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
// Where Solve proved the level bound (levels.go), its duals are the centre
// instead, until a full round proves a higher bound.
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
// from its first size nor smooths towards the level or area duals again.
type pricingState struct {
	gridIdx   []int
	growCap   int
	centre    []float64
	bestBound float64
}

// clone is a copy of st that shares no memory with it.
func (st pricingState) clone() pricingState {
	return pricingState{slices.Clone(st.gridIdx), st.growCap, slices.Clone(st.centre), st.bestBound}
}

// state is cg's pricingState, sharing its memory: Columns takes it when
// column generation is done with cg.
func (cg *columnGen) state() pricingState {
	return pricingState{cg.gridIdx, cg.growCap, cg.centre, cg.bestBound}
}

// resume takes up a copy of st, a pricingState of the same problem and the
// same ColumnsOptions cells and grid (its indices and cap assume them): grow
// inserts into the grid in place, which would change st's.
func (cg *columnGen) resume(st pricingState) {
	st = st.clone()
	cg.gridIdx, cg.growCap, cg.centre, cg.bestBound = st.gridIdx, st.growCap, st.centre, st.bestBound
	cg.grid = make([]float64, len(cg.gridIdx))
	for k, i := range cg.gridIdx {
		cg.grid[k] = cg.ps.cands[i]
	}
}
