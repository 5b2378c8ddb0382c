package optimize

import "math"

// coverLP is the restricted master problem of column generation, the LP
// relaxation of set covering over the columns found so far:
//
//	minimise Σ_c cost_c·λ_c  subject to  Σ_{c ∋ j} λ_c ≥ 1 for every job j,  λ ≥ 0.
//
// It is solved by a revised simplex with an explicit dense basis inverse
// (M × M): columns arrive one at a time and the primal stays feasible, so
// every solve starts from the last basis (a warm start), and a pivot costs
// O(M²) whatever the number of columns. gonum's optimize/convex/lp.Simplex
// starts from scratch on a dense A each call, factorises the basis every
// pivot and returns no duals, which column generation needs; at M = 200 with a
// thousand columns it was far slower than this. Its answer's correctness does
// not rest on this LP being solved exactly: the bound Columns reports is
// Farley's, valid for any duals (see Columns).
type coverLP struct {
	m     int
	cols  [][]int // jobs of each column; column j < m is job j alone
	cost  []float64
	binv  [][]float64 // basis inverse
	basis []int       // basic variable per row: column index, or −1−j for job j's surplus
	xb    []float64
}

// newCoverLP starts with the M singleton columns as the basis (B = I, λ = 1).
func newCoverLP(single []float64) *coverLP {
	m := len(single)
	lp := &coverLP{m: m, binv: make([][]float64, m), basis: make([]int, m), xb: make([]float64, m)}
	for j := range m {
		lp.cols = append(lp.cols, []int{j})
		lp.cost = append(lp.cost, single[j])
		lp.binv[j] = make([]float64, m)
		lp.binv[j][j] = 1
		lp.basis[j] = j
		lp.xb[j] = 1
	}
	return lp
}

func (lp *coverLP) add(jobs []int, cost float64) {
	lp.cols = append(lp.cols, jobs)
	lp.cost = append(lp.cost, cost)
}

// duals returns y = c_B·B⁻¹, the price of covering each job.
func (lp *coverLP) duals() []float64 {
	y := make([]float64, lp.m)
	for k, b := range lp.basis {
		cb := 0.0
		if b >= 0 {
			cb = lp.cost[b]
		}
		if cb == 0 {
			continue
		}
		for i, v := range lp.binv[k] {
			y[i] += cb * v
		}
	}
	return y
}

// solve pivots (Dantzig's rule) until no column prices out, maxPivots
// pivots, or stop (if not nil, asked every 16 pivots) says so; it returns the
// objective.
//
// The duals are updated after each pivot, y += rc·(B⁻¹'s new row r), O(M),
// and computed afresh (O(M²)) every dualRefresh pivots and before the solve
// ends: updating alone drifted from B⁻¹ after small pivots and once drove
// the objective up tenfold (M = 200 on 50 hosts, seed 3). Stale duals only
// choose which column enters; the ratio test uses B⁻¹, and no column pricing
// out is decided on fresh duals.
func (lp *coverLP) solve(maxPivots int, stop func() bool) float64 {
	d := make([]float64, lp.m)
	y, fresh := lp.duals(), true
	for it := range maxPivots {
		if stop != nil && it%16 == 15 && stop() {
			break
		}
		if it%dualRefresh == 0 && !fresh {
			y, fresh = lp.duals(), true
		}
		enter, best, found := lp.entering(y)
		if !found && !fresh {
			y, fresh = lp.duals(), true
			enter, best, found = lp.entering(y)
		}
		if !found {
			break
		}
		for k := range d {
			d[k] = 0
		}
		if enter >= 0 {
			for _, j := range lp.cols[enter] {
				for k := range d {
					d[k] += lp.binv[k][j]
				}
			}
		} else {
			for k := range d {
				d[k] = -lp.binv[k][-1-enter]
			}
		}
		r, theta := -1, math.Inf(1)
		for k, dk := range d {
			if dk > 1e-11 {
				if t := lp.xb[k] / dk; t < theta-1e-12 {
					r, theta = k, t
				}
			}
		}
		if r < 0 {
			break // unbounded: cannot happen with costs ≥ 0
		}
		lp.pivot(r, enter, theta, d)
		for i, v := range lp.binv[r] {
			y[i] += best * v
		}
		fresh = false
	}
	return lp.objective()
}

// dualRefresh is how many pivots solve updates the duals before computing
// them afresh.
const dualRefresh = 8

// entering is the column (or surplus −1−j) with the most negative reduced
// cost under y, that reduced cost, and whether one prices out.
func (lp *coverLP) entering(y []float64) (enter int, best float64, found bool) {
	best = -1e-9 * (1 + lp.objective())
	for c, jobs := range lp.cols {
		rc := lp.cost[c]
		for _, j := range jobs {
			rc -= y[j]
		}
		if rc < best {
			enter, best, found = c, rc, true
		}
	}
	for j := range lp.m { // surplus of job j: reduced cost y_j
		if y[j] < best {
			enter, best, found = -1-j, y[j], true
		}
	}
	return enter, best, found
}

func (lp *coverLP) pivot(r, enter int, theta float64, d []float64) {
	for k := range lp.xb {
		lp.xb[k] -= theta * d[k]
	}
	lp.xb[r] = theta
	lp.basis[r] = enter
	row := lp.binv[r]
	inv := 1 / d[r]
	for i := range row {
		row[i] *= inv
	}
	for k, dk := range d {
		if k == r || dk == 0 {
			continue
		}
		rk := lp.binv[k]
		for i, v := range row {
			rk[i] -= dk * v
		}
	}
}

func (lp *coverLP) objective() float64 {
	var z float64
	for k, b := range lp.basis {
		if b >= 0 {
			z += lp.cost[b] * lp.xb[k]
		}
	}
	return z
}

// values returns λ per column.
func (lp *coverLP) values() []float64 {
	v := make([]float64, len(lp.cols))
	for k, b := range lp.basis {
		if b >= 0 {
			v[b] = lp.xb[k]
		}
	}
	return v
}
