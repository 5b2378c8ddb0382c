//go:build amd64 && !purego

package optimize

// The kernels: the assembly (maxplus_amd64.s) does the cells that pair off,
// from the top for those that go down, and these the odd cell left, the
// bottom one, last as in the Go versions (maxplus.go).

func maxPlus(dst, src []float64, v float64) {
	src = src[:len(dst)]
	maxPlusPairs(dst, src, v)
	if len(dst)%2 == 1 {
		maxPlusGo(dst[:1], src[:1], v)
	}
}

func maxPlusShift(r, p []float64, wb int, z, v float64) {
	if len(p) > 0 {
		p = p[:len(r)]
	}
	maxPlusShiftPairs(r, p, wb, z, v)
	if len(r) > wb && (len(r)-wb)%2 == 1 {
		maxPlusShiftGo(r[:wb+1], p[:min(len(p), wb+1)], wb, z, v)
	}
}

func maxPlusShiftTraced(r, p []float64, c []int8, wb int, z, v float64) {
	if len(p) > 0 {
		p = p[:len(r)]
	}
	c = c[:len(r)]
	maxPlusShiftTracedPairs(r, p, c, wb, z, v)
	if len(r) > wb && (len(r)-wb)%2 == 1 {
		maxPlusShiftTracedGo(r[:wb+1], p[:min(len(p), wb+1)], c, wb, z, v)
	}
}

func maxPlusTraced(dst, src []float64, c []int8, v float64) {
	src, c = src[:len(dst)], c[:len(dst)]
	maxPlusTracedPairs(dst, src, c, v)
	if len(dst)%2 == 1 {
		maxPlusTracedGo(dst[:1], src[:1], c[:1], v)
	}
}

func maxSum(v float64, e, q []float64) float64 {
	q = q[:len(e)]
	m := maxSumPairs(v, e, q)
	if n := len(e); n%2 == 1 {
		m = larger(m, v+e[n-1]+q[n-1])
	}
	return m
}

// The assembly reads and writes without bounds checks: the wrappers above
// cut src, p (unless empty), c and q to their rows' lengths first, which
// panics where one is short, as the Go versions would.

//go:noescape
func maxPlusPairs(dst, src []float64, v float64)

//go:noescape
func maxPlusShiftPairs(r, p []float64, wb int, z, v float64)

//go:noescape
func maxPlusShiftTracedPairs(r, p []float64, c []int8, wb int, z, v float64)

//go:noescape
func maxPlusTracedPairs(dst, src []float64, c []int8, v float64)

//go:noescape
func maxSumPairs(v float64, e, q []float64) float64
