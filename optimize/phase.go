package optimize

import (
	"math"
	"slices"
	"sort"

	"github.com/packer-sched/packer/model"
)

// phaseSolver answers, for a set of jobs, the question both the exact solver
// and the swarm's decoder ask: what is the shortest this set can take as one
// phase, and with which VM counts and roles?
//
// The answer rests on three facts about the phase model. A phase lasts as long
// as its slowest job, so its duration is one of the candidates F_j(x) or
// α·F_j(x) for some job j and VM count x. For a duration T, each job's runtime
// in a role falls and then rises with x (a power law only falls, or only
// rises; a measured table that zigzags is read as its valley-shaped lower
// envelope, zigzag.go), so the VM counts that meet T form an interval
// [lo, hi] (empty when none does; see span). And whether some choice of VM
// counts meets T is monotone in T: a longer phase only widens the intervals.
// So the best duration is the smallest feasible candidate, found by binary
// search over the sorted candidates; feasibility for one T and one choice of
// roles is a few sums (see fits).
type phaseSolver struct {
	p    *model.Problem
	n    int // N = P·k primary VMs
	emax int // P·⌊k/r⌋ extra VMs
	r, k int
	// rt[j][role][x] is Runtime(j, x, role) for x = 1..cap(role), or its
	// lower valley envelope where that is not valley-shaped (zigzag); index
	// 0 is unused. Host and Extra share the α-scaled curve but not the cap.
	rt [][3][]float64
	// low[j][role] is the VM count with job j's least runtime in the role
	// (lowest), the bottom of the valley span searches.
	low [][3]int
	// cands are all candidate durations, sorted and without duplicates. A
	// subset's optimum is among them, and every smaller one is infeasible for
	// it, so a binary search over the whole list finds the subset's optimum.
	cands []float64
	// canHost and canExtra are the jobs' role permissions (the packing paper's
	// corrected (1 − O)ᵀB = 0 and (1 − C)ᵀB' = 0).
	canHost, canExtra []bool
	// transferPairs are the master LP's transfers (dominance.go), once
	// hasTransfers is set.
	transferPairs [][2]int
	hasTransfers  bool
	// zigzag are the jobs whose runtime tables were not valley-shaped in
	// some role; rt holds their lower valley envelopes (zigzag.go).
	zigzag []int
}

const (
	rolePrimary = iota
	roleHost
	roleExtra
)

var roleOf = [3]model.Role{model.Primary, model.Host, model.Extra}

func newPhaseSolver(p *model.Problem) *phaseSolver {
	c := p.Cluster
	ps := &phaseSolver{p: p, n: c.PrimaryVMs(), emax: c.MaxExtraVMs(), r: c.ExtraRatio, k: c.DisksPerHost,
		rt: make([][3][]float64, len(p.Jobs)), low: make([][3]int, len(p.Jobs)), canHost: make([]bool, len(p.Jobs)), canExtra: make([]bool, len(p.Jobs))}
	for j, job := range p.Jobs {
		ps.canHost[j], ps.canExtra[j] = job.CanHost(), job.CanBeExtra()
		for role := range 3 {
			limit := ps.n
			if role == roleExtra {
				limit = ps.emax
			}
			if (role == roleHost && !ps.canHost[j]) || (role == roleExtra && !ps.canExtra[j]) {
				limit = 0
			}
			t := make([]float64, limit+1)
			for x := 1; x <= limit; x++ {
				t[x] = p.Runtime(j, x, roleOf[role])
			}
			low, changed := valleyEnvelope(t)
			if changed && (len(ps.zigzag) == 0 || ps.zigzag[len(ps.zigzag)-1] != j) {
				ps.zigzag = append(ps.zigzag, j)
			}
			ps.cands = append(ps.cands, t[1:]...)
			ps.rt[j][role], ps.low[j][role] = t, low
		}
	}
	sort.Float64s(ps.cands)
	ps.cands = slices.Compact(ps.cands)
	return ps
}

// span returns the interval [lo, hi] of VM counts with which job j in the
// given role finishes within T; lo > hi when there is none. The runtime is
// valley-shaped in x: non-increasing up to its lowest point low, then
// non-decreasing (a power law is one side of the valley; a model kept
// inside its measured range, withinMeasured, rises on both sides of it), so
// the counts that meet T are an interval around low.
func (ps *phaseSolver) span(j, role int, T float64) (lo, hi int) {
	t := ps.rt[j][role]
	m := len(t) - 1
	x := ps.low[j][role]
	if m < 1 || t[x] > T {
		return 1, 0
	}
	// Two binary searches, written out: sort.Search called its predicate
	// through a closure at every step, which took about half of span's
	// time, and span is most of what the local search (fits) spends. They
	// probe the counts sort.Search would (TestSpanMatchesSortSearch). lo
	// is the first count in [1, x] with t ≤ T (t[x] is one), hi the last
	// in [x, m].
	l, h := 1, x+1
	for l < h {
		if mid := int(uint(l+h) >> 1); t[mid] <= T {
			h = mid
		} else {
			l = mid + 1
		}
	}
	lo = l
	l, h = x, m+1
	for l < h {
		if mid := int(uint(l+h) >> 1); t[mid] > T {
			h = mid
		} else {
			l = mid + 1
		}
	}
	return lo, l - 1
}

// lowest is the first x in 1..len(t)−1 with the least t[x]; 0 when t has no
// VM counts.
func lowest(t []float64) int {
	x := 0
	for i := 1; i < len(t); i++ {
		if x == 0 || t[i] < t[x] {
			x = i
		}
	}
	return x
}

// phasePlan is one feasible way to run a phase: a role and VM count per job.
type phasePlan struct {
	jobs  []int
	roles []int
	vms   []int
}

// fits reports whether the jobs, in the given roles, can all finish within T,
// and if so returns each job's interval [lo, hi] of VM counts; totalsFit
// decides whether some choice of VM counts in those intervals is feasible.
func (ps *phaseSolver) fits(jobs, roles []int, T float64, lo, hi []int) bool {
	var t roleTotals
	for k, j := range jobs {
		l, h := ps.span(j, roles[k], T)
		if l > h {
			return false
		}
		lo[k], hi[k] = l, h
		t.add(roles[k], l, h, 1)
	}
	return t.fit(ps)
}

// roleTotals is what fits adds up over a phase's jobs, each job's interval
// [l, h] of VM counts in its role: the fewest primary VMs, the fewest and
// most host and extra VMs, and how many jobs are hosts and extras. Counts,
// not flags, so that a job can be taken out again (candSums).
type roleTotals struct {
	prim, hLo, hHi, eLo, eHi int
	hosts, extras            int
}

// add adds a job in role with VM counts [l, h], sign +1, or takes it out,
// sign −1.
func (t *roleTotals) add(role, l, h, sign int) {
	switch role {
	case rolePrimary:
		t.prim += sign * l
	case roleHost:
		t.hLo, t.hHi, t.hosts = t.hLo+sign*l, t.hHi+sign*h, t.hosts+sign
	case roleExtra:
		t.eLo, t.eHi, t.extras = t.eLo+sign*l, t.eHi+sign*h, t.extras+sign
	}
}

// fit reports whether some choice of VM counts in the intervals is a
// feasible phase (totalsFit).
func (t roleTotals) fit(ps *phaseSolver) bool {
	return ps.totalsFit(t.prim, t.hLo, t.hHi, t.eLo, t.eHi, t.hosts > 0, t.extras > 0)
}

// totalsFit reports whether a phase can have prim primary VMs, between hLo
// and hHi host VMs and between eLo and eHi extra VMs (model.Problem.Check):
// hosts and extras come together, r·E ≤ H ≤ k·E, E ≤ P·⌊k/r⌋, and the
// primary VMs fit on the machines the O = Cluster.OvercommittedHosts(H, E)
// overcommitted ones leave: prim + k·O ≤ N. O only grows with E and H, and
// the other constraints only get harder, so the least E that admits a host
// count, E = max(eLo, ⌈hLo/k⌉), with the least H = max(hLo, r·E), decides.
func (ps *phaseSolver) totalsFit(prim, hLo, hHi, eLo, eHi int, hosts, extras bool) bool {
	if hosts != extras {
		return false // extras need hosts beside them, and host VMs extras
	}
	if !hosts {
		return prim <= ps.n
	}
	e := max(eLo, (hLo+ps.k-1)/ps.k)
	if e > min(eHi, ps.emax) {
		return false
	}
	h := max(hLo, ps.r*e)
	return h <= hHi && ps.totalsOK(prim, h, e)
}

// totalsOK reports whether exact totals of primary, host and extra VMs
// satisfy model.Problem.Check's per-phase constraints.
func (ps *phaseSolver) totalsOK(prim, host, extra int) bool {
	if host == 0 || extra == 0 {
		return host == extra && prim <= ps.n
	}
	if extra > ps.emax || ps.r*extra > host || host > ps.k*extra {
		return false
	}
	// Cluster.OvercommittedHosts, inline: the searches ask this most often.
	epk := ps.emax / ps.p.Cluster.Hosts
	return prim+ps.k*max((extra+epk-1)/epk, (host+ps.k-1)/ps.k) <= ps.n
}

// best is the shortest duration of the jobs as one phase in the given roles,
// +Inf when no duration works (more jobs than VMs, or extras no host can
// carry).
func (ps *phaseSolver) best(jobs, roles []int, lo, hi []int) float64 {
	top := len(ps.cands) - 1
	if top < 0 || !ps.fits(jobs, roles, ps.cands[top], lo, hi) {
		return math.Inf(1)
	}
	k := sort.Search(top, func(i int) bool { return ps.fits(jobs, roles, ps.cands[i], lo, hi) })
	return ps.cands[k]
}

// assign builds VM counts for jobs in roles that fit within T. Every job
// starts at the fewest VMs that meet T; extras and hosts then rise to the
// least totals totalsFit found feasible; then single VMs go, one at a time,
// to the job that is currently slowest and still speeds up, while the totals
// stay feasible (totalsOK), so that jobs finish early (the mean completion
// time improves) while the phase still lasts T.
func (ps *phaseSolver) assign(jobs, roles []int, T float64) phasePlan {
	lo := make([]int, len(jobs))
	hi := make([]int, len(jobs))
	if !ps.fits(jobs, roles, T, lo, hi) {
		panic("optimize: assign called with a duration that does not fit (a bug)")
	}
	vms := slices.Clone(lo)
	var tot [3]int // VMs per role
	for k := range jobs {
		tot[roles[k]] += vms[k]
	}
	isRole := func(r int) func(int) bool { return func(k int) bool { return roles[k] == r } }
	if tot[roleExtra] > 0 {
		e := max(tot[roleExtra], (tot[roleHost]+ps.k-1)/ps.k)
		for _, need := range []struct{ role, want int }{{roleExtra, e}, {roleHost, ps.r * e}} {
			for tot[need.role] < need.want {
				k := ps.slowest(jobs, roles, vms, hi, false, isRole(need.role))
				if k < 0 {
					panic("optimize: hosts and extras cannot reach their totals (a bug in totalsFit)")
				}
				vms[k]++
				tot[need.role]++
			}
		}
	}
	for {
		k := ps.slowest(jobs, roles, vms, hi, true, func(k int) bool {
			next := tot
			next[roles[k]]++
			return ps.totalsOK(next[rolePrimary], next[roleHost], next[roleExtra])
		})
		if k < 0 {
			break
		}
		vms[k]++
		tot[roles[k]]++
	}
	return phasePlan{jobs: slices.Clone(jobs), roles: slices.Clone(roles), vms: vms}
}

// slowest picks, among jobs allowed by ok and below hi (and, if mustHelp,
// whose runtime would drop with one more VM), the one with the longest
// runtime now; ties go to the earlier job. It returns −1 if there is none.
func (ps *phaseSolver) slowest(jobs, roles, vms, hi []int, mustHelp bool, ok func(int) bool) int {
	best, bt := -1, math.Inf(-1)
	for k, j := range jobs {
		if vms[k] >= hi[k] || !ok(k) {
			continue
		}
		t := ps.rt[j][roles[k]]
		if mustHelp && t[vms[k]+1] >= t[vms[k]] {
			continue // more VMs would not help this job
		}
		if t[vms[k]] > bt {
			best, bt = k, t[vms[k]]
		}
	}
	return best
}

// phase converts a plan to the foundation's model.Phase.
func (pp phasePlan) phase() model.Phase {
	var ph model.Phase
	for k, j := range pp.jobs {
		ph.Jobs = append(ph.Jobs, model.Assignment{Job: j, VMs: pp.vms[k], Role: roleOf[pp.roles[k]]})
	}
	return ph
}

// sharedTables builds p's phase solver and LowerBound once, when first
// asked, for the solvers one Solve runs in turn: at 5,000 jobs on 200 hosts
// each costs about a second.
type sharedTables struct {
	p     *model.Problem
	ps    *phaseSolver
	lb    float64
	hasLB bool
	// areaDual is Farley's bound at the area duals (columnGen.areaBound),
	// once a run has computed it whole.
	areaDual    float64
	hasAreaDual bool
	// level is the level bound (levels.go), where runCheckpoints computed
	// it whole, and levelDuals the duals that prove it.
	level      float64
	levelDuals []float64
}

func (sh *sharedTables) solver() *phaseSolver {
	if sh.ps == nil {
		sh.ps = newPhaseSolver(sh.p)
	}
	return sh.ps
}

func (sh *sharedTables) bound() float64 {
	if !sh.hasLB {
		sh.lb, sh.hasLB = lowerBound(sh.solver()), true
	}
	return sh.lb
}
