package optimize

import (
	"math"
	"testing"
)

// BenchmarkMasterLP solves the master LP of 200 jobs on 50 hosts from the
// singleton basis over the columns 150 pricing rounds found
// (random-m200-seed2, about 850 columns of 26 jobs on average), with the
// transfers. At the default limit the LP is a third to a half of column
// generation's wall time there and runs on one core (parallelPivot): a
// pivot is devex's pass over every column's non-zeros, entering's, and
// B⁻¹'s dense update. It reports the pivots a solve makes, which a change
// that only speeds the LP must leave as they are, and the time per pivot.
func BenchmarkMasterLP(b *testing.B) {
	p := randomOnHosts(b, 2, 200, 50)
	m := len(p.Jobs)
	cg := newColumnGen(p, 0, 0)
	cg.incumbent = math.Inf(1)
	for round := 1; round <= 150; round++ {
		cg.lp.solve(1000*m, nil)
		cg.price(round)
	}
	pivots := 0
	for b.Loop() {
		lp := newCoverLP(cg.lp.cost[:m])
		lp.trans, lp.workers = cg.lp.trans, cg.workers
		for c := m; c < len(cg.lp.cols); c++ {
			lp.add(cg.lp.cols[c], cg.lp.cost[c])
		}
		lp.solve(1000*m, nil)
		if !lp.optimal {
			b.Fatalf("not optimal after %d pivots", 1000*m)
		}
		pivots = lp.work
	}
	b.ReportMetric(float64(pivots), "pivots")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pivots), "ns/pivot")
	b.ReportMetric(float64(len(cg.lp.cols)), "columns")
}
