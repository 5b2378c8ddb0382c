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
	// Sparse is true when only each job's nearest partners were priced
	// (past denseJobs jobs or densePairWork steps) and the greedy matching
	// was not improved by swaps.
	Sparse bool
}

// pairTable holds what the matchings read: the cost of every job alone and
// of the candidate pairs. Dense (every pair i < j, in cost) up to denseJobs
// jobs and densePairWork pricing steps; past them (sparse) only each job's
// nearest partners are priced (pairNeighbours), so that time and memory grow
// with M, not M².
type pairTable struct {
	m     int
	alone []float64
	cost  []float64 // dense: pair (i, j), i < j, at i·m + j
	cands []pairCand
	dense bool
}

// pairCand is a candidate pair and what pairing it saves against running
// both alone.
type pairCand struct {
	i, j int32
	cost float64
	save float64
}

// The dense pair table's limits: up to 2,000 jobs (32 bytes a pair: 64 MB)
// and 4·10⁸ steps of the concurrent split's search (M²/2 pairs × N VMs,
// about a second). pairNeighbours is how many partners each job is priced
// with past them, on each side of it in two orders.
const (
	denseJobs      = 2000
	densePairWork  = 4e8
	pairNeighbours = 8
)

// pairDense reports whether pairCosts prices every pair of m jobs on n
// primary VMs.
func pairDense(m, n int) bool {
	return m <= denseJobs && float64(m)*float64(m-1)/2*float64(n) <= densePairWork
}

// pairBytes estimates the memory pairCosts and the matching hold for m jobs
// on n primary VMs.
func pairBytes(m, n int) float64 {
	b := float64(m) * float64(n+4) * 8
	if pairDense(m, n) {
		return b + float64(m)*float64(m)*8 + float64(m)*float64(m-1)/2*float64(candBytes)
	}
	return b + 4*pairNeighbours*float64(m)*float64(candBytes)
}

// candBytes is the size of a pairCand in bytes.
const candBytes = 24

func (t *pairTable) pairCost(i, j int) float64 {
	if j < 0 || i == j {
		return t.alone[i]
	}
	if i > j {
		i, j = j, i
	}
	return t.cost[i*t.m+j]
}

func (t *pairTable) get(i, j int) PairCost {
	if j < 0 || i == j {
		return PairCost{I: i, J: -1, Option: PairAlone, Cost: t.alone[i]}
	}
	if i > j {
		i, j = j, i
	}
	return PairCost{I: i, J: j, Cost: t.pairCost(i, j)}
}

// pairCosts prices the candidate pairs (pairTable) and every job alone. It is
// PricePair's arithmetic on runtimes tabulated once per job (M·N of them
// rather than one per pair and VM count), without the phases: PairSchedule
// builds those for the chosen pairs.
func pairCosts(p *model.Problem) *pairTable {
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
	price := func(i, j int) float64 {
		best := prim[i][n] + prim[j][n]
		for x := 1; x < n; x++ {
			best = min(best, max(prim[i][x], prim[j][n-x]))
		}
		ji, jj := p.Jobs[i], p.Jobs[j]
		switch {
		case e == 0:
		case ji.CanHost() && jj.CanBeExtra():
			best = min(best, max(host[i], extra[j]))
		case jj.CanHost() && ji.CanBeExtra():
			best = min(best, max(host[j], extra[i]))
		}
		return best
	}
	t := &pairTable{m: m, alone: make([]float64, m), dense: pairDense(m, n)}
	for i := range m {
		t.alone[i] = prim[i][n]
	}
	add := func(i, j int, cost float64) {
		t.cands = append(t.cands, pairCand{int32(i), int32(j), cost, t.alone[i] + t.alone[j] - cost})
	}
	if t.dense {
		t.cost = make([]float64, m*m)
		t.cands = make([]pairCand, 0, m*(m-1)/2)
		for i := range m {
			for j := i + 1; j < m; j++ {
				t.cost[i*m+j] = price(i, j)
				add(i, j, t.cost[i*m+j])
			}
		}
		return t
	}
	seen := map[[2]int32]bool{}
	near := func(order []int) {
		for a, i := range order {
			for b := a + 1; b < len(order) && b <= a+pairNeighbours; b++ {
				lo, hi := min(i, order[b]), max(i, order[b])
				if k := [2]int32{int32(lo), int32(hi)}; !seen[k] {
					seen[k] = true
					add(lo, hi, price(lo, hi))
				}
			}
		}
	}
	// Jobs of about the same length share the cluster best side by side;
	// an I/O job on all N VMs best overcommitted with a CPU job as long.
	byLength := make([]int, m)
	for i := range byLength {
		byLength[i] = i
	}
	sort.SliceStable(byLength, func(a, b int) bool { return t.alone[byLength[a]] < t.alone[byLength[b]] })
	near(byLength)
	if e > 0 {
		var both []int
		for i := range m {
			if p.Jobs[i].CanHost() || p.Jobs[i].CanBeExtra() {
				both = append(both, i)
			}
		}
		key := func(i int) float64 {
			if p.Jobs[i].CanHost() {
				return host[i]
			}
			return extra[i]
		}
		sort.SliceStable(both, func(a, b int) bool { return key(both[a]) < key(both[b]) })
		near(both)
	}
	return t
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
	return PairResult{Schedule: s, Pairs: chosen, Exact: exact, Sparse: !cost.dense}, nil
}

// matchExact solves the matching by dynamic programming over the subsets of
// jobs still to schedule. best[mask] is the least cost of scheduling the jobs
// in mask; a lone job is allowed only when mask has an odd count, so exactly
// one job runs alone when M is odd and none when it is even.
func matchExact(cost *pairTable) []PairCost {
	m := cost.m
	full := uint32(1)<<m - 1
	best := make([]float64, 1<<m)
	next := make([]int8, 1<<m) // partner of the lowest job; itself for "alone"
	for mask := uint32(1); mask <= full; mask++ {
		i := bits.TrailingZeros32(mask)
		rest := mask &^ (1 << i)
		b, nb := math.Inf(1), int8(-1)
		if bits.OnesCount32(mask)%2 == 1 {
			b, nb = cost.alone[i]+best[rest], int8(i)
		}
		for r := rest; r != 0; r &= r - 1 {
			j := bits.TrailingZeros32(r)
			if t := cost.pairCost(i, j) + best[rest&^(1<<j)]; t < b {
				b, nb = t, int8(j)
			}
		}
		best[mask], next[mask] = b, nb
	}
	var out []PairCost
	for mask := full; mask != 0; {
		i := bits.TrailingZeros32(mask)
		j := int(next[mask])
		out = append(out, cost.get(i, j))
		mask &^= 1<<i | 1<<j
	}
	return out
}

// matchGreedy pairs jobs for large M: repeatedly take the candidate pair
// whose cost saves most against running both alone, then, on a dense table,
// improve by swapping partners between two pairs while that lowers the
// total. It is not exact.
func matchGreedy(cost *pairTable) []PairCost {
	m := cost.m
	used := make([]bool, m)
	var out []PairCost
	// Pairs by saving, largest first (ties in index order); taking each whose
	// jobs are both free is the repeated "best pair left" in O(C log C).
	cands := cost.cands
	sort.Slice(cands, func(a, b int) bool {
		x, y := cands[a], cands[b]
		if x.save != y.save {
			return x.save > y.save
		}
		return x.i < y.i || (x.i == y.i && x.j < y.j)
	})
	for _, c := range cands {
		if !used[c.i] && !used[c.j] {
			used[c.i], used[c.j] = true, true
			out = append(out, PairCost{I: int(c.i), J: int(c.j), Cost: c.cost})
		}
	}
	for i := range m {
		if !used[i] {
			out = append(out, cost.get(i, -1))
		}
	}
	if cost.dense {
		swapPairs(cost, out)
	}
	return out
}

// swapPairs improves a matching on a dense table by swapping partners
// between two pairs (or a pair and a lone job) while that lowers the total.
// Each pass is O(M²); passes are capped so that large M stays fast.
func swapPairs(cost *pairTable, out []PairCost) {
	get := cost.get
	for pass, improved := 0, true; improved && pass < 50; pass++ {
		improved = false
		for x := range out {
			for y := x + 1; y < len(out); y++ {
				px, py := x, y
				if out[px].J < 0 {
					px, py = py, px // keep any lone job in py
				}
				a, b, c, d := out[px].I, out[px].J, out[py].I, out[py].J
				if b < 0 {
					continue // two lone jobs: pairing them is the greedy's choice
				}
				now := out[px].Cost + out[py].Cost
				var alts [2][2]PairCost
				if d < 0 {
					// A lone job c may swap with either member of the pair a–b.
					alts = [2][2]PairCost{{get(a, c), get(b, -1)}, {get(b, c), get(a, -1)}}
				} else {
					alts = [2][2]PairCost{{get(a, c), get(b, d)}, {get(a, d), get(b, c)}}
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
}
