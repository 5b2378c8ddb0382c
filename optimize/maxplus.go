package optimize

import "math"

// The pricing programme's innermost loops, as kernels over rows of float64:
// the assembly in maxplus_amd64.s does two cells per instruction (SSE2,
// which every amd64 has) and branch-free, where the compiled Go compared
// and branched cell by cell; at 200 jobs on 50 hosts the untraced
// programme takes 2.4 times less time and the traced one 2.0 times
// (BenchmarkKnapsack). The Go versions here are the reference: other
// architectures, and the purego build tag, use them, and
// TestMaxPlusKernels holds the assembly to them bit for bit, the sign of
// zero included (maxSum's aside, which no caller keeps). Every max here is larger's: of equal values the second.

// maxPlusGo sets dst[i] = larger(dst[i], src[i]+v); src may be dst.
func maxPlusGo(dst, src []float64, v float64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = larger(dst[i], src[i]+v)
	}
}

// maxPlusShiftGo sets, for b from len(r)−1 down to wb,
// r[b] = larger(r[b], larger(p[b], larger(z, r[b−wb])) + v), each r[b−wb]
// read before the item changed it (b descending); without p (len 0) the
// p[b] term drops out. p may be r.
func maxPlusShiftGo(r, p []float64, wb int, z, v float64) {
	for b := len(r) - 1; b >= wb; b-- {
		t := larger(z, r[b-wb])
		if len(p) > 0 {
			t = larger(p[b], t)
		}
		r[b] = larger(r[b], t+v)
	}
}

// maxPlusShiftTracedGo is maxPlusShiftGo recording in c[b] which step
// raised r[b] last (addRowTraced's codes): 1 p[b]+v, 2 z+v, 3 r[b−wb]+v, 0
// none, each step taken only where it raises the cell strictly.
func maxPlusShiftTracedGo(r, p []float64, c []int8, wb int, z, v float64) {
	for b := len(r) - 1; b >= wb; b-- {
		n1, k1 := r[b], int8(0)
		if len(p) > 0 {
			if t := p[b] + v; t > n1 {
				n1, k1 = t, 1
			}
		}
		if t := z + v; t > n1 {
			n1, k1 = t, 2
		}
		if t := r[b-wb] + v; t > n1 {
			n1, k1 = t, 3
		}
		r[b], c[b] = n1, k1
	}
}

// maxPlusTracedGo is maxPlusGo recording in c[i] whether src[i]+v raised
// dst[i] (1) or not (0).
func maxPlusTracedGo(dst, src []float64, c []int8, v float64) {
	src, c = src[:len(dst)], c[:len(dst)]
	for i := range dst {
		c[i] = 0
		if t := src[i] + v; t > dst[i] {
			dst[i], c[i] = t, 1
		}
	}
}

// maxSumGo is the largest (v + e[i]) + q[i], −Inf when e is empty.
func maxSumGo(v float64, e, q []float64) float64 {
	q = q[:len(e)]
	m := math.Inf(-1)
	for i, x := range e {
		m = larger(m, v+x+q[i])
	}
	return m
}
