//go:build amd64 && !purego

package optimize

import "golang.org/x/sys/cpu"

// The kernels in assembly (maxplus_amd64.s), which reads and writes without
// bounds checks: these wrappers make sure first that p, c and q are at least
// as long as the row, and panic as the Go versions (maxplus.go) would where
// one is not.

// rowMax is rowMaxGo, in SSE2 or AVX.
func rowMax(r, p []float64, wb int, z, v float64) {
	short(len(r), len(p))
	if useAVX {
		rowMaxAVX(r, p, wb, z, v)
		return
	}
	rowMaxSSE(r, p, wb, z, v)
}

// rowMaxTraced is rowMaxTracedGo, in SSE2 or AVX.
func rowMaxTraced(r, p []float64, c []int8, wb int, z, v float64) {
	short(len(r), len(p), len(c))
	if useAVX {
		rowMaxTracedAVX(r, p, c, wb, z, v)
		return
	}
	rowMaxTracedSSE(r, p, c, wb, z, v)
}

// maxSum is maxSumGo, the cells that pair off in SSE2.
func maxSum(v float64, e, q []float64) float64 {
	short(len(e), len(q))
	m := maxSumPairs(v, e, q)
	if n := len(e); n%2 == 1 {
		m = larger(m, v+e[n-1]+q[n-1])
	}
	return m
}

// short panics where one of lens is below n: a slice shorter than the row
// the assembly would read or write to its end.
func short(n int, lens ...int) {
	for _, l := range lens {
		if l < n {
			panic("optimize: a kernel's slice is shorter than its row (a bug)")
		}
	}
}

// useAVX is whether rowMax and rowMaxTraced use their AVX kernels, four
// cells per instruction, which give the same rows and codes as the SSE2
// ones: the processor has AVX and the operating system saves its wide
// registers, as golang.org/x/sys/cpu finds.
var useAVX = cpu.X86.HasAVX

// rowMaxPaths and rowMaxTracedPaths are the kernels on this machine, for
// TestMaxPlusKernels.
func rowMaxPaths() []func(r, p []float64, wb int, z, v float64) {
	paths := []func(r, p []float64, wb int, z, v float64){rowMaxSSE}
	if useAVX {
		paths = append(paths, rowMaxAVX)
	}
	return paths
}

func rowMaxTracedPaths() []func(r, p []float64, c []int8, wb int, z, v float64) {
	paths := []func(r, p []float64, c []int8, wb int, z, v float64){rowMaxTracedSSE}
	if useAVX {
		paths = append(paths, rowMaxTracedAVX)
	}
	return paths
}

// The kernels themselves: p (and c) as long as r, q as e.

//go:noescape
func rowMaxSSE(r, p []float64, wb int, z, v float64)

//go:noescape
func rowMaxAVX(r, p []float64, wb int, z, v float64)

//go:noescape
func rowMaxTracedSSE(r, p []float64, c []int8, wb int, z, v float64)

//go:noescape
func rowMaxTracedAVX(r, p []float64, c []int8, wb int, z, v float64)

//go:noescape
func maxSumPairs(v float64, e, q []float64) float64
