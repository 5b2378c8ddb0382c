package optimize

import (
	"math"
	"sort"

	"github.com/packer-sched/packer/model"
)

// LowerBound is a lower bound on the makespan of any schedule, for judging
// plans too large for the exact solver. It is the least D that passes two
// tests every schedule of makespan D passes:
//
//   - Longest job: every job runs in some phase, which lasts at most D, so
//     each job must have some role and VM count with runtime ≤ D.
//   - Area: a job on x VMs with runtime t in a phase of duration d keeps its
//     x VMs for d ≥ t, so it takes at least x·t VM-seconds of the phase's N
//     primary VMs (or, as an extra, of its P·⌊k/r⌋ extra VMs). With t ≤ D,
//     that is at least a_j(D) = min{x·F_j(x) : F_j(x) ≤ D}, or
//     e_j(D) = min{x·α·F_j(x) : α·F_j(x) ≤ D, x ≤ P·⌊k/r⌋} as an extra.
//     Summed over phases: N·D ≥ Σ a_j(D) over primary and host jobs and
//     P·⌊k/r⌋·D ≥ Σ e_j(D) over extras, for some split of the CPU-only jobs
//     between the pools; the test allows fractional splits, so it is a
//     relaxation and the bound stays valid.
//
// Both tests get easier as D grows (a_j and e_j only fall), so the least D is
// found by bisection. The bound ignores that a phase lasts as long as its
// slowest job and that extras need hosts, so it is loose when phases cannot
// be filled evenly; `packer bench` prints how loose.
func LowerBound(p *model.Problem) float64 { return lowerBound(newPhaseSolver(p)) }

// lowerBound is LowerBound on p's phase solver, already built.
func lowerBound(ps *phaseSolver) float64 {
	p := ps.p
	n, emax := float64(ps.n), float64(ps.emax)
	type split struct{ a, e float64 }
	flex := make([]split, 0, len(p.Jobs))
	prim, extra := make([]areaIndex, len(p.Jobs)), make([]areaIndex, len(p.Jobs))
	for j := range p.Jobs {
		prim[j], extra[j] = newAreaIndex(ps.rt[j][rolePrimary]), newAreaIndex(ps.rt[j][roleExtra])
	}
	feasible := func(D float64) bool {
		fixed := 0.0
		flex = flex[:0]
		for j := range p.Jobs {
			a, e := prim[j].area(D), extra[j].area(D)
			switch {
			case math.IsInf(a, 1):
				return false // not even primary meets D, so no role does
			case math.IsInf(e, 1):
				fixed += a
			default:
				flex = append(flex, split{a, e})
			}
		}
		if fixed > n*D {
			return false
		}
		// Moving job j to the extras saves a_j primary VM-seconds for e_j extra
		// ones: taking the largest a_j/e_j first is the best fractional split.
		sort.SliceStable(flex, func(x, y int) bool { return flex[x].a*flex[y].e > flex[y].a*flex[x].e })
		prim, room := fixed, emax*D
		for _, f := range flex {
			if room >= f.e {
				room -= f.e
				continue
			}
			prim += (1 - room/f.e) * f.a
			room = 0
		}
		return prim <= n*D
	}
	// Sequential, every job alone on all N VMs, is a schedule: it passes.
	lo, hi := 0.0, p.SequentialMakespan()
	for range 100 {
		mid := (lo + hi) / 2
		if feasible(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo
}

// areaIndex answers min{x·t[x] : t[x] ≤ D} for one job and role in
// O(log N): the runtimes t[x] sorted, with the running minimum of x·t[x].
type areaIndex struct {
	t, least []float64
}

// newAreaIndex indexes t[1..]; t[0] is unused.
func newAreaIndex(t []float64) areaIndex {
	xs := make([]int, 0, max(0, len(t)-1))
	for x := 1; x < len(t); x++ {
		xs = append(xs, x)
	}
	sort.Slice(xs, func(a, b int) bool { return t[xs[a]] < t[xs[b]] })
	ix := areaIndex{t: make([]float64, len(xs)), least: make([]float64, len(xs))}
	for k, x := range xs {
		ix.t[k] = t[x]
		ix.least[k] = float64(x) * t[x]
		if k > 0 {
			ix.least[k] = min(ix.least[k], ix.least[k-1])
		}
	}
	return ix
}

// area is min x·t[x] over x with t[x] ≤ D; +Inf if none.
func (ix areaIndex) area(D float64) float64 {
	k := sort.Search(len(ix.t), func(i int) bool { return ix.t[i] > D })
	if k == 0 {
		return math.Inf(1)
	}
	return ix.least[k-1]
}
