package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMaxPlusKernels: each kernel (in assembly on amd64) leaves the same
// rows, codes and sums as its Go version in maxplus.go, bit for bit, on
// random rows of every length to 40 (the pairs, quads and odd tails of the
// assembly) with −Inf cells, zeros of both signs and ties, every shift wb
// from 0 past the row's end, p absent, apart or the row itself, and codes
// past the row's end left alone. maxSum may differ in its zero's sign only:
// joinGroups sums again the split it keeps.
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
	for it := range 50000 {
		n := rng.IntN(41)
		wb := rng.IntN(n + 2)
		z, v := cell(), cell()
		if math.IsInf(v, -1) {
			v = 1
		}
		r := row(n)
		a, b := slices.Clone(r), slices.Clone(r)
		// p: absent, apart, or the row itself (a job's primary units 0).
		var pa, pb []float64
		switch rng.IntN(3) {
		case 1:
			pa = row(n)
			pb = pa
		case 2:
			pa, pb = a, b
		}
		maxPlusShiftGo(a, pa, wb, z, v)
		maxPlusShift(b, pb, wb, z, v)
		if !same(a, b) {
			t.Fatalf("%d: maxPlusShift n %d wb %d: %v, want %v", it, n, wb, b, a)
		}
		a, b = slices.Clone(r), slices.Clone(r)
		if pa != nil && rng.IntN(2) == 0 {
			pa, pb = a, b
		}
		ca, cb := make([]int8, n+2), make([]int8, n+2)
		for i := range cb {
			ca[i], cb[i] = 7, 7
		}
		maxPlusShiftTracedGo(a, pa, ca, wb, z, v)
		maxPlusShiftTraced(b, pb, cb, wb, z, v)
		if !same(a, b) || !slices.Equal(ca, cb) {
			t.Fatalf("%d: maxPlusShiftTraced n %d wb %d: %v %v, want %v %v", it, n, wb, b, cb, a, ca)
		}
		src := row(n)
		a, b = slices.Clone(r), slices.Clone(r)
		sa, sb := src, src
		if rng.IntN(2) == 0 {
			sa, sb = a, b
		}
		maxPlusGo(a, sa, v)
		maxPlus(b, sb, v)
		if !same(a, b) {
			t.Fatalf("%d: maxPlus n %d: %v, want %v", it, n, b, a)
		}
		a, b = slices.Clone(r), slices.Clone(r)
		ca, cb = slices.Repeat([]int8{7}, n+2), slices.Repeat([]int8{7}, n+2)
		maxPlusTracedGo(a, src, ca[:n], v)
		maxPlusTraced(b, src, cb[:n], v)
		if !same(a, b) || !slices.Equal(ca, cb) {
			t.Fatalf("%d: maxPlusTraced n %d: %v %v, want %v %v", it, n, b, cb, a, ca)
		}
		q := row(n + rng.IntN(3))
		if got, want := maxSum(v, r, q), maxSumGo(v, r, q); math.Float64bits(got) != math.Float64bits(want) && got != want {
			t.Fatalf("%d: maxSum n %d: %v, want %v", it, n, got, want)
		}
	}
}
