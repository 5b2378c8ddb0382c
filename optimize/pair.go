package optimize

import (
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/packer-sched/packer/model"
)

// PairOption names how a pair of jobs shares the cluster.
type PairOption string

// The three options of the packing paper, section 5.1, and a lone job.
const (
	PairSequential PairOption = "sequential" // s_ij = F_i(N) + F_j(N)
	PairConcurrent PairOption = "concurrent" // c_ij = min_x max(F_i(x), F_j(N−x))
	PairOvercommit PairOption = "overcommit" // o_ij = α·max(F_io(N), F_cpu(P·⌊k/r⌋))
	PairAlone      PairOption = "alone"      // the odd job out: F_i(N)
)

// PairCost is the best way to run jobs I and J (J = −1: I alone) together.
type PairCost struct {
	I, J   int
	Option PairOption
	Cost   float64
	Phases []model.Phase
}

// MaxExactPairJobs is the largest job count the pair scheduler matches
// exactly: its dynamic programme keeps one float64 per subset of jobs,
// 2^22 × 9 bytes ≈ 38 MB at the limit. Past it, Pair falls back to a greedy
// matching improved by pair swaps, and says so.
const MaxExactPairJobs = 22

// PricePair computes C_ij = min(s_ij, c_ij, o_ij) for one pair of jobs (the packing paper,
// section 5.1). The concurrent split is searched over every integer x in
// 1..N−1 rather than by root finding: VM counts are integers, and the root of
// F_i(x) = F_j(N−x) only says where the optimum is near. Overcommitting is
// considered only for an I/O-only job with a CPU-only job, the former on all N
// VMs in the host role, the latter on P·⌊k/r⌋ extra VMs.
func PricePair(p *model.Problem, i, j int) PairCost {
	n := p.Cluster.PrimaryVMs()
	best := PairCost{I: i, J: j, Option: PairSequential,
		Cost: p.Runtime(i, n, model.Primary) + p.Runtime(j, n, model.Primary),
		Phases: []model.Phase{
			{Jobs: []model.Assignment{{Job: i, VMs: n, Role: model.Primary}}},
			{Jobs: []model.Assignment{{Job: j, VMs: n, Role: model.Primary}}},
		}}
	bx := 0
	cx := math.Inf(1)
	for x := 1; x < n; x++ {
		if t := max(p.Runtime(i, x, model.Primary), p.Runtime(j, n-x, model.Primary)); t < cx {
			cx, bx = t, x
		}
	}
	if cx < best.Cost {
		best = PairCost{I: i, J: j, Option: PairConcurrent, Cost: cx,
			Phases: []model.Phase{{Jobs: []model.Assignment{{Job: i, VMs: bx, Role: model.Primary}, {Job: j, VMs: n - bx, Role: model.Primary}}}}}
	}
	io, cpu := -1, -1
	switch ji, jj := p.Jobs[i], p.Jobs[j]; {
	case ji.CanHost() && jj.CanBeExtra():
		io, cpu = i, j
	case jj.CanHost() && ji.CanBeExtra():
		io, cpu = j, i
	}
	if e := p.Cluster.ExtrasFor(n); io >= 0 && e > 0 {
		o := max(p.Runtime(io, n, model.Host), p.Runtime(cpu, e, model.Extra))
		if o < best.Cost {
			as := []model.Assignment{{Job: io, VMs: n, Role: model.Host}, {Job: cpu, VMs: e, Role: model.Extra}}
			if cpu < io {
				as[0], as[1] = as[1], as[0]
			}
			best = PairCost{I: i, J: j, Option: PairOvercommit, Cost: o, Phases: []model.Phase{{Jobs: as}}}
		}
	}
	return best
}

// PriceAlone is the cost of job i alone on all N VMs: the odd job out when M is odd.
func PriceAlone(p *model.Problem, i int) PairCost {
	n := p.Cluster.PrimaryVMs()
	return PairCost{I: i, J: -1, Option: PairAlone, Cost: p.Runtime(i, n, model.Primary),
		Phases: []model.Phase{{Jobs: []model.Assignment{{Job: i, VMs: n, Role: model.Primary}}}}}
}

// PairResult is the pair scheduler's answer.
type PairResult struct {
	Schedule model.Schedule
	Pairs    []PairCost // the chosen pairs, in the order of their phases
	// Exact is true when the pairing is provably the best of all pairings
	// (M ≤ MaxExactPairJobs); false when the greedy fallback was used.
	Exact bool
}

// pairCosts prices every pair i < j at cost[i][j] and every job alone at
// cost[i][i], the upper triangle the matchings read. It is PricePair's
// arithmetic on runtimes tabulated once per job (M·N of them rather than
// M²·N), without the phases: PairSchedule builds those for the chosen pairs.
func pairCosts(p *model.Problem) [][]PairCost {
	m, c := len(p.Jobs), p.Cluster
	n := c.PrimaryVMs()
	e := c.ExtrasFor(n)
	prim := make([][]float64, m)
	host, extra := make([]float64, m), make([]float64, m)
	for j := range m {
		prim[j] = make([]float64, n+1)
		for x := 1; x <= n; x++ {
			prim[j][x] = p.Runtime(j, x, model.Primary)
		}
		host[j] = p.Runtime(j, n, model.Host)
		if e > 0 {
			extra[j] = p.Runtime(j, e, model.Extra)
		}
	}
	cost := make([][]PairCost, m)
	for i := range m {
		cost[i] = make([]PairCost, m)
		for j := i + 1; j < m; j++ {
			best := PairCost{I: i, J: j, Option: PairSequential, Cost: prim[i][n] + prim[j][n]}
			cx := math.Inf(1)
			for x := 1; x < n; x++ {
				cx = min(cx, max(prim[i][x], prim[j][n-x]))
			}
			if cx < best.Cost {
				best.Option, best.Cost = PairConcurrent, cx
			}
			ji, jj := p.Jobs[i], p.Jobs[j]
			o := math.Inf(1)
			switch {
			case e == 0:
			case ji.CanHost() && jj.CanBeExtra():
				o = max(host[i], extra[j])
			case jj.CanHost() && ji.CanBeExtra():
				o = max(host[j], extra[i])
			}
			if o < best.Cost {
				best.Option, best.Cost = PairOvercommit, o
			}
			cost[i][j] = best
		}
		cost[i][i] = PairCost{I: i, J: -1, Option: PairAlone, Cost: prim[i][n]}
	}
	return cost
}

// PairSchedule runs the packing paper's pair scheduler: it prices every pair of jobs
// with PricePair and chooses the pairing of all M jobs with the least total cost;
// when M is odd, exactly one job runs alone on all N VMs.
//
// The seed searches all (M−1)!! pairings. This solves the same minimum-weight
// perfect matching by dynamic programming over subsets: the lowest-numbered job
// left is either paired with some other remaining job or, if an odd number
// remain, run alone. That is O(2^M·M) time and is exact up to MaxExactPairJobs
// jobs (2^20 states for M = 20, a few tens of milliseconds).
func PairSchedule(p *model.Problem) (PairResult, error) {
	m := len(p.Jobs)
	if m == 0 {
		return PairResult{}, fmt.Errorf("optimize: pair scheduler: no jobs")
	}
	cost := pairCosts(p)
	var chosen []PairCost
	exact := m <= MaxExactPairJobs
	if exact {
		chosen = matchExact(cost)
	} else {
		chosen = matchGreedy(cost)
	}
	var s model.Schedule
	for k, c := range chosen {
		if c.J < 0 {
			chosen[k] = PriceAlone(p, c.I)
		} else {
			chosen[k] = PricePair(p, c.I, c.J)
		}
		s.Phases = append(s.Phases, chosen[k].Phases...)
	}
	s = model.Normalize(s)
	if err := p.Check(s); err != nil {
		return PairResult{}, fmt.Errorf("optimize: pair scheduler produced a bad schedule (a bug): %w", err)
	}
	return PairResult{Schedule: s, Pairs: chosen, Exact: exact}, nil
}

// matchExact solves the matching by dynamic programming over the subsets of
// jobs still to schedule. best[mask] is the least cost of scheduling the jobs
// in mask; a lone job is allowed only when mask has an odd count, so exactly
// one job runs alone when M is odd and none when it is even.
func matchExact(cost [][]PairCost) []PairCost {
	m := len(cost)
	full := uint32(1)<<m - 1
	best := make([]float64, 1<<m)
	next := make([]int8, 1<<m) // partner of the lowest job; itself for "alone"
	for mask := uint32(1); mask <= full; mask++ {
		i := bits.TrailingZeros32(mask)
		rest := mask &^ (1 << i)
		b, nb := math.Inf(1), int8(-1)
		if bits.OnesCount32(mask)%2 == 1 {
			b, nb = cost[i][i].Cost+best[rest], int8(i)
		}
		for r := rest; r != 0; r &= r - 1 {
			j := bits.TrailingZeros32(r)
			if t := cost[i][j].Cost + best[rest&^(1<<j)]; t < b {
				b, nb = t, int8(j)
			}
		}
		best[mask], next[mask] = b, nb
	}
	var out []PairCost
	for mask := full; mask != 0; {
		i := bits.TrailingZeros32(mask)
		j := int(next[mask])
		out = append(out, cost[i][j])
		mask &^= 1<<i | 1<<j
	}
	return out
}

// matchGreedy pairs jobs for large M: repeatedly take the pair whose cost saves
// most against running both alone, then improve by swapping partners between
// two pairs while that lowers the total. It is not exact.
func matchGreedy(cost [][]PairCost) []PairCost {
	m := len(cost)
	used := make([]bool, m)
	var out []PairCost
	// Pairs by saving, largest first (ties in index order); taking each whose
	// jobs are both free is the repeated "best pair left" in O(M² log M).
	type cand struct {
		i, j int
		save float64
	}
	cands := make([]cand, 0, m*(m-1)/2)
	for i := range m {
		for j := i + 1; j < m; j++ {
			cands = append(cands, cand{i, j, cost[i][i].Cost + cost[j][j].Cost - cost[i][j].Cost})
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].save > cands[b].save })
	for _, c := range cands {
		if !used[c.i] && !used[c.j] {
			used[c.i], used[c.j] = true, true
			out = append(out, cost[c.i][c.j])
		}
	}
	for i := range m {
		if !used[i] {
			out = append(out, cost[i][i])
		}
	}
	get := func(a, b int) PairCost {
		if b < 0 {
			return cost[a][a]
		}
		if a > b {
			a, b = b, a
		}
		return cost[a][b]
	}
	// Each pass is O(M²); passes are capped so that large M stays fast.
	for pass, improved := 0, true; improved && pass < 50; pass++ {
		improved = false
		for x := range out {
			for y := x + 1; y < len(out); y++ {
				px, py := x, y
				if out[px].J < 0 {
					px, py = py, px // keep any lone job in py
				}
				a, b, c, d := out[px].I, out[px].J, out[py].I, out[py].J
				now := out[px].Cost + out[py].Cost
				var alts [][2]PairCost
				if d < 0 {
					// A lone job c may swap with either member of the pair a–b.
					alts = [][2]PairCost{{get(a, c), get(b, -1)}, {get(b, c), get(a, -1)}}
				} else {
					alts = [][2]PairCost{{get(a, c), get(b, d)}, {get(a, d), get(b, c)}}
				}
				for _, alt := range alts {
					if alt[0].Cost+alt[1].Cost < now-1e-9 {
						out[px], out[py] = alt[0], alt[1]
						improved = true
						break
					}
				}
			}
		}
	}
	return out
}
