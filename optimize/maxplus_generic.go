//go:build !amd64 || purego

package optimize

// Without the assembly (maxplus_amd64.s) the kernels are maxplus.go's Go.

func maxPlus(dst, src []float64, v float64)             { maxPlusGo(dst, src, v) }
func maxPlusShift(r, p []float64, wb int, z, v float64) { maxPlusShiftGo(r, p, wb, z, v) }
func maxPlusShiftTraced(r, p []float64, c []int8, wb int, z, v float64) {
	maxPlusShiftTracedGo(r, p, c, wb, z, v)
}
func maxPlusTraced(r, p []float64, c []int8, v float64) { maxPlusTracedGo(r, p, c, v) }
func maxSum(v float64, e, q []float64) float64          { return maxSumGo(v, e, q) }
