package optimize

import (
	"math"
	"slices"
	"sort"
)

// Greedy pricing for large clusters. Past maxCells the pricing programme
// counts VMs in units of cg.scale, and a quick round rounds weights up so
// that its sets fit: at 200 hosts (400 primary VMs, units of 4) a job that
// needs 1 VM takes 4, where the phases of a good plan hold a hundred jobs or
// more on 1 to 4 VMs each. Those sets make poor columns (at one set of
// duals of random-m1000-seed1 on 200 hosts they were worth about half the
// reduced cost of the exact programme's in single VMs, which costs 16 times
// as much to run), and column generation there barely moved its LP.
//
// So when scale > 1 a quick round also prices greedily, in single VMs, and
// so does a due full round that enters nothing (price):
// for a count O of overcommitted machines the phase's capacities are
// separate (k·(P−O) primary, k·O host, ⌊k/r⌋·O extra VMs; see the pricing
// programme), and the greedy takes (job, role) options in the order of
// their dual per VM, each job once, while its role's capacity lasts; the
// best of greedyOvercommits values of O wins, among the sets that have
// host and extra VMs both or neither. Such a set meets the programme's
// constraints for its O, so it is worth at most the exact programme's
// value, and it fits a phase of length D wherever runtimes do not rise with
// VMs (the programme's padding argument; realize checks every set exactly
// anyway). With many small items, as here, a greedy by value per weight is
// close to the knapsack's optimum for the cost of a sort: at those duals
// about 94 % of the exact programme's reduced cost. The columns only add
// to the LP; bounds come from full rounds alone, which the greedy leaves
// as they were.
const (
	// greedyDurations is the durations a greedy quick round prices,
	// spread geometrically over the candidates.
	greedyDurations = 60
	// greedyOvercommits is the counts O of overcommitted machines tried:
	// 0, P/n, 2P/n, … .
	greedyOvercommits = 32
	// greedyEnter is the most greedy sets a round enters, beside the
	// programme's: three times as many made the LP's re-solves, a round's
	// main cost at 1,000 jobs, slower for no better plans.
	greedyEnter = maxEnter
	// greedyTick is the durations priced greedily per check of the
	// limit: about the time of one duration of the programme.
	greedyTick = 16
)

// greedyOption is one way to run a job in a phase: a role and the fewest
// VMs that meet the phase's length in it.
type greedyOption struct {
	job, role, vms int
	key            float64 // π_job per VM
}

// greedyRound prices greedyDurations durations greedily at cg.pi and enters
// the greedyEnter sets whose duration beats their value most (realize
// keeps those whose reduced cost under cg.y is negative); it returns how
// many entered, 0 with cg.cut set if cg.stop ended it.
func (cg *columnGen) greedyRound() int {
	if cg.cut {
		return 0
	}
	if cg.greedyGrid == nil {
		cg.greedyGrid, _ = thinGrid(cg.ps.cands, greedyDurations)
	}
	type found struct {
		rc          float64
		jobs, roles []int
	}
	var sets []found
	for i, D := range cg.greedyGrid {
		if i%greedyTick == greedyTick-1 && cg.stop != nil && cg.stop() {
			cg.cut = true
			return 0
		}
		jobs, roles, v := cg.greedySet(D)
		if D-v < -1e-9*D {
			sets = append(sets, found{D - v, jobs, roles})
		}
	}
	sort.SliceStable(sets, func(a, b int) bool { return sets[a].rc < sets[b].rc })
	added := 0
	for _, f := range sets[:min(greedyEnter, len(sets))] {
		if cg.realize(f.jobs, f.roles) {
			added++
		}
	}
	return added
}

// greedySet is the greedy's set for phase length D at cg.pi: its jobs,
// roles and value Σπ, the best over the counts of overcommitted machines.
func (cg *columnGen) greedySet(D float64) (jobs, roles []int, value float64) {
	ps := cg.ps
	c := ps.p.Cluster
	var opts []greedyOption
	for j, pi := range cg.pi {
		if pi <= 0 {
			continue
		}
		for _, r := range ps.roles(j) {
			if lo, hi := ps.span(j, r, D); lo <= hi {
				opts = append(opts, greedyOption{j, r, lo, pi / float64(lo)})
			}
		}
	}
	slices.SortStableFunc(opts, func(a, b greedyOption) int {
		if a.key != b.key {
			if a.key > b.key {
				return -1
			}
			return 1
		}
		return a.job - b.job
	})
	taken := make([]bool, len(cg.pi))
	value = math.Inf(-1)
	extras := c.ExtrasPerHost()
	for i := range greedyOvercommits {
		o := c.Hosts * i / greedyOvercommits
		left := [3]int{ps.n, 0, 0}
		if o > 0 {
			left = [3]int{ps.k * (c.Hosts - o), ps.k * o, extras * o}
		}
		var js, rs []int
		var v float64
		var used [3]bool
		for _, op := range opts {
			if taken[op.job] || op.vms > left[op.role] {
				continue
			}
			left[op.role] -= op.vms
			taken[op.job] = true
			used[op.role] = true
			js, rs = append(js, op.job), append(rs, op.role)
			v += cg.pi[op.job]
		}
		for _, j := range js {
			taken[j] = false
		}
		// Host VMs need extras beside them and the reverse: a set with
		// only one of the two is no phase (the O = 0 pass finds the
		// sets with neither).
		if used[roleHost] == used[roleExtra] && v > value {
			jobs, roles, value = js, rs, v
		}
	}
	return jobs, roles, value
}
