package optimize

import (
	"container/heap"
	"math"
	"sync"
)

// The level bound. Column generation proves its bound by Farley's
// argument on the master LP's duals π: every phase of length D holds jobs
// worth at most R·D in π for R = max_D value(D)/D, so every plan lasts at
// least Σπ/R. The duals are only as good as the LP, and at 1,000 jobs on
// 200 hosts the LP is far from converged when a limit of a minute ends it
// (random-m1000-seed1: bound 10,581 s after 45 s, 10,992 s after 300 s).
// The argument holds for any π ≥ 0, though, and for any value(D) that is
// at least the most a phase of length ≤ D can hold; the level bound
// searches for a good π directly, with a value that is cheap to compute
// and close where phases hold many jobs:
//
//   - value(D) is the fractional knapsack over the jobs, job j weighing the
//     fewest VMs w_jρ with which it meets D in its best role ρ: a phase has
//     p primary, h host and e extra VMs with p + h ≤ N and p + (k/⌊k/r⌋)·e
//     ≤ N (its O overcommitted hosts take k·O ≥ h and k·O ≥ (k/⌊k/r⌋)·e of
//     the N slots). Any θ in [0, 1] turns the two into one,
//     p + θ·h + (1−θ)(k/⌊k/r⌋)·e ≤ N, under which job j weighs
//     min(w_jP, θ·w_jH, (1−θ)(k/⌊k/r⌋)·w_jE); each θ's fractional knapsack
//     is at least the phase's best, so the least of a few θ is too.
//   - π is searched by multiplicative weights on a geometric grid of
//     lengths (levelRatio apart): each step lowers the duals of the jobs
//     in the knapsacks of the lengths where value(D)/D is near its maximum
//     (a soft maximum, levelSharpness), most where they count most. The
//     search is a fixed number of steps (levelStepsFor) from the area
//     duals, the same on any machine and number of goroutines.
//   - R is then taken over every length, not the grid: value is
//     non-decreasing in D, so between grid lengths a < b, value(D)/D ≤
//     value(b)/a, and the intervals where that could be the maximum are
//     halved until it is within levelTolerance of a value actually
//     attained, or they are too narrow to matter.
//
// The bound is Σπ/R for the π of the search's best step. Taking jobs in
// fractions loses little where phases hold tens of jobs on hundreds of
// VMs; dropping that host VMs must number r per extra (r·e ≤ h) only
// lowers the bound. On random-m1000-seed1 it proves 11,461 s in 2 s on 2
// cores; on 9 hosts, where phases hold a few jobs, the LP's own bound is
// higher (see levelWorth).

const (
	// levelRatio is the ratio of consecutive lengths of the search's grid.
	levelRatio = 1.05
	// levelSteps, levelRate and levelSharpness are the search's steps (up
	// to 1,000 jobs: levelStepsFor), its step size (the most a dual falls
	// in one step, as a power of e) and the sharpness of its soft maximum.
	// Measured on random-m1000-seed1 while choosing them, with every join
	// tried at every step, the bound after the halving: 11,468 s at these;
	// 11,446 s at rate 0.1 (11,455 s after 1,500 steps), 11,346 s at rate
	// 0.1 and sharpness 3,000; lengths 2 % apart, 11,450 s against 5 %'s
	// 11,446 s at rate 0.1, at 2.5 times the cost. Sharpness 20, 100, 300
	// and 1,000 gave 10,722, 11,125, 11,240 and 11,268 s on the grid alone
	// (rates 0.2, 0.2, 0.1, 0.1).
	levelSteps     = 600
	levelRate      = 0.05
	levelSharpness = 1000
	// levelTolerance ends the halving of intervals once the largest bound
	// on value(D)/D over them is within it of a value attained; intervals
	// narrower than levelNarrow are not halved.
	levelTolerance = 1e-3
	levelNarrow    = 2e-4
	// levelMax caps the grid's lengths (the ratio grows past levelRatio
	// where the candidate lengths span more than 1.05^511), and with it
	// the tables: 20 bytes a job and length.
	levelMax = 512
)

// levelStepsFor is the search's steps on m jobs: levelSteps up to 1,000
// jobs, fewer past them (at least 150), as a step costs time in proportion
// to the jobs: the stage then costs about what it costs at 1,000 jobs
// (random-m1000-seed1: 11,461 s after 600 steps, 11,446 s after 300,
// 11,196 s after 150; at 5,000 jobs 150 steps take 5 s on 2 cores).
func levelStepsFor(m int) int { return min(levelSteps, max(150, levelSteps*1000/max(m, 1))) }

// levelThetas are the ways θ of joining the two capacities that value(D)
// tries (see above). Which θ is least depends on the duals; on
// random-m1000-seed1 and seed2 (κ = 2) eleven from 0.2 to 0.8 proved at
// most 0.07 % more than these three, and three centred on κ/(1+κ), where
// the join charges a host VM and an extra VM alike, 0.3 % less.
var levelThetas = [...]float64{0.35, 0.5, 0.65}

// levelJob is one job's fewest VMs meeting a length in each role (+Inf
// where none does or the role is not open to it).
type levelJob struct{ p, h, e float32 }

// levelItem is a job in a fractional knapsack: its dual per VM, index and
// weight.
type levelItem struct {
	ratio  float64
	j      int
	weight float64
}

// levelSearch holds the level bound's tables.
type levelSearch struct {
	ps    *phaseSolver
	kappa float64 // k/⌊k/r⌋, primary slots an extra VM takes; +Inf without extras
	n     float64
	grid  []float64
	w     [][]levelJob // w[l][j] at grid[l]
	at    []levelJob   // scratch: weights at one length
	// theta[l] is the index in levelThetas of the join that gave grid[l]
	// its least value when the search last tried them all.
	theta []int
	// scratch holds each goroutine's knapsack scratch; the first is the
	// final maximum's.
	scratch []levelScratch
}

// levelScratch is one goroutine's knapsack scratch: its items and a
// knapsack's fractions.
type levelScratch struct {
	items []levelItem
	x     []float64
}

// levelWorth reports whether Solve computes the level bound on n primary
// VMs: where pricing counts VMs in units (more than 100), as areaBound,
// which it then replaces. Below, column generation's LP converges within
// the default limit and its own bound is higher where phases hold a few jobs
// (random-m200-seed1 on 9 hosts: 44,933 s against the LP's 46,257 s), and on
// 50 hosts, where the two are close, smoothing towards the level duals gave
// longer plans on all of random-m200-seed1 to seed5 at 15,000 units.
func levelWorth(n int) bool { return unitFor(n, maxCells) > 1 }

// levelBound returns the level bound on ps's problem, the duals that prove
// it (scaled so that they sum to it: no phase of length D holds more than D
// of them), and whether stop let it finish; it asks stop once per step of
// the search and once per 16 lengths the final maximum prices, and returns
// false once stop says so: a bound cut short is not one any longer search
// would return.
func levelBound(ps *phaseSolver, workers int, stop func() bool) (float64, []float64, bool) {
	if len(ps.cands) == 0 || len(ps.p.Jobs) == 0 || !(ps.cands[0] > 0) {
		return 0, nil, true // no phase, or lengths the grid cannot divide
	}
	ls := newLevelSearch(ps, workers)
	pi, ok := ls.search(stop)
	if !ok {
		return 0, nil, false
	}
	r, ok := ls.ratio(pi, stop)
	if !ok || r <= 0 {
		return 0, nil, ok
	}
	sum := 0.0
	for j := range pi {
		pi[j] /= r
		sum += pi[j]
	}
	return sum, pi, true
}

// newLevelSearch builds the search's tables; its pricing of the grid uses
// up to workers goroutines.
func newLevelSearch(ps *phaseSolver, workers int) *levelSearch {
	m := len(ps.p.Jobs)
	ls := &levelSearch{ps: ps, kappa: math.Inf(1), n: float64(ps.n), at: make([]levelJob, m)}
	for range max(1, workers) {
		ls.scratch = append(ls.scratch, levelScratch{make([]levelItem, 0, m), make([]float64, m)})
	}
	if e := ps.p.Cluster.ExtrasPerHost(); e > 0 { // always, as r ≤ k
		ls.kappa = float64(ps.k) / float64(e)
	}
	lo, hi := ps.cands[0], ps.cands[len(ps.cands)-1]
	ratio := max(levelRatio, math.Pow(hi/lo, 1/float64(levelMax-1)))
	D := lo
	for l := 0; l < levelMax; l, D = l+1, D*ratio {
		if D >= hi || l == levelMax-1 {
			D = hi // the longest phase, exactly
		}
		ls.grid = append(ls.grid, D)
		w := make([]levelJob, m)
		ls.weights(D, w)
		ls.w = append(ls.w, w)
		ls.theta = append(ls.theta, 0)
		if D == hi {
			break
		}
	}
	return ls
}

// weights fills w with every job's fewest VMs meeting D in each role (a
// role closed to the job has no VM counts in its table): span's lo, exact
// as the phase solver's tables are valley-shaped (zigzag.go), or +Inf.
func (ls *levelSearch) weights(D float64, w []levelJob) {
	fewest := func(j, role int) float32 {
		if lo, hi := ls.ps.span(j, role, D); lo <= hi {
			return float32(lo)
		}
		return float32(math.Inf(1))
	}
	for j := range w {
		w[j] = levelJob{fewest(j, rolePrimary), fewest(j, roleHost), fewest(j, roleExtra)}
	}
}

// value is the least over levelThetas of the fractional knapsack of the
// jobs weighing w at duals pi, and the index of the join that gave it; x
// gets its fractions.
func (ls *levelSearch) value(pi []float64, w []levelJob, x []float64, sc *levelScratch) (float64, int) {
	best, at := math.Inf(1), 0
	for i, th := range levelThetas {
		if v := ls.knapsack(pi, w, th, sc.x, sc); v < best {
			best, at = v, i
			copy(x, sc.x)
		}
	}
	return best, at
}

// knapsack is the fractional knapsack of capacity N over the jobs weighing
// min(p, θ·h, (1−θ)·κ·e) at duals pi, x its fractions. It selects the jobs
// with the highest dual per VM by partitioning around a pivot (median of
// three ratios), linear on average, rather than sorting: at 1,000 jobs the
// search prices 600 steps × 200 lengths × 3 joins.
func (ls *levelSearch) knapsack(pi []float64, w []levelJob, theta float64, x []float64, sc *levelScratch) float64 {
	items := sc.items[:0]
	for j := range x {
		x[j] = 0
		if pi[j] <= 0 {
			continue
		}
		wt := min(float64(w[j].p), theta*float64(w[j].h), (1-theta)*ls.kappa*float64(w[j].e))
		if math.IsInf(wt, 1) || math.IsNaN(wt) {
			continue
		}
		items = append(items, levelItem{pi[j] / wt, j, wt})
	}
	sc.items = items
	room, val := ls.n, 0.0
	a := items
	for len(a) > 0 && room > 0 {
		p0, p1, p2 := a[0].ratio, a[len(a)/2].ratio, a[len(a)-1].ratio
		pivot := max(min(p0, p1), min(max(p0, p1), p2))
		// a[:hi] above the pivot, a[hi:eq] equal to it, a[eq:] below.
		hi, eq := 0, len(a)
		for q := 0; q < eq; {
			switch r := a[q].ratio; {
			case r > pivot:
				a[hi], a[q] = a[q], a[hi]
				hi++
				q++
			case r < pivot:
				eq--
				a[q], a[eq] = a[eq], a[q]
			default:
				q++
			}
		}
		sum := 0.0
		for _, it := range a[:hi] {
			sum += it.weight
		}
		if sum > room {
			a = a[:hi] // the knapsack fills among the higher ratios
			continue
		}
		for _, it := range a[:hi] {
			x[it.j] = 1
			val += pi[it.j]
		}
		room -= sum
		for _, it := range a[hi:eq] {
			if room <= 0 {
				break
			}
			f := min(1, room/it.weight)
			x[it.j] = f
			room -= f * it.weight
			val += f * pi[it.j]
		}
		a = a[eq:]
	}
	return val
}

// levelFull is how often the search tries every join at every length;
// between, each length is priced with the join that was least there last
// time, a value at least as high, which steers the steps as well at a
// third of the cost (the best step is chosen among the full ones).
const levelFull = 8

// search runs the multiplicative-weights search from the area duals and
// returns the duals of its best step by the grid's maximum.
func (ls *levelSearch) search(stop func() bool) ([]float64, bool) {
	m := len(ls.ps.p.Jobs)
	pi := ls.ps.areaDuals()
	norm(pi)
	best, bestR := make([]float64, m), math.Inf(1)
	xs := make([][]float64, len(ls.grid))
	for l := range xs {
		xs[l] = make([]float64, m)
	}
	v := make([]float64, len(ls.grid))
	grad := make([]float64, m)
	for step := range levelStepsFor(m) {
		if stop != nil && stop() {
			return nil, false
		}
		full := step%levelFull == 0
		ls.price(pi, xs, v, full)
		r := 0.0
		for l := range v {
			v[l] /= ls.grid[l]
			r = max(r, v[l])
		}
		if r <= 0 {
			return pi, true // no job has a dual: nothing to search
		}
		if full && r < bestR {
			bestR = r
			copy(best, pi)
		}
		clear(grad)
		weights, top := 0.0, 0.0
		for l, x := range xs {
			s := math.Exp(levelSharpness * (v[l] - r) / r)
			if s < 1e-9 {
				continue
			}
			weights += s
			for j, f := range x {
				if f > 0 {
					grad[j] += s * f / ls.grid[l]
				}
			}
		}
		for j := range grad {
			grad[j] /= weights
			top = max(top, grad[j])
		}
		if top <= 0 {
			break
		}
		for j := range pi {
			pi[j] *= math.Exp(-levelRate * grad[j] / top)
		}
		norm(pi)
	}
	return best, true
}

// price sets v[l] to the value of grid[l] at pi and xs[l] to its
// fractions, trying every join if full and else grid[l]'s last best. The
// lengths are shared out among the goroutines in fixed blocks, each
// writing only its own lengths' entries, so the result is the same on any
// number of them.
func (ls *levelSearch) price(pi []float64, xs [][]float64, v []float64, full bool) {
	one := func(l int, sc *levelScratch) {
		if full {
			v[l], ls.theta[l] = ls.value(pi, ls.w[l], xs[l], sc)
			return
		}
		v[l] = ls.knapsack(pi, ls.w[l], levelThetas[ls.theta[l]], xs[l], sc)
	}
	workers := len(ls.scratch)
	if workers == 1 {
		for l := range v {
			one(l, &ls.scratch[0])
		}
		return
	}
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := i; l < len(v); l += workers {
				one(l, &ls.scratch[i])
			}
		}()
	}
	wg.Wait()
}

// norm scales pi to sum 1 (the bound does not depend on pi's scale).
func norm(pi []float64) {
	sum := 0.0
	for _, v := range pi {
		sum += v
	}
	if sum > 0 {
		for j := range pi {
			pi[j] /= sum
		}
	}
}

// levelRange is an interval (a, b] of lengths and value at b over a,
// the most value(D)/D can be inside it.
type levelRange struct{ a, b, vb, top float64 }

// ratio is R = max over every length D of value(D)/D at pi (see the top
// of the file), an upper bound within levelTolerance of it.
func (ls *levelSearch) ratio(pi []float64, stop func() bool) (float64, bool) {
	sc := &ls.scratch[0]
	x := make([]float64, len(pi))
	at := func(D float64) float64 {
		ls.weights(D, ls.at)
		v, _ := ls.value(pi, ls.at, x, sc)
		return v
	}
	g := ls.grid
	vals := make([]float64, len(g))
	for l, w := range ls.w {
		vals[l], _ = ls.value(pi, w, x, sc)
	}
	// A phase lasts at least g[0], the shortest candidate length, and at
	// most the last, so the first length and the intervals between grid
	// lengths cover them all.
	attained := vals[0] / g[0]
	h := &heapOf[levelRange]{before: func(a, b levelRange) bool { return a.top > b.top }}
	for l := 1; l < len(g); l++ {
		attained = max(attained, vals[l]/g[l])
		h.items = append(h.items, levelRange{g[l-1], g[l], vals[l], vals[l] / g[l-1]})
	}
	heap.Init(h)
	for priced := 0; h.Len() > 0; priced++ {
		top := h.items[0]
		if top.top <= attained*(1+levelTolerance) || top.b <= top.a*(1+levelNarrow) {
			return max(top.top, attained), true
		}
		if priced%16 == 0 && stop != nil && stop() {
			return 0, false
		}
		heap.Pop(h)
		mid := math.Sqrt(top.a * top.b)
		vm := at(mid)
		attained = max(attained, vm/mid)
		heap.Push(h, levelRange{top.a, mid, vm, vm / top.a})
		heap.Push(h, levelRange{mid, top.b, top.vb, top.vb / mid})
	}
	return attained, true
}
