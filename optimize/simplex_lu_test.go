package optimize

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/packer-sched/packer/model"
)

// luBasis is a test basis shaped as the master LP's: column k holds the
// rows and values of basis position k.
type luBasis struct {
	m    int
	cols [][]luEntry
}

// col passes column k's entries to f, as factorLU asks.
func (b *luBasis) col(k int, f func(j int, a float64)) {
	for _, e := range b.cols[k] {
		f(e.i, e.a)
	}
}

// dense is b as a gonum matrix.
func (b *luBasis) dense() *mat.Dense {
	d := mat.NewDense(b.m, b.m, nil)
	for k := range b.m {
		b.col(k, func(j int, a float64) { d.Set(j, k, a) })
	}
	return d
}

// randomLPColumn is a column the master LP could hold: a phase of 1 to 60
// jobs, a transfer (1 and −1) or a surplus (−1).
func randomLPColumn(rng *rand.Rand, m int) []luEntry {
	switch rng.IntN(3) {
	case 0:
		if m < 2 {
			return []luEntry{{0, -1}}
		}
		i, j := rng.IntN(m), rng.IntN(m-1)
		if j >= i {
			j++
		}
		return []luEntry{{i, 1}, {j, -1}}
	case 1:
		return []luEntry{{rng.IntN(m), -1}}
	}
	var out []luEntry
	for _, j := range rng.Perm(m)[:1+rng.IntN(min(m, 60))] {
		out = append(out, luEntry{j, 1})
	}
	return out
}

// denseInverse is the reference: gonum's inverse of b, nil if singular.
func denseInverse(b *luBasis) *mat.Dense {
	var inv mat.Dense
	if err := inv.Inverse(b.dense()); err != nil {
		return nil
	}
	return &inv
}

// pivotBasis replaces random positions of b with random LP columns, as the
// simplex would: only where the reference's B⁻¹a keeps the basis well
// away from singular. If lu is not nil it records each replacement as an
// eta, from its own ftran.
func pivotBasis(t *testing.T, rng *rand.Rand, b *luBasis, n int, lu *basisLU) {
	t.Helper()
	for done := 0; done < n; {
		inv := denseInverse(b)
		if inv == nil {
			t.Fatal("the test basis became singular")
		}
		c := randomLPColumn(rng, b.m)
		a := mat.NewVecDense(b.m, nil)
		var js []int
		var as []float64
		for _, e := range c {
			a.SetVec(e.i, e.a)
			js, as = append(js, e.i), append(as, e.a)
		}
		var d mat.VecDense
		d.MulVec(inv, a)
		p := rng.IntN(b.m)
		if math.Abs(d.AtVec(p)) < 0.05 {
			continue
		}
		if lu != nil {
			x := make([]float64, b.m)
			lu.ftran(js, as, x)
			lu.update(p, x)
		}
		b.cols[p] = c
		done++
	}
}

// checkOrder checks the factors' shape: every row and column pivoted once,
// no pivot 0, each L list in rows and each U list in columns pivoted
// after its own pivot, and no entry 0.
func checkOrder(t *testing.T, lu *basisLU, m int, what string) {
	t.Helper()
	rowAt, colAt := make([]int, m), make([]int, m)
	for j := range rowAt {
		rowAt[j], colAt[j] = -1, -1
	}
	for k := range lu.prow {
		if rowAt[lu.prow[k]] >= 0 || colAt[lu.pcol[k]] >= 0 || lu.piv[k] == 0 {
			t.Fatalf("%s: pivot %d (row %d, column %d, %g) repeats a line or is 0", what, k, lu.prow[k], lu.pcol[k], lu.piv[k])
		}
		rowAt[lu.prow[k]], colAt[lu.pcol[k]] = k, k
	}
	for k := range lu.prow {
		rows, ls := lu.lList(k)
		for e, j := range rows {
			if rowAt[j] <= k || ls[e] == 0 {
				t.Fatalf("%s: pivot %d's L entry in row %d (pivot %d), %g", what, k, j, rowAt[j], ls[e])
			}
		}
		cols, us := lu.uList(k)
		for e, c := range cols {
			if colAt[c] <= k || us[e] == 0 {
				t.Fatalf("%s: pivot %d's U entry in column %d (pivot %d), %g", what, k, c, colAt[c], us[e])
			}
		}
	}
}

// checkSolves compares ftran and btran on random vectors with the reference
// inverse of b.
func checkSolves(t *testing.T, rng *rand.Rand, b *luBasis, lu *basisLU, what string) {
	t.Helper()
	inv := denseInverse(b)
	if inv == nil {
		t.Fatalf("%s: the reference finds the basis singular", what)
	}
	scale, scale1 := mat.Norm(inv, math.Inf(1)), mat.Norm(inv, 1)
	m := b.m
	for trial := range 5 {
		var js []int
		var as []float64
		av := mat.NewVecDense(m, nil)
		for j := range m {
			if rng.IntN(3) == 0 || trial == 0 {
				v := float64(rng.IntN(5) - 2)
				js, as = append(js, j), append(as, v)
				av.SetVec(j, av.AtVec(j)+v)
			}
		}
		x := make([]float64, m)
		for k := range x {
			x[k] = math.NaN() // ftran must write every entry before it reads it
		}
		lu.ftran(js, as, x)
		var want mat.VecDense
		want.MulVec(inv, av)
		for k := range m {
			if math.Abs(x[k]-want.AtVec(k)) > 1e-12*scale*(1+mat.Norm(av, math.Inf(1))) {
				t.Fatalf("%s: ftran position %d: %g, the reference %g", what, k, x[k], want.AtVec(k))
			}
		}
		c := make([]float64, m)
		cv := mat.NewVecDense(m, nil)
		for k := range m {
			c[k] = rng.Float64()*4 - 2
			cv.SetVec(k, c[k])
		}
		y := make([]float64, m)
		for j := range y {
			y[j] = math.NaN()
		}
		lu.btran(c, y)
		var wantY mat.VecDense
		wantY.MulVec(inv.T(), cv)
		for j := range m {
			if math.Abs(y[j]-wantY.AtVec(j)) > 1e-12*scale1*2 {
				t.Fatalf("%s: btran row %d: %g, the reference %g", what, j, y[j], wantY.AtVec(j))
			}
		}
	}
}

// TestBasisLUAgainstInverse factorises bases of the master LP's shape,
// reached from the singletons by random pivots, and compares the solves
// with gonum's dense inverse; then it goes on pivoting, the factors
// kept and the pivots added as etas, and compares again.
func TestBasisLUAgainstInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	largestBump := 0
	for _, m := range []int{1, 2, 7, 40, 150} {
		for _, pivots := range []int{0, m / 3, 2 * m} {
			b := &luBasis{m: m, cols: make([][]luEntry, m)}
			for k := range m {
				b.cols[k] = []luEntry{{k, 1}}
			}
			pivotBasis(t, rng, b, pivots, nil)
			dense, ok := factorWith(m, b.col, (*basisLU).denseBump)
			if !ok {
				t.Fatalf("m %d after %d pivots: the dense bump finds a non-singular basis singular", m, pivots)
			}
			checkSolves(t, rng, b, dense, "factors with a dense bump")
			lu, ok := factorLU(m, b.col)
			if !ok {
				t.Fatalf("m %d after %d pivots: factorLU finds a non-singular basis singular", m, pivots)
			}
			if len(lu.prow) != m {
				t.Fatalf("m %d: %d pivots in the factors", m, len(lu.prow))
			}
			largestBump = max(largestBump, lu.bumpSize)
			checkOrder(t, dense, m, "factors with a dense bump")
			checkOrder(t, lu, m, "factors")
			checkSolves(t, rng, b, lu, "factors")
			pivotBasis(t, rng, b, 1+m/4, lu)
			checkSolves(t, rng, b, lu, "factors and etas")
		}
	}
	if largestBump < 20 {
		t.Errorf("the largest bump has %d rows: the test hardly exercises it", largestBump)
	}
}

// TestBasisLUSingletons checks the triangular part alone: a basis of
// singletons, surpluses and a chain of transfers has no bump, and its
// factors hold no more entries than the basis.
func TestBasisLUSingletons(t *testing.T) {
	const m = 30
	b := &luBasis{m: m, cols: make([][]luEntry, m)}
	nnz := 0
	for k := range m {
		switch {
		case k == 0:
			b.cols[k] = []luEntry{{0, -1}}
		case k%3 == 0:
			b.cols[k] = []luEntry{{k, 1}}
		default:
			b.cols[k] = []luEntry{{k, 1}, {k - 1, -1}}
		}
		nnz += len(b.cols[k])
	}
	lu, ok := factorLU(m, b.col)
	if !ok {
		t.Fatal("singular")
	}
	if lu.bumpSize != 0 {
		t.Errorf("a triangular basis leaves a bump of %d", lu.bumpSize)
	}
	if got := lu.entries(); got > nnz {
		t.Errorf("factors hold %d entries, the basis %d", got, nnz)
	}
	checkSolves(t, rand.New(rand.NewPCG(1, 2)), b, lu, "triangular")
}

// TestBasisLUSingular gives factorLU singular matrices: a repeated column,
// an empty one, and a bump whose columns are dependent.
func TestBasisLUSingular(t *testing.T) {
	for name, cols := range map[string][][]luEntry{
		"repeated": {{{0, 1}, {1, 1}}, {{0, 1}, {1, 1}}, {{2, 1}}},
		"empty":    {{{0, 1}}, {}, {{2, 1}}},
		// Column 3 is columns 0 and 2, and no row or column of the
		// first four is a singleton.
		"dependent bump": {
			{{0, 1}, {1, 1}}, {{1, 1}, {2, 1}}, {{2, 1}, {3, 1}},
			{{0, 1}, {1, 1}, {2, 1}, {3, 1}}, {{4, 1}},
		},
	} {
		b := &luBasis{m: len(cols), cols: cols}
		if denseInverse(b) != nil {
			t.Fatalf("%s: the reference inverts it", name)
		}
		if _, ok := factorLU(b.m, b.col); ok {
			t.Errorf("%s: factorLU factorises a singular matrix", name)
		}
	}
}

// TestBasisLURowSingleton gives factorLU a transfer whose −1 is alone in
// its row: a row singleton with a negative pivot, whose multiplier then
// reaches the other row of that column, and a bump of the two rows left.
func TestBasisLURowSingleton(t *testing.T) {
	b := &luBasis{m: 3, cols: [][]luEntry{{{0, 1}, {1, -1}}, {{0, 1}, {2, 1}}, {{0, 1}, {2, -1}}}}
	lu, ok := factorLU(b.m, b.col)
	if !ok {
		t.Fatal("singular")
	}
	if lu.prow[0] != 1 || lu.pcol[0] != 0 || lu.piv[0] != -1 || lu.bumpSize != 2 {
		t.Fatalf("first pivot (row %d, column %d, %g), bump %d: want row 1's singleton, −1, then a bump of 2", lu.prow[0], lu.pcol[0], lu.piv[0], lu.bumpSize)
	}
	checkSolves(t, rand.New(rand.NewPCG(7, 8)), b, lu, "row singleton")
}

// TestBasisLUTolerance gives the bump a 2 × 2 block whose determinant is
// 1e-10, which factorLU must take, and one of 1e-13, below luPivotTol,
// which it must refuse.
func TestBasisLUTolerance(t *testing.T) {
	for _, c := range []struct {
		eps  float64
		want bool
	}{{1e-10, true}, {1e-13, false}} {
		b := &luBasis{m: 2, cols: [][]luEntry{{{0, 1}, {1, 1}}, {{0, 1}, {1, 1 + c.eps}}}}
		lu, ok := factorLU(b.m, b.col)
		if ok != c.want {
			t.Fatalf("determinant %g: factorLU says non-singular %v", c.eps, ok)
		}
		if ok {
			x := make([]float64, 2)
			lu.ftran([]int{0, 1}, []float64{2, 2 + c.eps}, x) // column 0 plus column 1
			if math.Abs(x[0]-1) > 1e-4 || math.Abs(x[1]-1) > 1e-4 {
				t.Errorf("determinant %g: ftran gives %v, want [1 1]", c.eps, x)
			}
		}
	}
}

// TestBasisLUPartialPivoting gives the bump a tiny first entry, which a
// factorisation without row exchanges would pivot on, losing most of its
// digits: the solves must still match the reference.
func TestBasisLUPartialPivoting(t *testing.T) {
	b := &luBasis{m: 3, cols: [][]luEntry{{{0, 1e-10}, {1, 1}, {2, 1}}, {{0, 1}, {1, 1}, {2, -1}}, {{0, 1}, {1, -1}, {2, 1}}}}
	lu, ok := factorLU(b.m, b.col)
	if !ok {
		t.Fatal("singular")
	}
	checkSolves(t, rand.New(rand.NewPCG(3, 4)), b, lu, "bump")
}

// denseBump is the plain reference for basisLU.bump: the bump as a dense
// matrix, eliminated with partial pivoting, the columns with fewer entries
// first.
func (lu *basisLU) denseBump(bRows, bCols []int, col func(k int, f func(j int, a float64))) bool {
	n := len(bRows)
	if n == 0 {
		return true
	}
	at := make(map[int]int, n) // row → its index in bRows
	for i, j := range bRows {
		at[j] = i
	}
	a := make([][]float64, n) // a[i][c]: row bRows[i], column bCols[c]
	for i := range a {
		a[i] = make([]float64, n)
	}
	count := make([]int, n)
	for c, k := range bCols {
		col(k, func(j int, v float64) {
			if i, ok := at[j]; ok {
				a[i][c] = v
				count[c]++
			}
		})
	}
	order := make([]int, n)
	for c := range order {
		order[c] = c
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(count[x], count[y]) })
	rowUsed := make([]bool, n)
	colUsed := make([]bool, n)
	for _, c := range order {
		p, big := -1, 0.0
		for i := range n {
			if !rowUsed[i] && math.Abs(a[i][c]) > big {
				p, big = i, math.Abs(a[i][c])
			}
		}
		if p < 0 || big <= luPivotTol {
			return false
		}
		rowUsed[p], colUsed[c] = true, true
		pv := a[p][c]
		for i := range n {
			if f := a[i][c]; !rowUsed[i] && f != 0 {
				l := f / pv
				lu.lidx, lu.lval = append(lu.lidx, bRows[i]), append(lu.lval, l)
				for c2 := range n {
					if !colUsed[c2] && a[p][c2] != 0 {
						a[i][c2] -= l * a[p][c2]
					}
				}
				a[i][c] = 0
			}
		}
		for c2 := range n {
			if !colUsed[c2] && a[p][c2] != 0 {
				lu.uidx, lu.uval = append(lu.uidx, bCols[c2]), append(lu.uval, a[p][c2])
			}
		}
		lu.pivot(bRows[p], bCols[c], pv)
	}
	return true
}

// BenchmarkBasisLU factorises the master LP's basis after 30 pricing rounds
// of random-m1000-seed1 on 200 hosts (about half a minute to set up) and
// solves with the factors: for a column of the LP (ftran) and for a row of
// B⁻¹ (btran). It reports the factors' entries and the bump's order.
func BenchmarkBasisLU(b *testing.B) {
	c := model.PaperCluster()
	c.Hosts = 200
	p, err := model.NewProblem(RandomWorkload(1, 1000), c)
	if err != nil {
		b.Fatal(err)
	}
	basis := &luBasis{m: len(p.Jobs)}
	var js []int
	var as []float64
	priced := false
	_, err = Columns(p, nil, ColumnsOptions{Rounds: 30, Stop: func() bool { return priced }, priced: func(cg *columnGen, _ *ColumnsResult) {
		lp := cg.lp
		for _, v := range lp.basis {
			var col []luEntry
			lp.entries(v, func(j int, a float64) {
				col = append(col, luEntry{j, a})
			})
			basis.cols = append(basis.cols, col)
		}
		for _, j := range lp.cols[len(lp.cols)-1] { // the last column priced
			js, as = append(js, j), append(as, 1)
		}
		priced = true
	}})
	if err != nil {
		b.Fatal(err)
	}
	lu, ok := factorLU(basis.m, basis.col)
	if !ok {
		b.Fatal("the LP's basis is singular")
	}
	b.Run("factor", func(b *testing.B) {
		for b.Loop() {
			factorLU(basis.m, basis.col)
		}
		b.ReportMetric(float64(lu.entries()), "entries")
		b.ReportMetric(float64(lu.bumpSize), "bump")
	})
	x := make([]float64, basis.m)
	b.Run("ftran", func(b *testing.B) {
		for b.Loop() {
			lu.ftran(js, as, x)
		}
	})
	cb, y := make([]float64, basis.m), make([]float64, basis.m)
	b.Run("btran", func(b *testing.B) {
		r := 0
		for b.Loop() {
			clear(cb)
			cb[r%basis.m] = 1
			r++
			lu.btran(cb, y)
		}
	})
}
