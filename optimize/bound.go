package optimize

import (
	"math"
	"sort"
)

// LowerBound is a lower bound on the makespan of any schedule, for judging
// plans too large for the exact solver. It is the larger of two bounds:
//
//   - Longest job: every job runs in some phase, which lasts at least as long
//     as the job: makespan ≥ max_j min over roles and x of its runtime.
//   - Area: a job on x VMs with runtime t in a phase of duration d keeps x VMs
//     for d ≥ t, so it takes at least a_j = min_x x·F_j(x) VM-seconds of the
//     phase's N primary VMs (or, as an extra, e_j = min_x x·α·F_j(x) of its
//     P·⌊k/r⌋ extra VMs). Summed over phases: N·D ≥ Σ a_j over primary and
//     host jobs and P·⌊k/r⌋·D ≥ Σ e_j over extras. The bound is the least D
//     for which some fractional split of the CPU-only jobs between the two
//     pools meets both.
//
// It ignores that a phase lasts as long as its slowest job and that extras
// need hosts, so it is loose when jobs differ much in length; it is exact
// when the optimum packs VM-time perfectly.
func LowerBound(p *Problem) float64 {
	ps := newPhaseSolver(p)
	var longest, fixed float64
	type split struct{ a, e float64 }
	var flex []split
	for j := range p.Jobs {
		fastest, a, e := math.Inf(1), math.Inf(1), math.Inf(1)
		for role := range 3 {
			t := ps.rt[j][role]
			for x := 1; x < len(t); x++ {
				fastest = min(fastest, t[x])
				if role == roleExtra {
					e = min(e, float64(x)*t[x])
				} else {
					a = min(a, float64(x)*t[x])
				}
			}
		}
		longest = max(longest, fastest)
		if math.IsInf(e, 1) {
			fixed += a
		} else {
			flex = append(flex, split{a, e})
		}
	}
	// Moving job j to the extras saves a_j primary VM-seconds for e_j extra
	// ones: greedy by a_j/e_j is the optimal fractional split.
	sort.SliceStable(flex, func(x, y int) bool { return flex[x].a*flex[y].e > flex[y].a*flex[x].e })
	n, emax := float64(ps.n), float64(ps.emax)
	feasible := func(D float64) bool {
		prim, room := fixed, emax*D
		for _, f := range flex {
			if room >= f.e {
				room -= f.e
				continue
			}
			frac := room / f.e
			room = 0
			prim += (1 - frac) * f.a
		}
		return prim <= n*D
	}
	lo, hi := 0.0, fixed/n
	for _, f := range flex {
		hi += f.a / n
	}
	for range 200 {
		mid := (lo + hi) / 2
		if feasible(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return max(longest, lo)
}
