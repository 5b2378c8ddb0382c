package optimize

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
)

// coverLP is the restricted master problem of column generation, the LP
// relaxation of set covering over the columns found so far:
//
//	minimise Σ_c cost_c·λ_c  subject to
//	Σ_{c ∋ j} λ_c + Σ_{(j,k)} τ_jk − Σ_{(i,j)} τ_ij ≥ 1 for every job j,  λ, τ ≥ 0,
//
// τ being the transfers (trans), of cost 0.
//
// It is solved by a revised simplex with an explicit dense basis inverse
// (M × M): columns arrive one at a time and the primal stays feasible, so
// every solve starts from the last basis (a warm start), and a pivot costs
// O(M²) whatever the number of columns. From luJobs jobs on, where that update
// took 41–49 % of planning's CPU (1,000 jobs on 200 hosts), B⁻¹ is kept
// instead as sparse LU factors of B and the pivots since as etas
// (simplex_lu.go). gonum's optimize/convex/lp.Simplex starts from scratch on a
// dense A each call, factorises the basis every pivot and returns no duals,
// which column generation needs; at M = 200 with a thousand columns it was far
// slower than this. Its answer's correctness does not rest on this LP being
// solved exactly: the bound Columns reports is Farley's, valid for any duals
// (see Columns).
type coverLP struct {
	m     int
	cols  [][]int // jobs of each column; column j < m is job j alone
	cost  []float64
	binv  [][]float64 // basis inverse, dense; nil where lu stands for it
	basis []int       // basic variable per row: column index, −1−j for job j's surplus, or −1−m−t for transfer t
	// lu, from luJobs jobs on, stands for binv: B factorised sparse, the
	// pivots since as etas (see luJobs); rowBuf and cbBuf are row's and
	// duals' scratch then.
	lu            *basisLU
	rowBuf, cbBuf []float64
	// trans are transfers (i, j): a variable of cost 0 with +1 in row i and
	// −1 in row j, which lets the LP cover i with what covers j. Their dual
	// constraints are the dual-optimal inequalities π_i ≤ π_j (dominance.go):
	// they leave the LP's optimum over all columns as it is and keep the
	// duals of a restricted master from ranking a job above one that could
	// take its place.
	trans [][2]int
	// xb are the basic values of the perturbed LP, whose right-hand side
	// is rhs (1 + a job's perturbation) rather than 1: the pivots follow
	// them. x1 are B⁻¹·1, the basic values of the LP itself, which it
	// reports where they are feasible (primal). See perturbation.
	xb, x1, rhs []float64
	// pivots counts the pivots since B⁻¹ was last computed afresh; work
	// all pivots ever (a deterministic measure of the LP's effort), and
	// stalls those whose step θ in xb was 0, to 1e-12 (tests read it:
	// blandAfter of them in a row send solve to Bland's rule).
	pivots, work, stalls int
	// factorised counts lu's factorisations (tests read it).
	factorised int
	// optimal records that the last solve ended because no column priced
	// out, not on its pivot cap or stop, and none sat out for want of a
	// safe pivot (ratioTest): only then are its duals the LP's.
	optimal bool
	// wCol, wSur and wTr are the Devex reference weights of the columns,
	// surpluses and transfers (see devex), set to 1 as each solve starts.
	wCol, wSur, wTr []float64
	// dantzig makes entering take the most negative reduced cost instead
	// (Dantzig's rule), the plain reference the tests compare Devex with.
	dantzig bool
	// workers is how many goroutines a pivot's update of B⁻¹, column,
	// entering, devex and inverse's elimination may use (0 or 1: this
	// one), when they do at least parallelAt units of work (0:
	// parallelPivot; tests lower it; see share); nz is the pivot's
	// scratch.
	workers, parallelAt int
	nz                  []int
	// colJobs and colVals are column's scratch: the entering column's
	// non-zeros.
	colJobs []int
	colVals []float64
	// colNZ counts every column's non-zeros, idle ones included;
	// colNZ − idleNZ is the work of a pass over them (entering, devex),
	// which share weighs.
	colNZ int
	// rcNext is the columns' reduced costs at the duals after the last
	// pivot, which devex computes in its pass over the columns (banned
	// and idle columns' are not kept).
	rcNext []float64
	// pieces is entering's scratch: each piece's choice; dualCands
	// dualEntering's.
	pieces    []pick
	dualCands []dualCand
	// A dive's LP (forDive) covers some jobs with the columns it fixed:
	// done marks them, their rows ask for 0 (unit and rhs), and ban marks
	// the columns and banTr the transfers that hold one of them, which no
	// pivot may bring in (see fix). All nil outside a dive, unit then
	// meaning every row asks for 1.
	ban, banTr, done []bool
	unit             []float64
	// idle marks the columns the passes over every column leave out
	// (see settle); age counts, per column, the optimal solves it has
	// ended nonbasic with a positive reduced cost since it last ended one
	// otherwise. Both nil where no column goes idle: only column
	// generation's master LP sets them. idleNZ counts the idle columns'
	// non-zeros, which the passes do not weigh.
	idle   []bool
	age    []int32
	idleNZ int
}

// newCoverLP starts with the M singleton columns as the basis (B = I, λ = 1).
// From luJobs jobs on, B⁻¹ is kept as lu (sparse) rather than binv.
func newCoverLP(single []float64) *coverLP {
	m := len(single)
	lp := &coverLP{m: m, basis: make([]int, m), xb: make([]float64, m), x1: make([]float64, m), rhs: make([]float64, m)}
	for j := range m {
		lp.rhs[j] = 1 + perturbation(j)
		lp.cols = append(lp.cols, []int{j})
		lp.colNZ++
		lp.cost = append(lp.cost, single[j])
	}
	lp.represent(m >= luJobs)
	lp.restart()
	return lp
}

// represent makes the LP keep B⁻¹ sparse (lu) or dense (binv), to be
// computed (restart, refactor) before the LP is used again.
func (lp *coverLP) represent(sparse bool) {
	m := lp.m
	if sparse {
		lp.binv, lp.lu = nil, &basisLU{}
		lp.rowBuf, lp.cbBuf = make([]float64, m), make([]float64, m)
		return
	}
	lp.lu, lp.rowBuf, lp.cbBuf = nil, nil, nil
	lp.binv = make([][]float64, m)
	for j := range m {
		lp.binv[j] = make([]float64, m)
	}
}

func (lp *coverLP) add(jobs []int, cost float64) {
	if lp.ban != nil {
		lp.ban = append(lp.ban, !disjoint(jobs, lp.done))
	}
	lp.cols = append(lp.cols, jobs)
	lp.colNZ += len(jobs)
	lp.cost = append(lp.cost, cost)
	if lp.age != nil {
		lp.idle, lp.age = append(lp.idle, false), append(lp.age, 0)
	}
}

// skip reports whether the passes over the columns leave column c out:
// banned by a dive, or idle.
func (lp *coverLP) skip(c int) bool {
	return (lp.ban != nil && lp.ban[c]) || (lp.idle != nil && lp.idle[c])
}

// duals returns y = c_B·B⁻¹, the price of covering each job.
func (lp *coverLP) duals() []float64 {
	y := make([]float64, lp.m)
	if lp.lu != nil {
		c := lp.cbBuf
		for k, b := range lp.basis {
			c[k] = 0
			if b >= 0 {
				c[k] = lp.cost[b]
			}
		}
		lp.lu.btran(c, y)
		return y
	}
	for k, b := range lp.basis {
		cb := 0.0
		if b >= 0 {
			cb = lp.cost[b]
		}
		if cb == 0 {
			continue
		}
		floats.AddScaled(y, cb, lp.binv[k])
	}
	return y
}

// solve pivots (Devex pricing, see devex) until no column prices out
// (lp.optimal), maxPivots iterations (pivots, and choices dropped for an
// unsafe pivot), or stop (if not nil, asked every 16 iterations and by
// refactor; a refactorisation before a doubtful pivot that it stops ends
// the solve) says so; it returns the objective.
//
// The duals are updated after each pivot, y += rc·(B⁻¹'s new row r), O(M),
// and computed afresh (c_B·B⁻¹) every dualRefresh pivots and before the solve
// ends: updating alone drifted from B⁻¹ after small pivots and once drove
// the objective up tenfold (M = 200 on 50 hosts, seed 3). Stale duals only
// choose which column enters; the ratio test uses B⁻¹, and no column pricing
// out is decided on fresh duals.
//
// The right-hand side is perturbed (perturbation), so a pivot that does
// not move the value is rare. After blandAfter of them in a row (the step
// θ is 0) it follows Bland's rule, on fresh duals, until a pivot
// moves the value again: the least-indexed variable that prices out enters
// and ties in the ratio test leave by least index, which cannot cycle.
// Dantzig's rule alone cycled on set-covering LPs whose columns repeat the
// same few phases: 30 jobs on 9 hosts (random-m30-seed10) sat 1,000 rounds
// at one value above the LP's optimum, every round ending on its pivot limit.
func (lp *coverLP) solve(maxPivots int, stop func() bool) float64 {
	d := make([]float64, lp.m)
	if lp.lu == nil && 4*lp.pivots >= lp.m {
		lp.refactor(stop)
	}
	y, fresh := lp.duals(), true
	// cached: lp.rcNext holds every active, unbanned column's reduced
	// cost at y. Fresh duals never are (refresh clears it), so a wake,
	// which comes only on fresh duals, leaves nothing stale behind.
	cached := false
	refresh := func() { y, fresh, cached = lp.duals(), true, false }
	degenerate := 0
	lp.optimal = false
	lp.resetWeights()
	var rejected map[int]bool
	defer func() { lp.optimal = lp.optimal && rejected == nil }()
	for it := range maxPivots {
		if stop != nil && it%16 == 15 && stop() {
			break
		}
		if lp.lu != nil && lp.lu.stale() {
			lp.refactor(stop) // sparse: never stopped; it may restart
			refresh()
		}
		bland := degenerate >= blandAfter
		if (bland || it%dualRefresh == 0) && !fresh {
			refresh()
		}
		enter, found := lp.entering(y, bland, rejected, cached)
		if !found && !fresh {
			refresh()
			enter, found = lp.entering(y, bland, rejected, cached)
		}
		none, rc := !found, 0.0 // none: no variable prices out (on fresh duals where it is read)
		if found {
			lp.column(enter, d)
			// The entering column's reduced cost from B⁻¹a (O(M)):
			// duals updated since the last refresh may have chosen a
			// column that no longer prices out, and pivoting it in raised
			// the objective: random-m200-seed1 on 50 hosts then spent its
			// 50·M pivots in every round from the 8th to the 34th, its LP
			// stuck 40 % above the optimum. Fresh duals that disagree
			// with it by round-off end the solve as optimal (the bound is
			// Farley's and does not rest on it).
			rc = lp.reducedCost(enter, d)
			if none = rc >= lp.tolerance(); none && !fresh {
				refresh()
				continue
			}
		}
		if none {
			if lp.wake(y) {
				continue
			}
			lp.optimal = true
			break
		}
		largest := largestAbs(d)
		r, theta := lp.ratioTest(d, largest, bland)
		if r < 0 {
			// Every element of B⁻¹a that could leave is round-off (costs
			// ≥ 0 rule out a true ray): pivoting on one would make B
			// singular. The variable sits out the rest of this solve, and
			// the solve cannot claim to be optimal.
			if rejected == nil {
				rejected = map[int]bool{}
			}
			rejected[enter] = true
			continue
		}
		if lp.doubtful(r, d, largest) {
			// B⁻¹ afresh first, then the choice again. A refactorisation
			// stop cut short ends the solve: trying again would only ask
			// stop again.
			if !lp.refactor(stop) {
				break
			}
			refresh()
			continue
		}
		if theta <= 1e-12 {
			degenerate++
			lp.stalls++
		} else {
			degenerate = 0
		}
		left := lp.basis[r]
		lp.pivot(r, enter, theta, d)
		row := lp.row(r)
		floats.AddScaled(y, rc, row)
		cached = lp.devex(row, enter, left, d[r], y)
		lp.pivots++
		lp.work++
		fresh = false
	}
	if lp.optimal && rejected == nil {
		lp.settle(y)
	}
	return lp.objective()
}

// Idle columns. Column generation's master LP gathers columns by the
// thousand (random-m200-seed2 on 50 hosts: 2,240 of 29 jobs on average
// after 15,000 work units), and a pivot passes over all of them (devex;
// entering reads what it leaves), a pass growing with the columns where
// the rest of a pivot does not (23 µs of a pivot's 85 µs over
// BenchmarkMasterLP's 856 columns), while most of them, once the LP has
// moved past them, never enter again. A column other than the singletons
// that has ended idleAfter optimal solves nonbasic with a positive
// reduced cost, none otherwise between, goes idle: the passes leave it
// out (at that run's end, 1,813 of the 2,240, 87 % of the non-zeros).
// It is still the master's (the dives, the
// branch and the next run see every column), and an LP that no active
// column improves is only declared optimal once no idle column prices out
// either (wake), so lp.optimal still means optimal over every column, and
// a column pricing finds again is not entered twice (addPhase), idle or
// not. Bland's rule takes the least-indexed active variable: the idle set
// stays fixed between two wakes, so it cannot cycle either.
const idleAfter = 8

// settle ages the active nonbasic columns after an optimal solve, at its
// duals y: a positive reduced cost adds a solve, any other starts the count
// again; a column idleAfter solves old goes idle.
func (lp *coverLP) settle(y []float64) {
	if lp.age == nil {
		return
	}
	basic := make([]bool, len(lp.cols))
	for _, b := range lp.basis {
		if b >= 0 {
			basic[b] = true
		}
	}
	for c := lp.m; c < len(lp.cols); c++ { // the singletons stay: restart makes them basic
		if lp.idle[c] {
			continue
		}
		if basic[c] || lp.reducedCostOf(c, y) <= 0 {
			lp.age[c] = 0
			continue
		}
		if lp.age[c]++; lp.age[c] >= idleAfter {
			lp.idle[c] = true
			lp.idleNZ += len(lp.cols[c])
		}
	}
}

// wake makes active again the idle columns that price out at duals y, with
// Devex weight 1, and reports whether there were any.
func (lp *coverLP) wake(y []float64) bool {
	woke := false
	tol := lp.tolerance()
	for c, idle := range lp.idle {
		if idle && lp.reducedCostOf(c, y) < tol {
			lp.idle[c], lp.age[c], lp.wCol[c] = false, 0, 1
			lp.idleNZ -= len(lp.cols[c])
			woke = true
		}
	}
	return woke
}

// dualRefresh is how many pivots solve updates the duals before computing
// them afresh; blandAfter is how many degenerate pivots in a row switch it to
// Bland's rule; pivotTol is the least pivot element the ratio test takes.
const (
	pivotTol    = 1e-9
	dualRefresh = 8
	blandAfter  = 20
)

// pivotRel is the least pivot element relative to the largest in B⁻¹a
// (absolute values); a pivot below pivotCheck times the largest is taken
// only on a B⁻¹ computed afresh, or on one whose row vouches for it
// (doubtful).
const (
	pivotRel   = 1e-7
	pivotCheck = 1e-5
)

// doubtful reports whether pivot d[r] (largest: the largest |element| of
// d) may be round-off of B⁻¹'s updates: B⁻¹ has been updated since it was
// computed afresh, the pivot is small beside d's largest element, and
// pivotError does not vouch for it.
func (lp *coverLP) doubtful(r int, d []float64, largest float64) bool {
	return lp.pivots > 0 && d[r] < pivotCheck*largest && lp.pivotError(r, d) > pivotTrust*d[r]
}

// pivotError estimates, to first order, how far d[r], row r of B⁻¹ times
// the entering column, lies from its exact value: if that row r̃ of the
// updated B⁻¹ has r̃·B = e_r + ε, then r̃·a = (B⁻¹a)_r + ε·B⁻¹a, so the
// error is about Σ|ε_k·d_k|. It costs a pass over B's entries, where a
// dense refactor costs O(M³): on the ill-conditioned bases of 1,000 jobs
// with a dense B⁻¹ small pivots came every few dozen pivots, and
// refactoring before each took most of a solve's time.
func (lp *coverLP) pivotError(r int, d []float64) float64 {
	row := lp.row(r)
	var e float64
	for k, b := range lp.basis {
		var v float64
		lp.entries(b, func(j int, a float64) { v += a * row[j] })
		if k == r {
			v--
		}
		e += math.Abs(v * d[k])
	}
	return e
}

// pivotTrust is the largest error, relative to the pivot element, that
// pivotError may show for a small pivot to be taken on an updated B⁻¹.
const pivotTrust = 1e-6

// feasTol is how far below 0 a basic value may lie and still count as
// feasible: a warm start's, and the LP's own basic solution's (primal).
const feasTol = 1e-7

// column sets d to B⁻¹a for variable enter (a column, surplus or transfer).
// Each d_k is a sum along row k of B⁻¹, which is stored by rows: summing
// row by row, rather than adding a's entries one at a time to all of d,
// reads B⁻¹ along its rows, in the same order of additions. Rows are
// shared out among goroutines as pivot shares its update, with the same
// result bit for bit.
func (lp *coverLP) column(enter int, d []float64) {
	lp.colJobs, lp.colVals = lp.colJobs[:0], lp.colVals[:0]
	lp.entries(enter, func(j int, a float64) {
		lp.colJobs = append(lp.colJobs, j)
		lp.colVals = append(lp.colVals, a)
	})
	js, as := lp.colJobs, lp.colVals
	if lp.lu != nil {
		lp.lu.ftran(js, as, d)
		return
	}
	lp.share(len(d), len(js)*len(d), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			row := lp.binv[k]
			var s float64
			for i, j := range js {
				s += as[i] * row[j]
			}
			d[k] = s
		}
	})
}

// share calls f(i, lo, hi) on [0, n) cut into at most lp.workers
// consecutive pieces [lo, hi), piece i on a goroutine of its own, when the
// call does at least parallelAt (0: parallelPivot) units of work, else
// f(0, 0, n). Its users write each piece's results apart and combine them
// in order, so the result is the same bit for bit on any number of
// workers.
func (lp *coverLP) share(n, work int, f func(i, lo, hi int)) {
	if lp.workers < 2 || work < cmp.Or(lp.parallelAt, parallelPivot) {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + lp.workers - 1) / lp.workers
	for lo := per; lo < n; lo += per {
		wg.Add(1)
		go func(lo int) {
			defer wg.Done()
			f(lo/per, lo, min(lo+per, n))
		}(lo)
	}
	f(0, 0, min(per, n))
	wg.Wait()
}

// entries calls f(j, a_j) for each non-zero entry of variable v's column in
// the LP's matrix: 1 in each job of a column, 1 and −1 in a transfer's two
// rows, −1 in a surplus's. column, inverse and pivotError read B through it.
func (lp *coverLP) entries(v int, f func(j int, a float64)) {
	switch t := lp.transfer(v); {
	case v >= 0:
		for _, j := range lp.cols[v] {
			f(j, 1)
		}
	case t >= 0:
		f(lp.trans[t][0], 1)
		f(lp.trans[t][1], -1)
	default:
		f(-1-v, -1)
	}
}

// largestAbs is the largest |v| in d.
func largestAbs(d []float64) float64 {
	m := 0.0
	for _, v := range d {
		m = max(m, math.Abs(v))
	}
	return m
}

// ratioTest chooses the row that leaves when a variable with B⁻¹a = d
// (largest: its largest |element|) enters, and the step θ; r < 0 if no
// element of d is a safe pivot. Only elements above pivotTol, and above
// pivotRel times largest, may be pivots: a pivot on 1.05e-9 beside elements of 1.8e3 (1,000 jobs on
// 200 hosts) made the basis singular, and B⁻¹'s updates then carried
// round-off, the LP's value 3.5 million where it was 15,000. Of tied rows
// the one with the largest element leaves; under Bland's rule the one of
// least order, which rules out cycling among the safe pivots.
func (lp *coverLP) ratioTest(d []float64, largest float64, bland bool) (r int, theta float64) {
	tol := max(pivotTol, pivotRel*largest)
	r, theta = -1, math.Inf(1)
	for k, dk := range d {
		if dk <= tol {
			continue
		}
		t := max(lp.xb[k], 0) / dk
		switch {
		case t < theta-1e-12:
			r, theta = k, t
		case t > theta+1e-12:
		case bland && lp.order(lp.basis[k]) < lp.order(lp.basis[r]):
			r, theta = k, t
		case !bland && dk > d[r]:
			r, theta = k, t
		}
	}
	return r, theta
}

// entering is the variable (column c, surplus −1−j, or transfer −1−m−t)
// that prices out (reduced cost below the tolerance) with the largest
// rc²/w, w its Devex weight, and whether one prices out; with bland, the
// first in order (columns, then surpluses, then transfers) that prices out.
//
// Without bland the columns, the bulk of the work at 1,000 jobs, are priced
// in pieces (share); each piece keeps its first best, and the pieces'
// best are compared in order, so the choice is the one pricing them one
// after another makes (for scores that are not NaN, which the Devex reset
// keeps finite).
func (lp *coverLP) entering(y []float64, bland bool, rejected map[int]bool, cached bool) (enter int, found bool) {
	tol := lp.tolerance()
	var p pick
	var rcs []float64 // the columns' reduced costs at y, if devex kept them
	if cached {
		rcs = lp.rcNext
	}
	if !bland {
		pieces := slices.Grow(lp.pieces[:0], max(lp.workers, 1))[:max(lp.workers, 1)]
		clear(pieces)
		lp.pieces = pieces
		lp.share(len(lp.cols), lp.colNZ-lp.idleNZ, func(i, lo, hi int) {
			q := &pieces[i]
			for c := lo; c < hi; c++ {
				if lp.skip(c) {
					continue
				}
				q.offer(lp, c, lp.rcAt(c, y, rcs), lp.wCol[c], tol, rejected)
			}
		})
		for _, q := range pieces {
			if q.found && (!p.found || q.best > p.best) {
				p = q
			}
		}
	} else {
		for c := range lp.cols {
			if lp.skip(c) {
				continue
			}
			if p.offer(lp, c, lp.rcAt(c, y, rcs), lp.wCol[c], tol, rejected) {
				return p.enter, true
			}
		}
	}
	for j := range lp.m { // surplus of job j: reduced cost y_j
		if p.offer(lp, -1-j, y[j], lp.wSur[j], tol, rejected) && bland {
			return p.enter, true
		}
	}
	for t, tr := range lp.trans { // transfer: reduced cost y_j − y_i
		if lp.banTr != nil && lp.banTr[t] {
			continue
		}
		if p.offer(lp, -1-lp.m-t, y[tr[1]]-y[tr[0]], lp.wTr[t], tol, rejected) && bland {
			return p.enter, true
		}
	}
	return p.enter, p.found
}

// reducedCostOf is column c's reduced cost at duals y.
func (lp *coverLP) reducedCostOf(c int, y []float64) float64 {
	rc := lp.cost[c]
	for _, j := range lp.cols[c] {
		rc -= y[j]
	}
	return rc
}

// rcAt is column c's reduced cost at duals y: rcs[c] where rcs holds them
// (devex's rcNext), else summed.
func (lp *coverLP) rcAt(c int, y, rcs []float64) float64 {
	if rcs != nil {
		return rcs[c]
	}
	return lp.reducedCostOf(c, y)
}

// pick is entering's choice so far: the variable with the best score
// rc²/w, the first of equal ones.
type pick struct {
	enter int
	best  float64
	found bool
}

// offer considers variable v of reduced cost rc and Devex weight w, and
// reports whether it prices out (below tol, and not rejected).
func (p *pick) offer(lp *coverLP, v int, rc, w, tol float64, rejected map[int]bool) bool {
	if rc >= tol || rejected[v] {
		return false
	}
	if lp.dantzig {
		w = -rc // rc²/w = −rc: the most negative reduced cost
	}
	if score := rc * rc / w; !p.found || score > p.best {
		p.enter, p.best, p.found = v, score, true
	}
	return true
}

// resetWeights sets every Devex weight to 1: the reference framework is
// the nonbasic variables as a solve starts.
func (lp *coverLP) resetWeights() {
	fill := func(w []float64, n int) []float64 {
		w = slices.Grow(w[:0], n)[:n]
		for i := range w {
			w[i] = 1
		}
		return w
	}
	lp.wCol, lp.wSur, lp.wTr = fill(lp.wCol, len(lp.cols)), fill(lp.wSur, lp.m), fill(lp.wTr, len(lp.trans))
}

// devex updates the reference weights after a pivot in which variable enter
// replaced left with pivot element alpha, row being the new B⁻¹'s pivot row
// (Forrest and Goldfarb's Devex): each variable's weight approximates the
// squared norm of its edge direction, so entering picks the steepest edge
// rather than the largest reduced cost. B⁻¹'s new row r is the old one over
// alpha, so its product with a column is that column's ratio α_rj/α_rq. The
// update costs a pass over the columns' jobs, O(nonzeros), beside B⁻¹'s
// update; column generation's LPs took a third to a half fewer pivots than
// with the largest reduced cost (TestDevexAgainstDantzig; 1,000 jobs on 200
// hosts, 8 rounds: 8,519 pivots against 18,741).
//
// The same pass stores each column's reduced cost at y, the duals after the
// pivot, in rcNext, summed as reducedCostOf sums it, so the next entering
// reads it instead of passing over the columns again: the same choices bit
// for bit, one pass a pivot where there were two (pprof at 200 jobs on 9
// hosts put the two at about a quarter of the samples). It reports whether
// it did: a reset of the weights skips the pass.
func (lp *coverLP) devex(row []float64, enter, left int, alpha float64, y []float64) bool {
	wq := lp.weight(enter)
	if !(wq <= devexReset) { // NaN too
		lp.resetWeights()
		return false
	}
	if len(lp.rcNext) < len(lp.cols) {
		lp.rcNext = slices.Grow(lp.rcNext[:0], len(lp.cols))[:len(lp.cols)]
	}
	lp.share(len(lp.cols), lp.colNZ-lp.idleNZ, func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			if lp.skip(c) {
				continue
			}
			var a float64
			rc := lp.cost[c] // as reducedCostOf sums it
			for _, j := range lp.cols[c] {
				a += row[j]
				rc -= y[j]
			}
			lp.rcNext[c] = rc
			lp.wCol[c] = max(lp.wCol[c], a*a*wq)
		}
	})
	for j := range lp.m {
		lp.wSur[j] = max(lp.wSur[j], row[j]*row[j]*wq)
	}
	for t, tr := range lp.trans {
		a := row[tr[0]] - row[tr[1]]
		lp.wTr[t] = max(lp.wTr[t], a*a*wq)
	}
	*lp.weightOf(left) = max(wq/(alpha*alpha), 1)
	return true
}

// devexReset is the entering weight past which devex starts the reference
// framework afresh. The weights only grow, by (α_rj/α_rq)² a pivot: in
// column generation's own solves they passed 1e20 at 200 jobs on 50 hosts,
// and a solve from the singletons over 80 rounds' columns overflowed them to
// Inf, then NaN (0·Inf), which silently turned every choice into the first
// variable that prices out. The cap is only there to keep them finite: a
// reset at 1e6 made all five 200-job plans on 9 hosts longer at fixed work
// (by 0.5–1.1 %), whatever it did for pivots.
const devexReset = 1e100

// weight is variable v's Devex weight.
func (lp *coverLP) weight(v int) float64 { return *lp.weightOf(v) }

func (lp *coverLP) weightOf(v int) *float64 {
	switch {
	case v >= 0:
		return &lp.wCol[v]
	case lp.transfer(v) >= 0:
		return &lp.wTr[lp.transfer(v)]
	}
	return &lp.wSur[-1-v]
}

// transfer is the index in trans of variable v, or −1 if v is not one.
func (lp *coverLP) transfer(v int) int {
	if v >= -lp.m {
		return -1
	}
	return -1 - lp.m - v
}

// order numbers the variables for Bland's rule: columns by index, then the
// surplus −1−j of job j after them, then the transfers.
func (lp *coverLP) order(v int) int {
	if v >= 0 {
		return v
	}
	return len(lp.cols) - 1 - v
}

func (lp *coverLP) pivot(r, enter int, theta float64, d []float64) {
	t1 := lp.x1[r] / d[r]
	for k := range lp.xb {
		lp.xb[k] -= theta * d[k]
		lp.x1[k] -= t1 * d[k]
	}
	lp.xb[r], lp.x1[r] = theta, t1
	lp.basis[r] = enter
	if lp.lu != nil {
		lp.lu.update(r, d)
		return
	}
	row := lp.binv[r]
	inv := 1 / d[r]
	for i := range row {
		row[i] *= inv
	}
	lp.nz = lp.nz[:0]
	for k, dk := range d {
		if k != r && dk != 0 {
			lp.nz = append(lp.nz, k)
		}
	}
	// Each row of B⁻¹ is updated on its own, from the pivot row alone, so
	// the rows can be shared out.
	lp.share(len(lp.nz), len(lp.nz)*len(row), func(_, lo, hi int) {
		for _, k := range lp.nz[lo:hi] {
			floats.AddScaled(lp.binv[k], -d[k], row) // gonum's assembly: the dense LP's hot loop
		}
	})
}

// parallelPivot is the least work (B⁻¹ entries a pivot updates, column
// reads or inverse's elimination step may update, column non-zeros
// entering prices or devex weighs) for share to split it among goroutines:
// at 1,000 jobs the columns hold a few hundred thousand (and a dense B⁻¹
// a million entries), at 200 jobs tens of thousands, where the goroutines
// would cost more than they save.
const parallelPivot = 100_000

// refactor computes B⁻¹ and the basic values afresh from the basis (factorise:
// Gauss–Jordan elimination with partial pivoting for a dense B⁻¹, factorLU for
// sparse factors). Thousands of product-form updates across rounds let B⁻¹
// drift: the LP's value then rose between rounds (which adding columns cannot
// do) and duals off by round-off priced out columns that did not improve it,
// round after round (30 jobs on 9 hosts, random-m30-seed3: 1,000 rounds at one
// value). A basis found singular (which exact arithmetic never gives: a pivot
// on round-off made it so) is dropped for the singletons (restart). Solve
// calls it, with sparse factors, once their etas are stale (basisLU.stale),
// and with a dense B⁻¹ once M/4 pivots have passed since the last time: its
// O(M³) then costs about four times what those pivots cost (O(M²) each), where
// inverting before every solve took a quarter of the time at M = 200 (12 ms a
// call against 44 ms a round), and waiting M pivots let random-m30-seed3 end
// 0.9 % above its bound instead of 0.3 %.
//
// stop, if not nil, is asked every 8 columns of a dense elimination (O(M³) in
// all; sparse factors take milliseconds and do not ask it); a refactorisation
// it stops leaves B⁻¹ as it was, and the next solve tries again. It reports
// whether B⁻¹ is new.
func (lp *coverLP) refactor(stop func() bool) bool {
	f, singular := lp.factorise(lp.basis, stop)
	if singular {
		lp.restart()
		return true
	}
	if f.none() {
		return false
	}
	lp.install(f, lp.basicValues(f))
	return true
}

// factors is B⁻¹ computed afresh: dense (inv) or sparse (lu), as the LP
// keeps it.
type factors struct {
	inv [][]float64
	lu  *basisLU
}

// none reports that f holds no B⁻¹ (factorise was stopped, or found B
// singular).
func (f factors) none() bool { return f.inv == nil && f.lu == nil }

// factorise computes B⁻¹ for basis as the LP keeps it: inverse's dense
// inverse, or factorLU's factors (which stop does not interrupt: they take
// milliseconds where inverse takes seconds). None if stop ended it or the
// basis is singular (singular then true).
func (lp *coverLP) factorise(basis []int, stop func() bool) (f factors, singular bool) {
	if lp.lu == nil {
		f.inv, singular = lp.inverse(basis, stop)
		return f, singular
	}
	lu, ok := factorLU(lp.m, func(k int, g func(j int, a float64)) { lp.entries(basis[k], g) })
	if !ok {
		return f, true
	}
	f.lu = lu
	lp.factorised++
	return f, false
}

// times is B⁻¹·v for f = B⁻¹, v dense; the dense inverse row by row.
func (f factors) times(v []float64) []float64 {
	x := make([]float64, len(v))
	if f.lu != nil {
		js := make([]int, 0, len(v))
		as := make([]float64, 0, len(v))
		for j, a := range v {
			if a != 0 {
				js, as = append(js, j), append(as, a)
			}
		}
		f.lu.ftran(js, as, x)
		return x
	}
	for k, row := range f.inv {
		x[k] = floats.Dot(row, v)
	}
	return x
}

// inverse computes the inverse of basis's matrix (see refactor), without
// changing the LP: nil if stop ended it, or if the basis is singular
// (singular then true).
func (lp *coverLP) inverse(basis []int, stop func() bool) (inv [][]float64, singular bool) {
	m := lp.m
	a := make([][]float64, m) // [B | I], row by job
	for j := range a {
		a[j] = make([]float64, 2*m)
		a[j][m+j] = 1
	}
	for k, b := range basis {
		lp.entries(b, func(j int, v float64) { a[j][k] = v })
	}
	for c := range m {
		if stop != nil && c%8 == 7 && stop() {
			return nil, false
		}
		p := c
		for r := c + 1; r < m; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, true
		}
		a[c], a[p] = a[p], a[c]
		inv := 1 / a[c][c]
		for i := c; i < 2*m; i++ {
			a[c][i] *= inv
		}
		lp.share(m, m*(2*m-c), func(_, lo, hi int) { // rows apart: the same bit for bit
			for r := lo; r < hi; r++ {
				if f := a[r][c]; r != c && f != 0 {
					floats.AddScaled(a[r][c:], -f, a[c][c:])
				}
			}
		})
	}
	inv = make([][]float64, m)
	for k := range a {
		inv[k] = a[k][m:]
	}
	return inv, false
}

// restart makes the singletons the basis again (B = I, λ = 1), which is
// always feasible: a singular basis has no B⁻¹ to go on from, and the one
// the updates carry then is round-off. A job a dive covered (done) has its
// surplus instead, at 0: its singleton is banned.
func (lp *coverLP) restart() {
	for j := range lp.m {
		lp.basis[j] = j
		lp.xb[j], lp.x1[j] = lp.rhs[j], 1
		if lp.done != nil && lp.done[j] {
			lp.basis[j] = -1 - j
			lp.xb[j], lp.x1[j] = 0, 0
		}
		if lp.lu == nil {
			clear(lp.binv[j])
			lp.binv[j][j] = 1
			if lp.basis[j] < 0 {
				lp.binv[j][j] = -1
			}
		}
	}
	if lp.lu != nil {
		f, _ := lp.factorise(lp.basis, nil) // ±I: never singular
		lp.lu = f.lu
	}
	lp.pivots = 0
}

// basicValues is B⁻¹·rhs for f = B⁻¹: the perturbed LP's basic values,
// before install clamps round-off below 0.
func (lp *coverLP) basicValues(f factors) []float64 { return f.times(lp.rhs) }

// install makes f the LP's B⁻¹ and x its perturbed basic values.
func (lp *coverLP) install(f factors, x []float64) {
	lp.pivots = 0
	if f.lu != nil {
		lp.lu = f.lu
		for k := range x {
			lp.xb[k] = max(x[k], 0)
		}
		copy(lp.x1, f.times(lp.ones()))
		return
	}
	for k, row := range f.inv {
		copy(lp.binv[k], row)
		lp.xb[k] = max(x[k], 0)
		if lp.unit != nil {
			lp.x1[k] = floats.Dot(row, lp.unit)
		} else {
			lp.x1[k] = floats.Sum(row)
		}
	}
}

// ones is what each row asks for in the LP itself (unperturbed): unit in
// a dive's LP, else 1 in every row.
func (lp *coverLP) ones() []float64 {
	if lp.unit != nil {
		return lp.unit
	}
	v := make([]float64, lp.m)
	for j := range v {
		v[j] = 1
	}
	return v
}

// row is row r of B⁻¹, which callers only read, and only until the LP's
// next pivot or row call: binv's own row, or with lu one btran into
// rowBuf. With lu, row, duals and column write the LP's scratch: no two
// goroutines may call them on one LP.
func (lp *coverLP) row(r int) []float64 {
	if lp.lu == nil {
		return lp.binv[r]
	}
	c := lp.cbBuf
	clear(c)
	c[r] = 1
	lp.lu.btran(c, lp.rowBuf)
	return lp.rowBuf
}

// perturbation is how much more than 1 job j's row of the LP asks for:
// between 0.5 and 1.5 millionths, spread by a fixed hash of j so that the
// LP is the same on every run. The master LP is highly degenerate: its
// vertices are near-integral plans, most basic values 0, and the ratio test
// meets ties and steps of zero, blandAfter of which in a row send solve to
// Bland's rule, whose pivots move slowly. In the perturbed values the
// pivots follow (xb), ties and zeros are rare. At 1,000 jobs on 200 hosts
// one solve after a run's new columns took 36,759 pivots unperturbed (nine
// in ten steps of zero, half under Bland's rule) and 4,866 perturbed. The
// right-hand side does not enter the dual constraints: duals feasible for
// the perturbed LP are feasible for the LP itself, so pricing and Farley's
// bound hold for the LP itself, and what the LP reports is its own basic
// solution (primal).
func perturbation(j int) float64 {
	h := uint64(j+1) * 0x9E3779B97F4A7C15
	return 1e-6 * (0.5 + float64(h>>11)/(1<<53))
}

// warmStart makes basis (a basic variable per row, numbered as in basis;
// the LP keeps the slice) the LP's, if it is a feasible basis: a run of
// column generation goes on from the last run's optimal basis instead of
// from the singletons, from which the first solve over 2,000 columns took
// 32,000 pivots at M = 1,000. stop, if not nil, may end its
// factorisation (refactor). It reports whether it did; if not,
// the LP is as it was.
func (lp *coverLP) warmStart(basis []int, stop func() bool) bool {
	if len(basis) != lp.m {
		return false
	}
	for _, b := range basis {
		if b >= len(lp.cols) || lp.transfer(b) >= len(lp.trans) {
			return false
		}
	}
	f, _ := lp.factorise(basis, stop)
	if f.none() {
		return false
	}
	x := lp.basicValues(f)
	// Rows ratioTest passes over as round-off still move by θ times their
	// element, so a basis the last run ended on can hold values a little
	// below 0 (−1.7e-9 at 200 jobs on 50 hosts): install clamps those.
	if slices.Min(x) < -feasTol {
		return false // not primal feasible
	}
	lp.basis = basis
	lp.install(f, x)
	return true
}

// primal is the basic solution the LP reports (objective, values): its
// own, B⁻¹·1, if that is feasible to round-off (at an optimal basis it
// nearly always is, and its value is then the LP's optimum), else the
// perturbed one the pivots follow (xb), which covers every job too and
// costs at most about 1.5e-6 of the value more. The slice is the LP's own:
// callers read it only.
func (lp *coverLP) primal() []float64 {
	if slices.Min(lp.x1) < -feasTol {
		return lp.xb
	}
	return lp.x1
}

// objective is the value of the basic solution primal gives: below the
// LP's optimum only by round-off (values down to −feasTol, times their
// columns' costs), so column generation may compare it with a proven
// bound.
func (lp *coverLP) objective() float64 {
	x := lp.primal()
	var z float64
	for k, b := range lp.basis {
		if b >= 0 {
			z += lp.cost[b] * x[k]
		}
	}
	return z
}

// values returns λ per column, from primal, round-off below 0 read as 0.
func (lp *coverLP) values() []float64 {
	x := lp.primal()
	v := make([]float64, len(lp.cols))
	for k, b := range lp.basis {
		if b >= 0 {
			v[b] = max(x[k], 0)
		}
	}
	return v
}

// tolerance is the reduced cost below which a column prices out.
func (lp *coverLP) tolerance() float64 { return -1e-9 * (1 + lp.objective()) }

// reducedCost is the entering variable's reduced cost c_e − c_B·B⁻¹a_e, d
// being B⁻¹a_e (a surplus has cost 0).
func (lp *coverLP) reducedCost(enter int, d []float64) float64 {
	rc := 0.0
	if enter >= 0 {
		rc = lp.cost[enter]
	}
	for k, b := range lp.basis {
		if b >= 0 && d[k] != 0 {
			rc -= lp.cost[b] * d[k]
		}
	}
	return rc
}
