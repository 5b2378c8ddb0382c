package optimize

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// luBasis is a test basis shaped as the master LP's: column k holds the
// rows and values of basis position k.
type luBasis struct {
	m    int
	cols [][]struct {
		j int
		a float64
	}
}

func (b *luBasis) col(k int, f func(j int, a float64)) {
	for _, e := range b.cols[k] {
		f(e.j, e.a)
	}
}

func (b *luBasis) dense() *mat.Dense {
	d := mat.NewDense(b.m, b.m, nil)
	for k := range b.m {
		b.col(k, func(j int, a float64) { d.Set(j, k, a) })
	}
	return d
}

// randomLPColumn is a column the master LP could hold: a phase of 1 to 60
// jobs, a transfer (1 and −1) or a surplus (−1).
func randomLPColumn(rng *rand.Rand, m int) []struct {
	j int
	a float64
} {
	type e = struct {
		j int
		a float64
	}
	switch rng.IntN(3) {
	case 0:
		if m < 2 {
			return []e{{0, -1}}
		}
		i, j := rng.IntN(m), rng.IntN(m-1)
		if j >= i {
			j++
		}
		return []e{{i, 1}, {j, -1}}
	case 1:
		return []e{{rng.IntN(m), -1}}
	}
	var out []e
	for _, j := range rng.Perm(m)[:1+rng.IntN(min(m, 60))] {
		out = append(out, e{j, 1})
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
			a.SetVec(e.j, e.a)
			js, as = append(js, e.j), append(as, e.a)
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

// checkSolves compares ftran and btran on random vectors with the reference
// inverse of b.
func checkSolves(t *testing.T, rng *rand.Rand, b *luBasis, lu *basisLU, what string) {
	t.Helper()
	inv := denseInverse(b)
	if inv == nil {
		t.Fatalf("%s: the reference finds the basis singular", what)
	}
	scale := mat.Norm(inv, math.Inf(1))
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
		lu.ftran(js, as, x)
		var want mat.VecDense
		want.MulVec(inv, av)
		for k := range m {
			if math.Abs(x[k]-want.AtVec(k)) > 1e-9*scale*(1+mat.Norm(av, math.Inf(1))) {
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
		lu.btran(c, y)
		var wantY mat.VecDense
		wantY.MulVec(inv.T(), cv)
		for j := range m {
			if math.Abs(y[j]-wantY.AtVec(j)) > 1e-9*scale*(1+2*float64(m)) {
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
	for _, m := range []int{1, 2, 7, 40, 150} {
		for _, pivots := range []int{0, m / 3, 2 * m} {
			b := &luBasis{m: m, cols: make([][]struct {
				j int
				a float64
			}, m)}
			for k := range m {
				b.cols[k] = []struct {
					j int
					a float64
				}{{k, 1}}
			}
			pivotBasis(t, rng, b, pivots, nil)
			lu, ok := factorLU(m, b.col)
			if !ok {
				t.Fatalf("m %d after %d pivots: factorLU finds a non-singular basis singular", m, pivots)
			}
			if len(lu.prow) != m {
				t.Fatalf("m %d: %d pivots in the factors", m, len(lu.prow))
			}
			checkSolves(t, rng, b, lu, "factors")
			pivotBasis(t, rng, b, 1+m/4, lu)
			checkSolves(t, rng, b, lu, "factors and etas")
		}
	}
}

// TestBasisLUSingletons checks the triangular part alone: a basis of
// singletons, surpluses and a chain of transfers has no bump, and its
// factors hold no more entries than the basis.
func TestBasisLUSingletons(t *testing.T) {
	const m = 30
	b := &luBasis{m: m, cols: make([][]struct {
		j int
		a float64
	}, m)}
	nnz := 0
	for k := range m {
		switch {
		case k == 0:
			b.cols[k] = []struct {
				j int
				a float64
			}{{0, -1}}
		case k%3 == 0:
			b.cols[k] = []struct {
				j int
				a float64
			}{{k, 1}}
		default:
			b.cols[k] = []struct {
				j int
				a float64
			}{{k, 1}, {k - 1, -1}}
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
	type e = struct {
		j int
		a float64
	}
	for name, cols := range map[string][][]e{
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

// TestBasisLUPartialPivoting gives the bump a tiny first entry, which a
// factorisation without row exchanges would pivot on, losing most of its
// digits: the solves must still match the reference.
func TestBasisLUPartialPivoting(t *testing.T) {
	type e = struct {
		j int
		a float64
	}
	b := &luBasis{m: 3, cols: [][]e{{{0, 1e-10}, {1, 1}, {2, 1}}, {{0, 1}, {1, 1}, {2, -1}}, {{0, 1}, {1, -1}, {2, 1}}}}
	lu, ok := factorLU(b.m, b.col)
	if !ok {
		t.Fatal("singular")
	}
	checkSolves(t, rand.New(rand.NewPCG(3, 4)), b, lu, "bump")
}
