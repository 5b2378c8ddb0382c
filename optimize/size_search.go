package optimize

import (
	"fmt"
	"sort"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// The search of Size: bounds, plans and what is learnt per host count.

// budgetShares are the shares of SizeSettings.Budget the first plans get,
// in sixths: the first, at the fewest hosts the area bound leaves, gets
// more, since its bound may rule that count out and every later plan starts
// from it. They leave a sixth for the plans past them, made only while no
// plan has met the deadline: a twelfth, then each half the one before, so
// that the search never runs past the Budget (--time-limit) however many
// it makes.
var budgetShares = []time.Duration{2, 1, 1, 1}

// budgetParts is what budgetShares count in.
const budgetParts = 6

// bound returns the point at hosts with LowerBound computed, computing it
// once.
func (z *sizer) bound(hosts int) (*SizePoint, error) {
	if pt, ok := z.points[hosts]; ok {
		return pt, nil
	}
	p, err := z.problem(hosts)
	if err != nil {
		return nil, err
	}
	lb := LowerBound(p)
	pt := &SizePoint{Hosts: hosts, Area: lb, Bound: lb}
	z.points[hosts] = pt
	z.report(pt)
	return pt, nil
}

func (z *sizer) report(pt *SizePoint) {
	if z.set.Progress != nil {
		z.set.Progress(*pt)
	}
}

// boundSearch bisects on LowerBound, non-increasing in P, for the fewest
// hosts whose bound is at most the deadline; ErrUnreachable if even
// MaxHosts' is above it.
func (z *sizer) boundSearch() (int, error) {
	top, err := z.bound(z.set.MaxHosts)
	if err != nil {
		return 0, err
	}
	if !meets(top.Bound, z.deadline) {
		return 0, fmt.Errorf("optimize: size: %w: even %d hosts need at least %s (lower bound), deadline %s",
			ErrUnreachable, z.set.MaxHosts, model.FormatSeconds(top.Bound), model.FormatSeconds(z.deadline))
	}
	lo, hi := 1, z.set.MaxHosts // bound(hi) ≤ D; every count below lo is ruled out
	for lo < hi {
		mid := lo + (hi-lo)/2
		pt, err := z.bound(mid)
		if err != nil {
			return 0, err
		}
		if meets(pt.Bound, z.deadline) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}

// timed reports whether a plan's time depends on its time limit: not for
// the exact solver (nor auto up to its exact size), pair or sequential.
func (z *sizer) timed() bool {
	exactJobs := AutoExactJobs
	if z.set.Solve != nil && z.set.Solve.ExactJobs > 0 {
		exactJobs = z.set.Solve.ExactJobs
	}
	switch z.set.Method {
	case MethodExact, MethodPair, MethodSequential:
		return false
	case MethodAuto:
		return len(z.w.Jobs) > exactJobs
	}
	return true
}

// settings returns the next plan's Solve settings and whether to make it:
// with a Budget, a timed plan gets its share (budgetShares) while there are
// shares left, then, only if it must be made, half what the one before it
// got of the last sixth.
func (z *sizer) settings(must bool) (*Settings, bool) {
	var s Settings
	if z.set.Solve != nil {
		s = *z.set.Solve
	}
	if z.set.Budget == 0 || !z.timed() {
		return &s, true
	}
	switch {
	case z.paid < len(budgetShares):
		s.TimeLimit = z.set.Budget * budgetShares[z.paid] / budgetParts
	case must:
		// At least a microsecond: 0 would be no limit at all.
		s.TimeLimit = max(time.Microsecond, z.set.Budget/(2*budgetParts)>>min(z.paid-len(budgetShares), 62))
	default:
		return nil, false
	}
	return &s, true
}

// maxSeeds is the most plans for fewer hosts that start a swarm.
const maxSeeds = 8

// seed starts the swarm of a plan on p's hosts (auto past the exact size,
// or pso) at the plans already made for fewer hosts, the best first: a
// schedule for fewer hosts is one for more, and the swarm's decoder gives
// its phases the VM counts the larger cluster allows, so the swarm, and the
// column generation auto seeds with it, never ends worse than those plans.
// The plans' makespans then never rise with hosts, where plans made apart
// would vary from count to count as much as the time limit cuts them.
func (z *sizer) seed(p *model.Problem, set *Settings) {
	if z.set.Method != MethodSwarm && (z.set.Method != MethodAuto || !z.timed()) {
		return
	}
	var fewer []*SizePoint
	for h, pt := range z.points {
		if h < p.Cluster.Hosts && pt.Planned {
			fewer = append(fewer, pt)
		}
	}
	sort.Slice(fewer, func(a, b int) bool {
		return fewer[a].Makespan < fewer[b].Makespan || fewer[a].Makespan == fewer[b].Makespan && fewer[a].Hosts > fewer[b].Hosts
	})
	var sw pso.Settings
	if set.Swarm != nil {
		sw = *set.Swarm
	}
	sw.Initial = append([][]float64(nil), sw.Initial...)
	n := min(len(fewer), maxSeeds)
	if sw.Particles > 0 { // the swarm takes at most one start per particle
		n = max(0, min(n, sw.Particles-1-len(sw.Initial)))
	}
	e := newSwarmEncoding(p)
	for _, pt := range fewer[:n] {
		sw.Initial = append(sw.Initial, e.encode(z.plans[pt.Hosts].Schedule))
	}
	set.Swarm = &sw
}

// plan makes (once) the plan at hosts and records its makespan and bound.
// Unless it must be made, it is not once the budget is spent: the point
// then stays unplanned.
func (z *sizer) plan(hosts int, must bool) (*SizePoint, error) {
	pt, err := z.bound(hosts)
	if err != nil || pt.Planned {
		return pt, err
	}
	set, ok := z.settings(must)
	if !ok {
		return pt, nil
	}
	p, err := z.problem(hosts)
	if err != nil {
		return nil, err
	}
	z.seed(p, set)
	res, err := Solve(p, z.set.Method, set)
	if err != nil {
		return nil, fmt.Errorf("optimize: size: plan on %d hosts: %w", hosts, err)
	}
	if z.set.Budget > 0 && z.timed() {
		z.paid++
		z.spent += set.TimeLimit
	}
	z.plans[hosts] = res
	pt.Planned, pt.Makespan = true, p.Makespan(res.Schedule)
	switch {
	case res.Optimum != nil:
		pt.PlanBound, pt.Optimal = *res.Optimum, true
	case res.LowerBound != nil:
		pt.PlanBound = *res.LowerBound
	}
	pt.Bound = max(pt.Area, pt.PlanBound)
	z.report(pt)
	return pt, nil
}

// planSearch plans upwards from first's count until a plan meets the
// deadline, then bisects between the last miss and that plan, then plans
// the fewest unsettled counts for bounds that rule them out; it returns the
// fewest hosts whose plan met the deadline.
//
// The upward step is a guess from the last plan: the best makespan known
// there (carried) over its LowerBound, times LowerBound at the next counts,
// predicts their plans' makespans; the step jumps to the first count
// predicted to meet the deadline, and after the second miss in a row at
// least doubles.
func (z *sizer) planSearch(lo int) (int, error) {
	start, err := z.first(lo)
	if err != nil {
		return 0, err
	}
	miss, hit := lo-1, 0 // plans at miss (if ≥ lo) missed
	for at, step := start, 1; ; step *= 2 {
		pt, err := z.plan(at, true)
		if err != nil {
			return 0, err
		}
		if meets(pt.Makespan, z.deadline) {
			hit = at
			break
		}
		if at == z.set.MaxHosts {
			return 0, fmt.Errorf("optimize: size: %w: no plan on up to %d hosts meets the deadline %s (best %s at %d hosts; lower bound there %s)",
				ErrUnreachable, at, model.FormatSeconds(z.deadline), model.FormatSeconds(pt.Makespan), at, model.FormatSeconds(pt.Bound))
		}
		miss = at
		guess, err := z.predict(at, z.carried(at)/pt.Area)
		if err != nil {
			return 0, err
		}
		at = min(max(guess, at+max(1, step/2)), z.set.MaxHosts)
	}
	for {
		miss = max(miss, z.lo()-1) // a plan's bound may have ruled out more
		if hit-miss <= 1 {
			break
		}
		pt, err := z.plan(miss+(hit-miss)/2, false)
		switch {
		case err != nil:
			return 0, err
		case !pt.Planned: // the budget is spent
			return hit, nil
		case meets(pt.Makespan, z.deadline):
			hit = pt.Hosts
		default:
			miss = pt.Hosts
		}
	}
	return z.tighten(hit)
}

// boundGain is what a heuristic plan's bound is taken to add to LowerBound
// when Size chooses where to plan first: column generation's bound, within
// the seconds a share of the budget gives it, came out 1.13 to 1.18 times
// LowerBound at 200 random jobs, and 1.3 at 50.
const boundGain = 1.1

// first is the count to plan first: P_lo when plans are exact; else the
// most hosts whose LowerBound times boundGain is above the deadline, where
// the plan's bound is likely to rule out that count and every smaller one
// at once, and at least P_lo.
func (z *sizer) first(lo int) (int, error) {
	if !z.timed() {
		return lo, nil
	}
	at := lo
	for ; at < z.set.MaxHosts; at++ {
		pt, err := z.bound(at + 1)
		if err != nil {
			return 0, err
		}
		if meets(pt.Area*boundGain, z.deadline) {
			break
		}
	}
	return at, nil
}

// carried is the shortest makespan of the plans made on at most hosts: a
// plan for fewer hosts is one for more, so a heuristic plan that came out
// worse than one for fewer hosts does not count against the count.
func (z *sizer) carried(hosts int) float64 {
	best := 0.0
	for h, pt := range z.points {
		if h <= hosts && pt.Planned && (best == 0 || pt.Makespan < best) {
			best = pt.Makespan
		}
	}
	return best
}

// predict returns the fewest hosts above from whose LowerBound times ratio
// meets the deadline, or MaxHosts. It scans upwards rather than bisects, so
// that the curve holds consecutive counts near the answer, not far ones;
// each bound takes milliseconds.
func (z *sizer) predict(from int, ratio float64) (int, error) {
	at := from + 1
	for ; at < z.set.MaxHosts; at++ {
		pt, err := z.bound(at)
		if err != nil {
			return 0, err
		}
		if meets(pt.Area*ratio, z.deadline) {
			break
		}
	}
	return at, nil
}

// tighten plans the fewest unsettled host count while it has no plan and
// the budget allows: the plan's bound (the exact optimum, or column
// generation's) may rule it out, raising lo, or its makespan may meet the
// deadline, lowering hit. It stops at the first count whose plan does
// neither.
func (z *sizer) tighten(hit int) (int, error) {
	for lo := z.lo(); lo < hit; lo = z.lo() {
		if pt, err := z.bound(lo); err != nil || pt.Planned {
			return hit, err
		}
		pt, err := z.plan(lo, false)
		switch {
		case err != nil:
			return 0, err
		case !pt.Planned:
			return hit, nil
		case meets(pt.Makespan, z.deadline):
			return lo, nil
		case meets(pt.Bound, z.deadline):
			return hit, nil
		}
	}
	return hit, nil
}

// lo is the fewest hosts not proven unable to meet the deadline: one more
// than the largest count examined whose bound is above it (the optimum being
// non-increasing in P, every smaller count is ruled out too).
func (z *sizer) lo() int {
	lo := 1
	for h, pt := range z.points {
		if !meets(pt.Bound, z.deadline) && h+1 > lo {
			lo = h + 1
		}
	}
	return lo
}
