package optimize

import (
	"fmt"
	"math"
	"testing"
)

// BenchmarkMasterLP solves the master LP of 200 jobs on 50 hosts from the
// singleton basis over the columns 150 pricing rounds found
// (random-m200-seed2), with the transfers and every column active. At the
// default limit there, before columns went idle, the master LP's solves in
// column generation's rounds took about a third of its wall time (wall
// clocks around them: 4.3 s of 12.2 s at 15,000 work units), on one core
// (parallelPivot): a pivot is devex's pass over every column's non-zeros
// (entering reads the reduced costs it leaves) and B⁻¹'s dense update.
// Each solve must reach the value and make the pivots the first one did:
// a change that only speeds the LP leaves both as they are. It reports
// the pivots, a solve's time over its pivots, and the columns and their
// non-zeros.
func BenchmarkMasterLP(b *testing.B) {
	p := randomOnHosts(b, 2, 200, 50)
	m := len(p.Jobs)
	cg := newColumnGen(p, 0, 0)
	priceRounds(cg, 150, 1000*m)
	first := freshLP(cg)
	want := first.solve(1000*m, nil)
	pivots := first.work
	if !first.optimal {
		b.Fatalf("the solve ended not optimal after %d pivots (cap %d)", pivots, 1000*m)
	}
	for b.Loop() {
		lp := freshLP(cg)
		if z := lp.solve(1000*m, nil); !lp.optimal || math.Abs(z-want) > 1e-9*(1+want) || lp.work != pivots {
			b.Fatalf("a solve ended at %v after %d pivots (optimal %v), the first at %v after %d", z, lp.work, lp.optimal, want, pivots)
		}
	}
	b.ReportMetric(float64(pivots), "pivots")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pivots), "ns/pivot")
	b.ReportMetric(float64(len(cg.lp.cols)), "columns")
	b.ReportMetric(float64(cg.lp.colNZ), "nonzeros")
}

// BenchmarkMasterLPSparse solves master LPs from the singleton basis over
// the columns of some pricing rounds (found with a dense B⁻¹, so that they
// are the same whatever the sparse factors do) with B⁻¹ dense and as
// sparse factors (lu): random-mM-seed2 on M/5 hosts over 60 rounds'
// columns at M = 200, 400 and 600 (where luJobs lies), and
// random-m1000-seed1 on 200 hosts over 12. Each solve must reach the dense
// solve's optimum.
func BenchmarkMasterLPSparse(b *testing.B) {
	for _, c := range []struct {
		seed      uint64
		m, rounds int
	}{{2, 200, 60}, {2, 400, 60}, {2, 600, 60}, {1, 1000, 12}} {
		b.Run(fmt.Sprintf("m=%d", c.m), func(b *testing.B) {
			p := randomOnHosts(b, c.seed, c.m, c.m/5)
			cg := newColumnGen(p, 0, 0)
			cg.lp.represent(false)
			cg.lp.restart()
			priceRounds(cg, c.rounds, 50*c.m)
			ref := freshLPAs(cg, false)
			ref.solve(1000*c.m, nil)
			want := ref.objective()
			for _, sparse := range []bool{false, true} {
				b.Run(map[bool]string{false: "dense", true: "lu"}[sparse], func(b *testing.B) {
					pivots := 0
					for b.Loop() {
						b.StopTimer()
						lp := freshLPAs(cg, sparse)
						b.StartTimer()
						lp.solve(1000*c.m, nil)
						if z := lp.objective(); !lp.optimal || math.Abs(z-want) > 1e-9*(1+want) {
							b.Fatalf("a solve ended at %v after %d pivots (optimal %v), the dense one at %v", z, lp.work, lp.optimal, want)
						}
						pivots += lp.work
					}
					b.ReportMetric(float64(pivots)/float64(b.N), "pivots")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pivots), "ns/pivot")
				})
			}
		})
	}
}
