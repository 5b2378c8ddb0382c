package optimize

import "math"

// The pricing programme's innermost loops, as kernels over rows of float64:
// the assembly in maxplus_amd64.s does two cells per instruction in SSE2,
// which every amd64 has, four in AVX where the machine has it, and a row in
// one call, branch-free, where the compiled Go compared and branched cell by
// cell. The Go versions here are the reference: other architectures, and
// the purego build tag, use them, and TestMaxPlusKernels holds the assembly
// to them bit for bit, the sign of zero included (maxSum's aside, which no
// caller keeps). Every max here is larger's: of equal values the second.

// rowMaxGo is add's update of a row r of flag 1 (addRow): for b from
// len(r)−1 down to lo,
//
//	r[b] = larger(r[b], larger(p[b], larger(z, r[b−wb])) + v),
//
// each r[b−wb] read before the item changed it, then below lo
// r[b] = larger(r[b], p[b]+v); lo is min(wb, len(r)), len(r) when wb < 0
// (no second role). p is as long as r, and may be r itself; an item that
// cannot be primary passes a p of −Inf (withoutPrimary), whose terms change
// nothing for finite v.
func rowMaxGo(r, p []float64, wb int, z, v float64) {
	p = p[:len(r)]
	lo := secondFrom(len(r), wb)
	for b := len(r) - 1; b >= lo; b-- {
		r[b] = larger(r[b], larger(p[b], larger(z, r[b-wb]))+v)
	}
	for b := lo - 1; b >= 0; b-- {
		r[b] = larger(r[b], p[b]+v)
	}
}

// rowMaxTracedGo is rowMaxGo recording in c[b] the step that raised r[b]
// last (addRowTraced's codes): 1 p[b]+v, 2 z+v, 3 r[b−wb]+v, 0 none, each
// step taken only where it raises the cell strictly, the last two only
// from lo up.
func rowMaxTracedGo(r, p []float64, c []int8, wb int, z, v float64) {
	p, c = p[:len(r)], c[:len(r)]
	lo := secondFrom(len(r), wb)
	for b := len(r) - 1; b >= 0; b-- {
		n1, k1 := r[b], int8(0)
		if t := p[b] + v; t > n1 {
			n1, k1 = t, 1
		}
		if b >= lo {
			if t := z + v; t > n1 {
				n1, k1 = t, 2
			}
			if t := r[b-wb] + v; t > n1 {
				n1, k1 = t, 3
			}
		}
		r[b], c[b] = n1, k1
	}
}

// secondFrom is the first cell of a row of n that can take the second role
// of width wb (−1: none, so n).
func secondFrom(n, wb int) int {
	if wb < 0 {
		return n
	}
	return min(wb, n)
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

// noPrimary is a row of −Inf, the p of a row whose item cannot be primary
// there (withoutPrimary): the kernels then need no case without p.
var noPrimary = negInf(1024)

// negInf is a row of n cells of −Inf.
func negInf(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = math.Inf(-1)
	}
	return r
}
