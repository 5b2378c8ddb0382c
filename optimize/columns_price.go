package optimize

import (
	"math"
	"sort"

	"github.com/packer-sched/packer/model"
)

// knapOption is one role a job may take in a phase of length D, with its
// weights in the pricing programme's two capacities (see Columns).
type knapOption struct {
	role   int
	w1, w2 int
}

// knapsack is the pricing programme for phase length D: the most Σπ over
// subsets and roles within the two capacities (Columns), every job at the
// fewest VMs that meet D. Weights are floored to units of scale VMs and the
// capacities too, which only relaxes them: Σ⌊w/s⌋ ≤ ⌊Σw/s⌋ ≤ ⌊N/s⌋. With
// trace it also returns the subset and roles.
func (cg *columnGen) knapsack(D float64, trace bool) (float64, []int, []int) {
	c := cg.cap
	width := c + 1
	dp := make([]float64, width*width)
	var items []int
	var choice [][]int8
	var opts []knapOption
	for j := range cg.p.Jobs {
		if cg.pi[j] <= 0 {
			continue
		}
		opts = cg.options(j, D, opts[:0])
		if len(opts) == 0 {
			continue
		}
		var ch []int8
		if trace {
			ch = make([]int8, width*width)
			for i := range ch {
				ch[i] = -1
			}
		}
		v := cg.pi[j]
		for a := c; a >= 0; a-- {
			for b := c; b >= 0; b-- {
				cell := a*width + b
				for oi, o := range opts {
					if o.w1 > a || o.w2 > b {
						continue
					}
					if t := dp[(a-o.w1)*width+b-o.w2] + v; t > dp[cell] {
						dp[cell] = t
						if trace {
							ch[cell] = int8(oi)
						}
					}
				}
			}
		}
		if trace {
			items = append(items, j)
			choice = append(choice, ch)
		}
	}
	best := dp[c*width+c]
	if !trace {
		return best, nil, nil
	}
	var jobs, roles []int
	a, b := c, c
	for i := len(items) - 1; i >= 0; i-- {
		oi := choice[i][a*width+b]
		if oi < 0 {
			continue
		}
		o := cg.options(items[i], D, nil)[oi]
		jobs = append(jobs, items[i])
		roles = append(roles, o.role)
		a, b = a-o.w1, b-o.w2
	}
	return best, jobs, roles
}

// options lists job j's roles that meet D, with their weights.
func (cg *columnGen) options(j int, D float64, out []knapOption) []knapOption {
	ps, s := cg.ps, cg.scale
	if lo, hi := ps.span(j, rolePrimary, D); lo <= hi {
		out = append(out, knapOption{rolePrimary, lo / s, lo / s})
	}
	if ps.canHost[j] {
		if lo, hi := ps.span(j, roleHost, D); lo <= hi {
			out = append(out, knapOption{roleHost, lo / s, 0})
		}
	}
	if ps.canExtra[j] {
		if lo, hi := ps.span(j, roleExtra, D); lo <= hi && lo <= ps.emax {
			e := ps.p.Cluster.ExtrasPerHost()
			out = append(out, knapOption{roleExtra, 0, ps.k * lo / (e * s)})
		}
	}
	return out
}

// integer builds a schedule from the LP's columns: those with the largest λ
// first, then the least duration per job, never two sharing a job. Job j's
// singleton is a column, so every job is covered.
func (cg *columnGen) integer() model.Schedule {
	lam := cg.lp.values()
	order := make([]int, len(cg.phases))
	for i := range order {
		order[i] = i
	}
	ratio := func(i int) float64 { return cg.lp.cost[i] / float64(len(cg.lp.cols[i])) }
	sort.SliceStable(order, func(a, b int) bool {
		la, lb := math.Round(lam[order[a]]*1e6), math.Round(lam[order[b]]*1e6)
		if la != lb {
			return la > lb
		}
		return ratio(order[a]) < ratio(order[b])
	})
	used := make([]bool, len(cg.p.Jobs))
	var s model.Schedule
	for _, i := range order {
		free := true
		for _, j := range cg.lp.cols[i] {
			free = free && !used[j]
		}
		if !free {
			continue
		}
		for _, j := range cg.lp.cols[i] {
			used[j] = true
		}
		s.Phases = append(s.Phases, cg.phases[i])
	}
	return s
}
