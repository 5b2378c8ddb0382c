package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMaxPlusKernels: each kernel (in assembly on amd64) leaves the same
// rows, codes and sums as its Go version in maxplus.go, bit for bit, on
// random rows of every length to 40 (the pairs and odd cells of both
// segments) with −Inf cells, zeros of both signs and ties, every shift wb
// from none (−1) past the row's end, p of −Inf (withoutPrimary), apart, the
// row itself or empty, and codes past the row's end left alone. maxSum
// may differ in its zero's sign only: joinGroups sums again the split it
// keeps.
func TestMaxPlusKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 7))
	cell := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return math.Inf(-1)
		case 1:
			return 0
		case 2:
			return math.Copysign(0, -1)
		}
		return float64(rng.IntN(5)) * 2.5 // ties are common
	}
	row := func(n int) []float64 {
		r := make([]float64, n)
		for i := range r {
			r[i] = cell()
		}
		return r
	}
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	// ps are the p of both calls: one shared row, or each call's own r.
	ps := func(n int, a, b []float64) ([]float64, []float64) {
		switch rng.IntN(4) {
		case 0:
			return withoutPrimary(n), withoutPrimary(n)
		case 1:
			return a, b
		case 2:
			return nil, nil
		}
		p := row(n)
		return p, p
	}
	for it := range 50000 {
		n := rng.IntN(41)
		wb := rng.IntN(n+3) - 1
		z, v := cell(), cell()
		if math.IsInf(v, -1) {
			v = 1
		}
		r := row(n)
		for k, path := range rowMaxPaths() {
			a, b := slices.Clone(r), slices.Clone(r)
			pa, pb := ps(n, a, b)
			if len(pb) == 0 {
				pa, pb = withoutPrimary(n), withoutPrimary(n) // the paths need a p
			}
			rowMaxGo(a, pa, wb, z, v)
			path(b, pb, wb, z, v)
			if !same(a, b) {
				t.Fatalf("%d: rowMax path %d, n %d wb %d: %v, want %v", it, k, n, wb, b, a)
			}
		}
		a, b := slices.Clone(r), slices.Clone(r)
		pa, pb := ps(n, a, b)
		rowMaxGo(a, pa, wb, z, v)
		rowMax(b, pb, wb, z, v)
		if !same(a, b) {
			t.Fatalf("%d: rowMax n %d wb %d: %v, want %v", it, n, wb, b, a)
		}
		for k, path := range rowMaxTracedPaths() {
			a, b := slices.Clone(r), slices.Clone(r)
			pa, pb := ps(n, a, b)
			if len(pb) == 0 {
				pa, pb = withoutPrimary(n), withoutPrimary(n)
			}
			ca, cb := slices.Repeat([]int8{7}, n+4), slices.Repeat([]int8{7}, n+4)
			rowMaxTracedGo(a, pa, ca, wb, z, v)
			path(b, pb, cb, wb, z, v)
			if !same(a, b) || !slices.Equal(ca, cb) {
				t.Fatalf("%d: rowMaxTraced path %d, n %d wb %d: %v %v, want %v %v", it, k, n, wb, b, cb, a, ca)
			}
		}
		a, b = slices.Clone(r), slices.Clone(r)
		pa, pb = ps(n, a, b)
		ca, cb := slices.Repeat([]int8{7}, n+2), slices.Repeat([]int8{7}, n+2)
		rowMaxTracedGo(a, pa, ca, wb, z, v)
		rowMaxTraced(b, pb, cb, wb, z, v)
		if !same(a, b) || !slices.Equal(ca, cb) {
			t.Fatalf("%d: rowMaxTraced n %d wb %d: %v %v, want %v %v", it, n, wb, b, cb, a, ca)
		}
		q := row(n + rng.IntN(3))
		if got, want := maxSum(v, r, q), maxSumGo(v, r, q); got != want {
			t.Fatalf("%d: maxSum n %d: %v, want %v", it, n, got, want)
		}
	}
}
