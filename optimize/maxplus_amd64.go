//go:build amd64 && !purego

package optimize

// The kernels, in assembly (maxplus_amd64.s), which reads and writes
// without bounds checks: these wrappers first cut p, c and q to their
// rows' lengths, which panics where one is short, as the Go versions
// (maxplus.go) would.

func rowMax(r, p []float64, wb int, z, v float64) {
	if len(p) == 0 {
		rowMaxGo(r, p, wb, z, v) // the kernel has no case without p
		return
	}
	rowMaxSSE(r, p[:len(r)], wb, z, v)
}

func rowMaxTraced(r, p []float64, c []int8, wb int, z, v float64) {
	if len(p) == 0 {
		rowMaxTracedGo(r, p, c, wb, z, v)
		return
	}
	rowMaxTracedSSE(r, p[:len(r)], c[:len(r)], wb, z, v)
}

func maxSum(v float64, e, q []float64) float64 {
	q = q[:len(e)]
	m := maxSumPairs(v, e, q)
	if n := len(e); n%2 == 1 {
		m = larger(m, v+e[n-1]+q[n-1])
	}
	return m
}

//go:noescape
func rowMaxSSE(r, p []float64, wb int, z, v float64)

//go:noescape
func rowMaxTracedSSE(r, p []float64, c []int8, wb int, z, v float64)

//go:noescape
func maxSumPairs(v float64, e, q []float64) float64
