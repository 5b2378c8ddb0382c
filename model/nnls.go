package model

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// errNNLSSingular is returned when the columns in use are linearly dependent,
// for example two node counts for three parameters.
var errNNLSSingular = errors.New("model: non-negative least squares: the columns in use are linearly dependent")

// nnls solves min ‖A·x − b‖₂ subject to x ≥ 0 by the active-set method of
// Lawson and Hanson ("Solving Least Squares Problems", 1974, chapter 23):
// variables enter the passive set P one at a time, the one whose gradient
// wᵢ = (Aᵀ(b − A·x))ᵢ is largest; an unconstrained least-squares solve on P
// that leaves a variable negative is walked back along the segment to the
// last feasible point and that variable leaves P. Each step lowers the
// residual, so it ends; 3·columns outer steps bound it against rounding. A has
// more rows than columns in packer's uses (runs × parameters).
func nnls(a *mat.Dense, b []float64) ([]float64, error) {
	m, n := a.Dims()
	bv := mat.NewVecDense(m, b)
	x := make([]float64, n)
	passive := make([]bool, n)
	tol := 1e-12 * max(1, mat.Norm(a, 1)) * max(1, mat.Norm(bv, 2))
	gradient := func() []float64 {
		var r, g mat.VecDense
		r.MulVec(a, mat.NewVecDense(n, x))
		r.SubVec(bv, &r)
		g.MulVec(a.T(), &r)
		return g.RawVector().Data
	}
	for iter := 0; iter < 3*n+3; iter++ {
		w := gradient()
		enter, best := -1, tol
		for j := range n {
			if !passive[j] && w[j] > best {
				enter, best = j, w[j]
			}
		}
		if enter < 0 {
			return x, nil
		}
		passive[enter] = true
		for {
			s, err := solvePassive(a, bv, passive)
			if err != nil {
				return nil, err
			}
			alpha, feasible := 1.0, true
			for j := range n {
				if passive[j] && s[j] <= 0 {
					feasible = false
					if d := x[j] - s[j]; d > 0 {
						alpha = min(alpha, x[j]/d)
					} else {
						alpha = 0
					}
				}
			}
			if feasible {
				copy(x, s)
				break
			}
			for j := range n {
				x[j] += alpha * (s[j] - x[j])
				if passive[j] && x[j] <= tol {
					passive[j], x[j] = false, 0
				}
			}
		}
	}
	return x, nil
}

// solvePassive is the unconstrained least-squares solution on the passive
// columns, zero elsewhere.
func solvePassive(a *mat.Dense, b *mat.VecDense, passive []bool) ([]float64, error) {
	m, n := a.Dims()
	var cols []int
	for j, p := range passive {
		if p {
			cols = append(cols, j)
		}
	}
	s := make([]float64, n)
	if len(cols) == 0 {
		return s, nil
	}
	if len(cols) > m {
		return nil, errNNLSSingular
	}
	sub := mat.NewDense(m, len(cols), nil)
	for k, j := range cols {
		for i := range m {
			sub.Set(i, k, a.At(i, j))
		}
	}
	var qr mat.QR
	qr.Factorize(sub)
	var r mat.Dense
	qr.RTo(&r)
	for k := range cols {
		if math.Abs(r.At(k, k)) <= 1e-13*max(1, mat.Norm(sub, 1)) {
			return nil, errNNLSSingular
		}
	}
	var sol mat.VecDense
	if err := qr.SolveVecTo(&sol, false, b); err != nil {
		return nil, errNNLSSingular
	}
	for k, j := range cols {
		s[j] = sol.AtVec(k)
	}
	return s, nil
}
