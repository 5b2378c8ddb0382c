package optimize

import (
	"math"
	"slices"
)

// A fine dive (columns_branch.go) fixes one column a step and re-solves the
// LP of the jobs left. Built afresh from the singletons (subLP, the coarse
// dive's way), that LP takes about 1,500 pivots a step at 200 jobs on 9
// hosts in the first steps (about 190 jobs left), which would be nearly all
// of the dive's time. Fixing a column changes only the right-hand side (its
// jobs' rows now ask for 0) and bans the variables that hold one of its
// jobs, so the last step's basis keeps every reduced cost: if the last solve
// reached its optimum, the basis is dual feasible, and the dual simplex
// (dualPhase) makes it primal feasible again in a few dozen to a few hundred
// pivots, ending at the new LP's optimum; if not, solve goes on from the
// feasible basis it leaves. The rows of the covered jobs stay in the LP,
// their surpluses basic at 0, so the basis and B⁻¹ keep their shape.

// forDive returns a copy of the LP, with nothing covered yet, for a dive
// to fix columns in: the master LP stays as it is for the pricing that
// follows the dive. The copy holds its own list of columns (fixedLP adds
// the dive's new ones to both).
func (lp *coverLP) forDive() *coverLP {
	d := &coverLP{m: lp.m, cols: slices.Clone(lp.cols), cost: slices.Clone(lp.cost), basis: slices.Clone(lp.basis),
		trans: slices.Clone(lp.trans), xb: slices.Clone(lp.xb), x1: slices.Clone(lp.x1), rhs: slices.Clone(lp.rhs),
		pivots: lp.pivots, colNZ: lp.colNZ, dantzig: lp.dantzig, workers: lp.workers, parallelAt: lp.parallelAt,
		ban: make([]bool, len(lp.cols)), banTr: make([]bool, len(lp.trans)), done: make([]bool, lp.m), unit: make([]float64, lp.m)}
	d.represent(lp.lu != nil)
	if lp.lu != nil { // only for tests today: fine dives stop at fineDiveJobs, sparse factors start at luJobs
		d.lu = lp.lu.clone()
	}
	for k, row := range lp.binv {
		copy(d.binv[k], row)
	}
	for j := range d.unit {
		d.unit[j] = 1
	}
	return d
}

// fix covers jobs (those of the columns a dive step fixed) in an LP from
// forDive: their rows ask for 0 from then on, and every column and transfer
// that holds a covered job is banned. It restores a feasible basis by the
// dual simplex, in at most maxPivots pivots, and failing that (stop, or no
// safe pivot) starts from the singletons (restart), from which solve
// reaches the same optimum. It reports whether the dual simplex got there.
func (lp *coverLP) fix(jobs []int, maxPivots int, stop func() bool) bool {
	for _, j := range jobs {
		lp.done[j] = true
		lp.rhs[j], lp.unit[j] = 0, 0
	}
	for c, col := range lp.cols {
		if !lp.ban[c] && !disjoint(col, lp.done) {
			lp.ban[c] = true
		}
	}
	for t, tr := range lp.trans {
		if lp.done[tr[0]] || lp.done[tr[1]] {
			lp.banTr[t] = true
		}
	}
	lp.freshValues()
	if lp.dualPhase(maxPivots, stop) {
		return true
	}
	lp.restart()
	return false
}

// freshValues computes the basic values afresh from B⁻¹: xb = B⁻¹·rhs and
// x1 = B⁻¹·unit, without install's clamping at 0, which would hide the
// rows the dual simplex must still repair.
func (lp *coverLP) freshValues() {
	f := factors{inv: lp.binv, lu: lp.lu}
	copy(lp.xb, f.times(lp.rhs))
	copy(lp.x1, f.times(lp.unit))
}

// banned reports whether variable v (numbered as in basis) is banned.
func (lp *coverLP) banned(v int) bool {
	switch t := lp.transfer(v); {
	case lp.ban == nil:
		return false
	case v >= 0:
		return lp.ban[v]
	case t >= 0:
		return lp.banTr[t]
	}
	return false // a surplus
}

// dualInfeasible is how far below 0 a basic value must lie for the dual
// simplex to repair it: well above round-off, well below the perturbation
// (about 1e-6) the values carry.
const dualInfeasible = 1e-11

// leavingRow is the row the dual simplex takes next: the first holding a
// banned variable, else the one of the most negative value, or −1 if the
// basis is feasible. down says the banned variable's value must fall to 0
// (it is at or above it).
func (lp *coverLP) leavingRow() (r int, down bool) {
	r, worst := -1, -dualInfeasible
	for k, b := range lp.basis {
		if lp.banned(b) {
			return k, lp.xb[k] >= 0
		}
		if lp.xb[k] < worst {
			r, worst = k, lp.xb[k]
		}
	}
	return r, false
}

// dualPhase pivots by the dual simplex until the basis is feasible and holds
// no banned variable, at most maxPivots times; it reports whether it got
// there. Each pivot takes leavingRow's row out and brings in the variable
// dualEntering picks, which keeps the reduced costs at or above 0 where they
// were. A variable at 0 (to dualInfeasible) with no variable to move it in
// the direction it needs leaves the other way: its value does not move.
// The pivot is the largest element among the tied ratios and at least
// pivotRel of the row's largest; B⁻¹ is computed afresh every M pivots
// (sparse factors: once stale).
func (lp *coverLP) dualPhase(maxPivots int, stop func() bool) bool {
	d := make([]float64, lp.m)
	for it := range maxPivots {
		if stop != nil && it%16 == 15 && stop() {
			return false
		}
		r, down := lp.leavingRow()
		if r < 0 {
			return true
		}
		y := lp.duals()
		enter, found := lp.dualEntering(r, down, y)
		if !found && math.Abs(lp.xb[r]) <= dualInfeasible {
			enter, found = lp.dualEntering(r, !down, y)
		}
		if !found {
			return false
		}
		lp.column(enter, d)
		if math.Abs(d[r]) < pivotTol {
			return false
		}
		lp.pivot(r, enter, max(lp.xb[r]/d[r], 0), d)
		lp.pivots++
		lp.work++
		// B⁻¹ afresh every M pivots (at solve's M/4 these O(M³)
		// inversions would take most of the dive's time), sparse
		// factors once stale, as solve does. A singular
		// basis, or stop, ends the phase: fix then restarts.
		if (lp.lu == nil && lp.pivots >= lp.m) || (lp.lu != nil && lp.lu.stale()) {
			f, _ := lp.factorise(lp.basis, stop)
			if f.none() {
				return false
			}
			x := lp.basicValues(f)
			lp.install(f, x)
			copy(lp.xb, x) // install clamps at 0
		}
	}
	return false
}

// dualEntering is the dual ratio test on row r of B⁻¹A: among the variables
// that are not banned, whose element α in row r is positive (down: they
// lower row r's value) or negative (else: they raise it), the least
// reduced cost over |α|, which keeps every reduced cost ≥ 0; of ratios tied
// to a relative 1e-9, the largest |α|, a safer pivot. Elements below 1e-7
// of the largest are passed over as round-off.
func (lp *coverLP) dualEntering(r int, down bool, y []float64) (enter int, found bool) {
	row := lp.row(r)
	cands := lp.dualCands[:0]
	defer func() { lp.dualCands = cands }()
	largest := 0.0
	consider := func(v int, alpha, rc float64) {
		if !down {
			alpha = -alpha
		}
		if alpha <= 0 {
			return
		}
		largest = max(largest, alpha)
		// A reduced cost below 0 (the last solve stopped short of its
		// optimum) counts as 0, so that variable goes first; the reduced
		// costs need not then all stay ≥ 0, and solve, which follows,
		// restores them.
		cands = append(cands, dualCand{v, alpha, max(rc, 0) / alpha})
	}
	for c, col := range lp.cols {
		if lp.ban[c] {
			continue
		}
		var a float64
		for _, j := range col {
			a += row[j]
		}
		if (down && a > 0) || (!down && a < 0) { // else consider drops it: no reduced cost needed
			consider(c, a, lp.reducedCostOf(c, y))
		}
	}
	for j := range lp.m {
		consider(-1-j, -row[j], y[j])
	}
	for t, tr := range lp.trans {
		if !lp.banTr[t] {
			consider(-1-lp.m-t, row[tr[0]]-row[tr[1]], y[tr[1]]-y[tr[0]])
		}
	}
	tol := max(pivotTol, pivotRel*largest)
	best := math.Inf(1)
	for _, c := range cands {
		if c.alpha > tol {
			best = min(best, c.ratio)
		}
	}
	var bestAlpha float64
	for _, c := range cands {
		if c.alpha > tol && c.ratio <= best+1e-9*(1+best) && c.alpha > bestAlpha {
			enter, bestAlpha, found = c.v, c.alpha, true
		}
	}
	return enter, found
}

// dualCand is a variable dualEntering may bring in: its element in the
// leaving row (made positive) and its ratio.
type dualCand struct {
	v            int
	alpha, ratio float64
}
