package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMaxPlusKernels: each kernel (every one this machine has: SSE2 and
// AVX on amd64) leaves the same rows, codes and sums as its Go version in
// maxplus.go, bit for bit, on random rows of every length to 40 (the
// blocks of four, pairs and odd cells of both segments) with −Inf cells,
// zeros of both signs, ties and sums that round, every shift wb from none
// (−1) past the row's end, p of −Inf (withoutPrimary), apart or the row
// itself; nothing outside the row (guard cells on both sides) nor
// in a p apart changes, nor any code past the row's end. maxSum may differ
// in its zero's sign only: joinGroups sums again the split it keeps.
func TestMaxPlusKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 7))
	cell := func() float64 {
		switch rng.IntN(7) {
		case 0:
			return math.Inf(-1)
		case 1:
			return 0
		case 2:
			return math.Copysign(0, -1)
		case 3:
			return 1000 * rng.Float64() // sums round
		}
		return float64(rng.IntN(5)) * 2.5 // ties are common
	}
	const guard = 3
	// guarded returns a copy of r between guard cells of a value no kernel
	// writes (−1), and the whole buffer.
	guarded := func(r []float64) (in, buf []float64) {
		buf = slices.Repeat([]float64{-1}, len(r)+2*guard)
		in = buf[guard : guard+len(r)]
		copy(in, r)
		return in, buf
	}
	// row returns n random cells, guarded, and the whole buffer.
	row := func(n int) (r, buf []float64) {
		r = make([]float64, n)
		for i := range r {
			r[i] = cell()
		}
		return guarded(r)
	}
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	// twoRows are two guarded copies of r.
	twoRows := func(r []float64) (a, b, bufA, bufB []float64) {
		a, bufA = guarded(r)
		b, bufB = guarded(r)
		return a, b, bufA, bufB
	}
	// ps are the p of both calls: −Inf, each call's own row, or one row
	// apart (its copy, to check that it is left alone).
	ps := func(n int, a, b []float64) (pa, pb, kept []float64) {
		switch rng.IntN(3) {
		case 0:
			return withoutPrimary(n), withoutPrimary(n), nil
		case 1:
			return a, b, nil
		}
		p, _ := row(n)
		return p, p, slices.Clone(p)
	}
	for it := range 50000 {
		n := rng.IntN(41)
		wb := rng.IntN(n+3) - 1
		z, v := cell(), cell()
		if math.IsInf(v, -1) {
			v = 1
		}
		r, _ := row(n)
		check := func(name string, k int, a, b, bufA, bufB, pb, kept []float64, ca, cb []int8) {
			t.Helper()
			if !same(a, b) || !same(bufA, bufB) || !slices.Equal(ca, cb) {
				t.Fatalf("%d: %s path %d, n %d wb %d: %v %v, want %v %v", it, name, k, n, wb, bufB, cb, bufA, ca)
			}
			if kept != nil && !same(pb, kept) {
				t.Fatalf("%d: %s path %d changed p", it, name, k)
			}
		}
		for k, path := range rowMaxPaths() {
			a, b, bufA, bufB := twoRows(r)
			pa, pb, kept := ps(n, a, b)
			rowMaxGo(a, pa, wb, z, v)
			path(b, pb, wb, z, v)
			check("rowMax", k, a, b, bufA, bufB, pb, kept, nil, nil)
		}
		for k, path := range rowMaxTracedPaths() {
			a, b, bufA, bufB := twoRows(r)
			pa, pb, kept := ps(n, a, b)
			ca, cb := slices.Repeat([]int8{7}, n+4), slices.Repeat([]int8{7}, n+4)
			rowMaxTracedGo(a, pa, ca, wb, z, v)
			path(b, pb, cb, wb, z, v)
			check("rowMaxTraced", k, a, b, bufA, bufB, pb, kept, ca, cb)
		}
		// The wrappers.
		a, b, bufA, bufB := twoRows(r)
		pa, pb, kept := ps(n, a, b)
		rowMaxGo(a, pa, wb, z, v)
		rowMax(b, pb, wb, z, v)
		check("rowMax wrapper", 0, a, b, bufA, bufB, pb, kept, nil, nil)
		a, b, bufA, bufB = twoRows(r)
		pa, pb, kept = ps(n, a, b)
		ca, cb := slices.Repeat([]int8{7}, n+2), slices.Repeat([]int8{7}, n+2)
		rowMaxTracedGo(a, pa, ca, wb, z, v)
		rowMaxTraced(b, pb, cb, wb, z, v)
		check("rowMaxTraced wrapper", 0, a, b, bufA, bufB, pb, kept, ca, cb)
		q, _ := row(n + rng.IntN(3))
		if got, want := maxSum(v, r, q), maxSumGo(v, r, q); got != want {
			t.Fatalf("%d: maxSum n %d: %v, want %v", it, n, got, want)
		}
	}
}
