//go:build !amd64 || purego

package optimize

// Without the assembly (maxplus_amd64.s) the kernels are maxplus.go's Go.

// rowMax is rowMaxGo.
func rowMax(r, p []float64, wb int, z, v float64) { rowMaxGo(r, p, wb, z, v) }

// rowMaxPaths and rowMaxTracedPaths are the kernels' paths, for
// TestMaxPlusKernels.
func rowMaxPaths() []func(r, p []float64, wb int, z, v float64) {
	return []func(r, p []float64, wb int, z, v float64){rowMax}
}

func rowMaxTracedPaths() []func(r, p []float64, c []int8, wb int, z, v float64) {
	return []func(r, p []float64, c []int8, wb int, z, v float64){rowMaxTraced}
}

// rowMaxTraced is rowMaxTracedGo.
func rowMaxTraced(r, p []float64, c []int8, wb int, z, v float64) {
	rowMaxTracedGo(r, p, c, wb, z, v)
}

// maxSum is maxSumGo.
func maxSum(v float64, e, q []float64) float64 { return maxSumGo(v, e, q) }
