package optimize

import (
	"math"
	"slices"
)

// A sparse LU factorisation of the master LP's basis, for the simplex pivots
// of large job sets. Kept explicitly, B⁻¹ at 1,000 jobs on 200 hosts is dense
// (680,000 of its 1,000,000 entries are not 0): each pivot updates about 920
// of its rows in full, 0.3–0.5 ms, and those updates take 41–49 % of the CPU
// of planning there (pprof). The basis itself is sparse: of its 1,000 columns
// only 122 hold more than two jobs, the others being singletons, surpluses and
// transfers. On that basis (BenchmarkBasisLU) factorLU's factors hold 23,480
// entries and take 6.6–7.4 ms to compute; solving for a column of B⁻¹A (ftran)
// takes 22–25 µs and for a row of B⁻¹ (btran) 8–10 µs. coverLP keeps them in
// place of B⁻¹ from luJobs jobs on.
//
// B's rows are jobs and its columns basis positions (coverLP.basis); its
// entries are 1, −1 and 0. factorLU first takes the pivots elimination
// needs no choice for and that fill nothing in: a column with one entry left
// in the rows not yet pivoted (a column singleton) and a row with one entry
// left in the columns not yet pivoted (a row singleton), until none is
// left; their pivots are ±1. What remains, the bump, is eliminated as
// sparse rows (bump). On the basis above it has 746 rows, yet the factors
// stay sparse: 23,480 entries for B's 18,960.
//
// Pivot k is row prow[k] and column pcol[k], in elimination order.
// Elimination subtracts lval times row prow[k] from each row lidx of
// L's k-th list, and leaves row prow[k] holding piv[k] at pcol[k] and uval
// at the columns uidx of U's k-th list, all pivoted after k: M·B = U′ with
// M the product of the eliminations and U′ upper triangular up to the
// permutations.
//
// Pivots of the simplex after the factorisation are kept as etas (the
// product form): replacing basis position p with a column whose ftran is d
// multiplies B⁻¹ on the left by E, x′_p = x_p/d_p and x′_k = x_k − d_k·x′_p.
type basisLU struct {
	prow, pcol []int
	piv        []float64
	// L's and U's lists, flat: list k is [lstart[k], lstart[k+1]).
	lstart, ustart []int
	lidx, uidx     []int
	lval, uval     []float64
	// etas: eta e replaces position epos[e], d's entry there being
	// ediag[e]; d's other non-zeros are [estart[e], estart[e+1]) of eidx,
	// eval.
	epos, estart []int
	ediag        []float64
	eidx         []int
	eval         []float64
	// w is ftran's scratch over the rows.
	w []float64
	// bumpSize is the order of the bump.
	bumpSize int
}

// luPivotTol is the least a column of the bump must hold, in absolute
// value, in the rows not yet pivoted; below it the basis is singular to
// round-off (B's entries are ±1; coverLP.inverse stops at the same). The
// singletons' pivots are B's own entries, exact.
const luPivotTol = 1e-12

// factorLU factorises the m × m matrix whose column k holds the entries
// that col(k, f) passes to f(j, a): value a in row j, each row at most
// once (as coverLP.entries gives them). It reports false if the matrix is
// singular (to round-off, in the bump).
func factorLU(m int, col func(k int, f func(j int, a float64))) (*basisLU, bool) {
	return factorWith(m, col, (*basisLU).bump)
}

// bumpFunc factorises the bump of lu's matrix, whose columns col gives, on
// rows bRows and columns bCols; false if it is singular.
type bumpFunc func(lu *basisLU, bRows, bCols []int, col func(k int, f func(j int, a float64))) bool

// factorWith is factorLU with bump as the bump's factorisation (the tests
// compare it with a dense one).
func factorWith(m int, col func(k int, f func(j int, a float64)), bump bumpFunc) (*basisLU, bool) {
	cs, rs := newLUSide(m), newLUSide(m) // columns' entries (row, value), rows' (column, value)
	for k := range m {
		col(k, func(j int, a float64) {
			if a != 0 {
				cs.lists[k] = append(cs.lists[k], luEntry{j, a})
				rs.lists[j] = append(rs.lists[j], luEntry{k, a})
			}
		})
	}
	cs.start()
	rs.start()
	lu := &basisLU{lstart: []int{0}, ustart: []int{0}, estart: []int{0}, w: make([]float64, m)}
	for {
		var j, k int
		var a float64
		if x, ok := cs.next(); ok {
			// Column x's one row left: no other row has an entry to
			// eliminate, so L's list is empty and U's is the rest of
			// that row.
			k = x
			j, a = cs.eliminate(rs, k, func(i int, v, _ float64) {
				lu.uidx, lu.uval = append(lu.uidx, i), append(lu.uval, v)
			})
		} else if x, ok := rs.next(); ok {
			// Row x's one column left: the other rows of that column lose
			// their entry in it, and nothing else changes (row x has no
			// other entry to subtract).
			j = x
			k, a = rs.eliminate(cs, j, func(i int, v, a float64) {
				lu.lidx, lu.lval = append(lu.lidx, i), append(lu.lval, v/a)
			})
		} else {
			break
		}
		lu.pivot(j, k, a)
		rs.done[j], cs.done[k] = true, true
	}
	// The bump: rows and columns not yet pivoted, with their entries as
	// given (the singletons' pivots changed none of them).
	bRows, bCols := rs.left(), cs.left()
	lu.bumpSize = len(bRows) // every pivot took a row and a column: as many of each are left
	if !bump(lu, bRows, bCols, func(k int, f func(j int, a float64)) {
		for _, e := range cs.lists[k] {
			f(e.i, e.a)
		}
	}) {
		return nil, false
	}
	return lu, true
}

// luEntry is an entry of a column (i its row) or of a row (i its column).
type luEntry struct {
	i int
	a float64
}

// luSide is factorLU's view of the columns, or of the rows (lines, when it
// does not matter which): each one's entries, whether it is pivoted, how
// many of its entries lie in the other side's lines not yet pivoted
// (count), and the lines whose count has come to 1 (queue, in the order
// they did).
type luSide struct {
	lists [][]luEntry
	done  []bool
	count []int
	queue []int
}

// newLUSide is an empty side of m lines.
func newLUSide(m int) *luSide {
	return &luSide{lists: make([][]luEntry, m), done: make([]bool, m), count: make([]int, m)}
}

// start counts each line's entries and queues the singletons.
func (s *luSide) start() {
	for x, l := range s.lists {
		if s.count[x] = len(l); s.count[x] == 1 {
			s.queue = append(s.queue, x)
		}
	}
}

// next takes from the queue the next line that is still a singleton, if
// any (a line queued when its count came to 1 may since have been pivoted,
// or lost its last entry).
func (s *luSide) next() (int, bool) {
	for len(s.queue) > 0 {
		x := s.queue[0]
		s.queue = s.queue[1:]
		if !s.done[x] && s.count[x] == 1 {
			return x, true
		}
	}
	return 0, false
}

// eliminate pivots on singleton x of s: it returns the line y of the other
// side o holding x's one entry left, and its value a; each other entry of
// line y in a line i of s not yet pivoted goes to emit(i, value, a), and
// line i, which loses it, may become a singleton.
func (s *luSide) eliminate(o *luSide, x int, emit func(i int, v, a float64)) (y int, a float64) {
	for _, e := range s.lists[x] {
		if !o.done[e.i] {
			y, a = e.i, e.a
		}
	}
	for _, e := range o.lists[y] {
		if e.i != x && !s.done[e.i] {
			emit(e.i, e.a, a)
			if s.count[e.i]--; s.count[e.i] == 1 {
				s.queue = append(s.queue, e.i)
			}
		}
	}
	return y, a
}

// left is the lines not yet pivoted, in order.
func (s *luSide) left() []int {
	var out []int
	for x, d := range s.done {
		if !d {
			out = append(out, x)
		}
	}
	return out
}

// pivot appends pivot (row j, column k, value a), closing its L and U
// lists.
func (lu *basisLU) pivot(j, k int, a float64) {
	lu.prow, lu.pcol, lu.piv = append(lu.prow, j), append(lu.pcol, k), append(lu.piv, a)
	lu.lstart, lu.ustart = append(lu.lstart, len(lu.lidx)), append(lu.ustart, len(lu.uidx))
}

// bump factorises the submatrix of rows bRows and columns bCols (the rows'
// entries in other columns having been eliminated), appending its pivots to
// lu. It is a Markowitz-style elimination with threshold pivoting: each
// step takes the column with the fewest entries left and, among its entries
// at least luThreshold times its largest in absolute value, the one in the
// shortest row, ties to the lowest index. This fills in little: on BenchmarkBasisLU's basis, a
// dense elimination of its 746 rows with partial pivoting (denseBump, the
// tests' reference) gave 27,983 entries in 12 ms, this one 23,480 in
// 6.6–7.4 ms.
func (lu *basisLU) bump(bRows, bCols []int, col func(k int, f func(j int, a float64))) bool {
	n := len(bRows)
	at := make(map[int]int, n) // row → its index in bRows
	for i, j := range bRows {
		at[j] = i
	}
	b := &luBump{rows: make([][]luEntry, n), colRows: make([][]int, n), count: make([]int, n), work: make([]float64, n), has: make([]bool, n)}
	for c, k := range bCols {
		col(k, func(j int, v float64) {
			if i, ok := at[j]; ok && v != 0 {
				b.rows[i] = append(b.rows[i], luEntry{c, v})
				b.colRows[c] = append(b.colRows[c], i)
				b.count[c]++
			}
		})
	}
	rows := b.rows
	rowUsed, colUsed := make([]bool, n), make([]bool, n)
	for range n {
		c := -1
		for c2, used := range colUsed {
			if !used && (c < 0 || b.count[c2] < b.count[c]) {
				c = c2
			}
		}
		largest := 0.0
		for _, i := range b.colRows[c] {
			if !rowUsed[i] {
				largest = max(largest, math.Abs(valueAt(rows[i], c)))
			}
		}
		if largest <= luPivotTol {
			return false
		}
		p := -1
		for _, i := range b.colRows[c] {
			if !rowUsed[i] && math.Abs(valueAt(rows[i], c)) >= luThreshold*largest &&
				(p < 0 || len(rows[i]) < len(rows[p]) || (len(rows[i]) == len(rows[p]) && i < p)) {
				p = i
			}
		}
		pv := valueAt(rows[p], c)
		rowUsed[p], colUsed[c] = true, true
		for _, i := range b.colRows[c] {
			if f := valueAt(rows[i], c); !rowUsed[i] && f != 0 {
				lu.lidx, lu.lval = append(lu.lidx, bRows[i]), append(lu.lval, f/pv)
				b.subtract(i, p, c, f/pv)
			}
		}
		for _, e := range rows[p] {
			if e.i != c {
				lu.uidx, lu.uval = append(lu.uidx, bCols[e.i]), append(lu.uval, e.a)
			}
			b.count[e.i]--
		}
		lu.pivot(bRows[p], bCols[c], pv)
	}
	return true
}

// luBump is bump's working state: the bump's rows as they are eliminated.
type luBump struct {
	rows    [][]luEntry // row i: (its column's index in bCols, value), no value 0
	colRows [][]int     // the rows that hold, or held, an entry in column c
	count   []int       // the entries of column c in rows not yet pivoted
	work    []float64   // subtract's row, scattered by column
	has     []bool
}

// subtract takes l times row p from row i, dropping column c (the pivot's,
// where row i becomes 0): the columns row i holds keep their order, and
// its fill follows in row p's order.
func (b *luBump) subtract(i, p, c int, l float64) {
	work, has := b.work, b.has
	for _, e := range b.rows[i] {
		work[e.i], has[e.i] = e.a, true
	}
	out := b.rows[i][:0]
	for _, e := range b.rows[i] {
		if e.i != c {
			out = append(out, e)
		}
	}
	for _, e := range b.rows[p] {
		if e.i != c && !has[e.i] {
			work[e.i], has[e.i] = 0, true
			out = append(out, luEntry{e.i, 0})
			b.colRows[e.i] = append(b.colRows[e.i], i)
			b.count[e.i]++
		}
	}
	for _, e := range b.rows[p] {
		if e.i != c {
			work[e.i] -= l * e.a
		}
	}
	// Entries that cancel to 0 leave the row: kept, a later pivot row
	// could carry one into U at a column pivoted before it, which ftran's
	// back substitution would read before writing.
	kept := out[:0]
	for _, e := range out {
		has[e.i] = false
		if v := work[e.i]; v != 0 {
			kept = append(kept, luEntry{e.i, v})
		} else {
			b.count[e.i]--
		}
	}
	has[c] = false
	b.rows[i] = kept
}

// luThreshold is how far below the largest entry of its column an entry
// may be and still be a pivot of the bump (threshold pivoting): sparser
// pivots, at the price of multipliers up to 1/luThreshold: an entry grows
// at most 1 + 1/luThreshold times a step.
const luThreshold = 0.1

// valueAt is the value of row's entry in column c, 0 if none.
func valueAt(row []luEntry, c int) float64 {
	for _, e := range row {
		if e.i == c {
			return e.a
		}
	}
	return 0
}

// entries is the number of entries the factors and etas hold: the work of
// one ftran or btran.
func (lu *basisLU) entries() int { return len(lu.prow) + len(lu.lidx) + len(lu.uidx) + len(lu.eidx) }

// ftran sets x to B⁻¹·a, a being given by its non-zeros (rows js, values
// as); x is indexed by basis position.
func (lu *basisLU) ftran(js []int, as []float64, x []float64) {
	w := lu.w
	clear(w)
	for i, j := range js {
		w[j] += as[i]
	}
	for k, j := range lu.prow {
		if t := w[j]; t != 0 {
			idx, val := lu.lList(k)
			subScaled(w, idx, val, t)
		}
	}
	for k := len(lu.prow) - 1; k >= 0; k-- {
		idx, val := lu.uList(k)
		x[lu.pcol[k]] = lessDot(w[lu.prow[k]], x, idx, val) / lu.piv[k]
	}
	for e, p := range lu.epos {
		t := x[p] / lu.ediag[e]
		idx, val := lu.eta(e)
		subScaled(x, idx, val, t)
		x[p] = t
	}
}

// btran sets y to c·B⁻¹, c being indexed by basis position and y by row;
// it overwrites c.
func (lu *basisLU) btran(c, y []float64) {
	for e := len(lu.epos) - 1; e >= 0; e-- {
		p := lu.epos[e]
		idx, val := lu.eta(e)
		c[p] = lessDot(c[p], c, idx, val) / lu.ediag[e]
	}
	for k, j := range lu.prow {
		z := c[lu.pcol[k]] / lu.piv[k]
		y[j] = z
		if z != 0 {
			idx, val := lu.uList(k)
			subScaled(c, idx, val, z)
		}
	}
	for k := len(lu.prow) - 1; k >= 0; k-- {
		idx, val := lu.lList(k)
		y[lu.prow[k]] = lessDot(y[lu.prow[k]], y, idx, val)
	}
}

// lList is pivot k's L list: the rows below it and their multipliers.
func (lu *basisLU) lList(k int) ([]int, []float64) {
	return lu.lidx[lu.lstart[k]:lu.lstart[k+1]], lu.lval[lu.lstart[k]:lu.lstart[k+1]]
}

// uList is pivot k's U list: the columns after it and their entries.
func (lu *basisLU) uList(k int) ([]int, []float64) {
	return lu.uidx[lu.ustart[k]:lu.ustart[k+1]], lu.uval[lu.ustart[k]:lu.ustart[k+1]]
}

// eta is eta e's non-zeros but the one at its position.
func (lu *basisLU) eta(e int) ([]int, []float64) {
	return lu.eidx[lu.estart[e]:lu.estart[e+1]], lu.eval[lu.estart[e]:lu.estart[e+1]]
}

// subScaled subtracts t·val[e] from v[idx[e]] for each e.
func subScaled(v []float64, idx []int, val []float64, t float64) {
	for e, i := range idx {
		v[i] -= val[e] * t
	}
}

// lessDot is s − Σ val[e]·v[idx[e]], subtracted in order.
func lessDot(s float64, v []float64, idx []int, val []float64) float64 {
	for e, i := range idx {
		s -= val[e] * v[i]
	}
	return s
}

// update records the pivot that replaces basis position p with the column
// whose ftran (before the pivot) is d, as an eta of d's non-zeros.
func (lu *basisLU) update(p int, d []float64) {
	lu.epos, lu.ediag = append(lu.epos, p), append(lu.ediag, d[p])
	for k, v := range d {
		if v != 0 && k != p {
			lu.eidx, lu.eval = append(lu.eidx, k), append(lu.eval, v)
		}
	}
	lu.estart = append(lu.estart, len(lu.eidx))
}

// clone is a copy of lu whose etas and scratch are its own: the factors,
// which no pivot changes, are shared, and the etas' slices are clipped so
// that an update to either appends to a copy.
func (lu *basisLU) clone() *basisLU {
	c := *lu
	c.epos, c.estart, c.ediag = slices.Clip(lu.epos), slices.Clip(lu.estart), slices.Clip(lu.ediag)
	c.eidx, c.eval = slices.Clip(lu.eidx), slices.Clip(lu.eval)
	c.w = make([]float64, len(lu.w))
	return &c
}

// stale reports whether the etas hold more entries than the factors and
// luStale a row, or are as many as the rows: coverLP then factorises the
// basis again. The count caps the round-off that many sparse etas carry,
// as the dense B⁻¹'s M/4 pivots cap its updates'.
func (lu *basisLU) stale() bool {
	f := len(lu.prow) + len(lu.lidx) + len(lu.uidx)
	return len(lu.eidx)+len(lu.epos) > f+luStale*len(lu.prow) || len(lu.epos) >= len(lu.prow)
}

// luStale: see stale. ftran and btran pass over the factors and the
// etas; a factorisation costs more than its entries (the bump's
// Markowitz search). On BenchmarkMasterLPSparse's 1,000 jobs, with the
// etas capped at twice the factors' entries (no more a row), a third of
// the solves' CPU went to factorising (on bases of singletons the factors
// are tiny); with 60 a row 0.9 s of their 6.8 s (pprof), and 30 or 120 a
// row took 5–20 % longer than 60.
const luStale = 60

// luJobs is the fewest jobs from which coverLP keeps B⁻¹ as sparse factors
// (basisLU) rather than dense. BenchmarkMasterLPSparse, time of the sparse
// solve over the dense one's, two runs: 1.67–1.70 at 200 jobs, 1.04–1.20
// at 400, 0.87–0.89 at 600, 0.42–0.47 at 1,000.
const luJobs = 600
