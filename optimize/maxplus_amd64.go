//go:build amd64 && !purego

package optimize

import "golang.org/x/sys/cpu"

// The kernels, in assembly (maxplus_amd64.s), which reads and writes
// without bounds checks: these wrappers first cut p, c and q to their
// rows' lengths, which panics where one is short, as the Go versions
// (maxplus.go) would.

func rowMax(r, p []float64, wb int, z, v float64) {
	if len(p) == 0 {
		rowMaxGo(r, p, wb, z, v) // the kernel has no case without p
		return
	}
	if useAVX2 {
		rowMaxAVX2(r, p[:len(r)], wb, z, v)
		return
	}
	rowMaxSSE(r, p[:len(r)], wb, z, v)
}

// useAVX2 is whether rowMax and rowMaxTraced use their AVX2 kernels, four
// cells per instruction, which give the same rows and codes as the SSE2
// ones: the processor and the operating
// system (its saving of the wide registers) both have AVX2, as
// golang.org/x/sys/cpu finds.
var useAVX2 = cpu.X86.HasAVX2

// rowMaxPaths and rowMaxTracedPaths are the kernels' paths on this
// machine, for TestMaxPlusKernels.
func rowMaxPaths() []func(r, p []float64, wb int, z, v float64) {
	paths := []func(r, p []float64, wb int, z, v float64){rowMaxSSE}
	if useAVX2 {
		paths = append(paths, rowMaxAVX2)
	}
	return paths
}

func rowMaxTracedPaths() []func(r, p []float64, c []int8, wb int, z, v float64) {
	paths := []func(r, p []float64, c []int8, wb int, z, v float64){rowMaxTracedSSE}
	if useAVX2 {
		paths = append(paths, rowMaxTracedAVX2)
	}
	return paths
}

func rowMaxTraced(r, p []float64, c []int8, wb int, z, v float64) {
	if len(p) == 0 {
		rowMaxTracedGo(r, p, c, wb, z, v)
		return
	}
	if useAVX2 {
		rowMaxTracedAVX2(r, p[:len(r)], c[:len(r)], wb, z, v)
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
func rowMaxAVX2(r, p []float64, wb int, z, v float64)

//go:noescape
func rowMaxTracedSSE(r, p []float64, c []int8, wb int, z, v float64)

//go:noescape
func rowMaxTracedAVX2(r, p []float64, c []int8, wb int, z, v float64)

//go:noescape
func maxSumPairs(v float64, e, q []float64) float64
