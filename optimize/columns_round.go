package optimize

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Pricing rounds. A quick round prices a rotating sample of the grid
// durations (cg.sample of them, as many as quickCells table cells allow,
// between minSample and maxSample) with the full programme, tracing each
// set: capacities in units of cg.scale VMs, weights rounded up when
// scale > 1, so every set it finds fits a phase. If columns enter there, the
// round ends. Otherwise, or when a full round is due (fullDue), a full
// round prices every grid duration (exactly, or relaxed when scale > 1),
// refines Farley's bound between them (farleyTheta) and enters the best
// columns. Converging is declared only by a full round on the LP's own duals
// (when scale > 1, with the greedy in single VMs finding no column either).
//
// Quick rounds price at the full programme's scale because a coarser one
// (tried: units of 3 VMs at N = 100) cannot see the one-VM jobs that fill
// the phases of a large cluster, and its columns stalled the LP 25 % above
// its optimum. Full rounds cost several times more than quick ones and move
// the LP no faster, so they are held to about fullShare of the pricing work
// (counted in table cells, so the choice does not depend on the clock), and
// column generation, if the limit stops it, ends with a final bound round on
// the last LP's duals (finalBound).
//
// Rounds are stabilised (Wentges' smoothing; quick ones too once a full
// round has set a centre): they price at
// π = α·centre + (1 − α)·y, y being the LP's duals and the centre the duals
// of the best bound so far, because the LP's duals swing from round to round
// and the bound with them. Farley's bound holds for any π ≥ 0, so each
// smoothed round still proves one. A smoothed round that finds no column of
// negative reduced cost under y (a mispricing) is followed by one at y
// itself, so convergence is still decided on y.
const (
	minSample  = 8
	maxSample  = 40
	quickCells = pricingWork / 8
	fullEvery  = 8
	fullShare  = 1.0 / 3
	// fullAtLeast is the most rounds between two full ones.
	fullAtLeast = 32
	stallDrop   = 1e-4
	maxEnter    = 16
	// refineFactor times the grid size (at least minGrid) is the most
	// durations farleyTheta prices between the grid points per round;
	// finalRefine replaces it in the final bound round.
	refineFactor = 1
	finalRefine  = 2
	gridGrowth   = 2
	smoothing    = 0.5 // α
)

// price runs one pricing round on the LP's duals: it returns how many
// columns entered and, if the round was full, the best Farley bound it
// proved.
func (cg *columnGen) price(round int) (added int, bound float64, full bool) {
	cg.capped = false
	cg.lpHist = append(cg.lpHist, cg.lp.objective())
	cg.y = cg.clampedDuals()
	due := cg.fullDue(round)
	if !due {
		w := cg.work
		added = cg.stabilisedQuick(round)
		cg.quickWork += cg.work - w
		if added > 0 {
			return added, 0, false
		}
	}
	w := cg.work
	defer func() { cg.fullWork, cg.lastFull = cg.fullWork+cg.work-w, round }()
	y := cg.y
	bound = math.Inf(-1)
	if cg.centre != nil {
		cg.pi = cg.smoothed(y)
		added, bound = cg.fullRound()
		if added > 0 {
			return added, bound, true
		}
	}
	cg.pi = y
	a, b := cg.fullRound()
	if a == 0 && due && cg.scale > 1 {
		// The full round's sets, rounded up to whole units, may all
		// fail where the greedy's in single VMs still price out: only
		// both finding none may end the generation. A round that was
		// not due ran the greedy on these duals in its quick round.
		a = cg.greedyRound()
	}
	return a, max(bound, b), true
}

// clampedDuals is the LP's duals, negative ones (round-off) set to 0.
func (cg *columnGen) clampedDuals() []float64 {
	y := cg.lp.duals()
	for j := range y {
		y[j] = max(y[j], 0)
	}
	return y
}

// fullDue reports whether round is a full one: at least fullEvery rounds
// after the last full one, and full rounds have done at most fullShare of
// the pricing work so far; or fullAtLeast rounds after the last one, since
// only full rounds prove bounds and move the smoothing centre (with quick
// rounds 30 times cheaper, the share alone left 50 jobs on 50 hosts two
// full rounds in 140 and a bound 25 % under the LP).
//
// A stalled LP (its value down by less than stallDrop over the last
// fullEvery rounds) also makes a full round due: on a degenerate LP the
// quick rounds keep entering columns at duals that swing from one vertex to
// the next without moving the LP (50 jobs on 50 hosts: 150 rounds at the
// same value), and only the smoothed full rounds settle the duals, which
// Farley's bound needs.
func (cg *columnGen) fullDue(round int) bool {
	since := round - cg.lastFull
	if since < fullEvery {
		return false
	}
	h := cg.lpHist
	stalled := len(h) > fullEvery && h[len(h)-1] >= h[len(h)-1-fullEvery]*(1-stallDrop)
	return stalled || since >= fullAtLeast || float64(cg.fullWork) <= fullShare*float64(cg.fullWork+cg.quickWork)
}

// stabilisedQuick is a quick round at the smoothed duals once a centre
// exists, and at the LP's own if none of those sets enters (a mispricing):
// smoothing the quick rounds too, not only the full ones, lowered the LP and
// raised the bound after a fixed number of rounds on 50 hosts
// (random-mM-seedS from the pair plan, 150 rounds, M = 100 and 200: LP
// lower on all four instances measured, the bound higher on three).
func (cg *columnGen) stabilisedQuick(round int) int {
	if cg.centre != nil {
		cg.pi = cg.smoothed(cg.y)
		if added := cg.quickRound(round, cg.sample); added > 0 {
			return added
		}
	}
	cg.pi = cg.y
	return cg.quickRound(round, cg.sample)
}

// quickRound prices a rotating sample of n grid durations at cg.pi,
// tracing each set, and enters the up to maxEnter sets whose duration beats
// their value most; with units of several VMs a greedy round in single VMs
// (greedyRound) goes first. It returns how many entered in all (realize
// keeps those whose reduced cost under cg.y is negative).
func (cg *columnGen) quickRound(round, n int) int {
	greedy := 0
	if cg.scale > 1 {
		if greedy = cg.greedyRound(); cg.cut {
			return 0
		}
	}
	g := len(cg.grid)
	step := max(1, g/n)
	type found struct {
		rc          float64
		jobs, roles []int
	}
	var Ds []float64
	for i := round % step; i < g && len(Ds) < n; i += step {
		Ds = append(Ds, cg.grid[i])
	}
	res := cg.priceAll(Ds, cg.scale, true, cg.scale > 1)
	if res == nil {
		return greedy
	}
	var sets []found
	for k, D := range Ds {
		if r := res[k]; D-r.v < -1e-9*D {
			sets = append(sets, found{D - r.v, r.jobs, r.roles})
		}
	}
	sort.SliceStable(sets, func(a, b int) bool { return sets[a].rc < sets[b].rc })
	added := greedy
	for _, f := range sets[:min(maxEnter, len(sets))] {
		if cg.realize(f.jobs, f.roles) {
			added++
		}
	}
	return added
}

// finalBound is Farley's bound on the LP's current duals (smoothed with the
// centre, as full rounds smooth them) from a full
// pricing of the grid, refined with finalRefine's budget; it enters no
// column. Columns runs it when the limit stops column generation, whose last
// full round may lie several rounds back, on duals further from the LP's
// optimum. It returns 0 if cg.stop ends it first.
func (cg *columnGen) finalBound() float64 {
	cg.y = cg.clampedDuals()
	pi := cg.y
	if cg.centre != nil {
		pi = cg.smoothed(cg.y)
	}
	return cg.boundAt(pi)
}

// boundAt is Farley's bound at pi from a full pricing of the grid, refined
// with finalRefine's budget; 0 if cg.stop ends the pricing (cg.cut says
// so). It enters no column.
func (cg *columnGen) boundAt(pi []float64) float64 {
	cg.pi = pi
	best := cg.values()
	if best == nil {
		return 0
	}
	cg.refine = finalRefine
	defer func() { cg.refine = refineFactor }()
	return cg.farley(best)
}

// areaBound is Farley's bound at the area duals (areaDuals, the first
// smoothing centre, by boundAt), and whether cg.stop let it finish. It
// leaves the grid as it was (the refinement grows it where θ is
// tight at these duals, which says nothing of where it is tight at the
// LP's). The LP's duals at 1,000 jobs on 200 hosts stay far from optimal
// through a 45 s limit, and their bound may not pass these duals', which
// charge each job its fewest VM-seconds: 8,529 s there against the area
// bound's 7,696 s, in about 2 s (random-m1000-seed1), since they see what
// the area bound ignores: a phase lasts as long as its slowest job, and
// extras slow their hosts. Columns computes it only where pricing counts
// VMs in units (scale > 1), and only when called on its own: Solve proves
// the level bound there first (levels.go; 11,461 s on that instance),
// and Columns then skips this one. With exact pricing the full rounds,
// at duals smoothed towards these, pass it (random-m200-seed1 on 50
// hosts, 14,000 units: 8,647 s against 7,143 s), and computing it there
// too only moved the runs' ends: at that work the 200-job plans on 50
// hosts were longer on four seeds of five.
func (cg *columnGen) areaBound() (float64, bool) {
	grid, gridIdx, at := slices.Clone(cg.grid), slices.Clone(cg.gridIdx), cg.thetaAt
	defer func() { cg.grid, cg.gridIdx, cg.thetaAt = grid, gridIdx, at }()
	b, cut := cg.boundAt(cg.ps.areaDuals()), cg.cut
	cg.cut = false
	return b, !cut
}

// fullRound prices every grid duration at cg.pi, enters the best columns and
// returns how many entered and Farley's bound; the best bound so far moves
// the smoothing centre to cg.pi.
func (cg *columnGen) fullRound() (int, float64) {
	best := cg.values()
	if best == nil {
		return 0, 0
	}
	added := cg.enter(best)
	bound := cg.farley(best)
	if at := cg.thetaAt; at >= 0 && added < maxEnter {
		// θ < 1 there: a phase prices out that the grid may have missed.
		_, jobs, roles := cg.knapsack(cg.ps.cands[at], cg.scale, true, cg.scale > 1)
		if cg.realize(jobs, roles) {
			added++
		}
	}
	if bound > cg.bestBound {
		cg.bestBound, cg.centre = bound, slices.Clone(cg.pi)
	}
	return added, bound
}

// smoothed is Wentges' smoothing of duals y towards the centre (the duals of
// the best bound so far): α·centre + (1 − α)·y, which must exist.
func (cg *columnGen) smoothed(y []float64) []float64 {
	pi := make([]float64, len(y))
	for j := range y {
		pi[j] = smoothing*cg.centre[j] + (1-smoothing)*y[j]
	}
	return pi
}

// values prices every grid duration at cg.pi, weights floored where
// capacities are counted in units (a relaxation; exact at scale 1), in the
// grid's order. It returns nil, and sets cg.cut, if cg.stop ends the round
// first.
func (cg *columnGen) values() []float64 {
	res := cg.priceAll(cg.grid, cg.scale, false, false)
	if res == nil {
		return nil
	}
	best := make([]float64, len(res))
	for k, r := range res {
		best[k] = r.v
	}
	return best
}

// stopped asks cg.stop every fourth call (k counts them) and records a yes
// in cg.cut.
func (cg *columnGen) stopped(k int) bool {
	if cg.stop != nil && k%4 == 3 && cg.stop() {
		cg.cut = true
	}
	return cg.cut
}

// enter builds columns at the grid durations whose programme value (best,
// values') beats them most, up to maxEnter, and returns how many entered
// (realize keeps those whose reduced cost under the LP's duals is
// negative). With scaled capacities the sets are rebuilt with weights
// rounded up, so that they fit.
func (cg *columnGen) enter(best []float64) int {
	if best == nil {
		return 0 // the round was cut short
	}
	order := make([]int, len(best))
	for k := range order {
		order[k] = k
	}
	sort.Slice(order, func(a, b int) bool {
		return cg.grid[order[a]]-best[order[a]] < cg.grid[order[b]]-best[order[b]]
	})
	added := 0
	for _, k := range order[:min(maxEnter, len(order))] {
		D := cg.grid[k]
		if D-best[k] >= -1e-9*D {
			break
		}
		_, jobs, roles := cg.knapsack(D, cg.scale, true, cg.scale > 1)
		if cg.realize(jobs, roles) {
			added++
		}
	}
	return added
}

// farley is Farley's bound θ·Σπ from the values of a full round, with
// θ = min over phases of duration/π(phase) ≥ min over candidate durations D
// of D/best(D) (see farleyTheta).
func (cg *columnGen) farley(best []float64) float64 {
	var sum float64
	for _, v := range cg.pi {
		sum += v
	}
	theta, at := cg.farleyTheta(best)
	cg.thetaAt = at
	if math.IsInf(theta, 1) {
		return 0
	}
	return theta * sum
}

// candRange is a run lo..hi of candidate durations (indices into
// phaseSolver.cands) whose pricing value at hi is known: every phase whose
// duration T lies in the run has π(phase) ≤ best(T) ≤ best(cands[hi]), the
// programme's value being non-decreasing in D (weights only fall), and
// T ≥ cands[lo], so T/π(phase) ≥ cands[lo]/best(cands[hi]) = ratio.
type candRange struct {
	lo, hi int
	val    float64
	ratio  float64
	// tight records that val is the exact programme's (scale 1) or has been
	// lowered by fracDual's bound.
	tight bool
}

// farleyTheta is the least ratio D/π over every phase of duration D below
// the incumbent, or a proven lower bound on it, and the candidate duration
// where it was found exactly (−1 if nowhere). Between the priced grid points
// lie runs of candidates that were not priced; a run's ratio bounds its
// phases (candRange), and the run with the least ratio is split at its
// middle candidate, priced there, until the least run is one candidate
// (exact with exact pricing: its ratio is attained) or as many runs as the
// grid has points have been priced or cg.stop says so (its ratio is still a
// lower bound). With floored weights (scale > 1) a run's value is lowered
// by fracDual's bound only when the run comes to hold the least ratio.
// Phases not shorter than the incumbent are left out: a schedule better
// than the incumbent has none, so the bound holds for those, and the
// incumbent itself bounds the rest (Columns caps the bound by the best
// plan).
func (cg *columnGen) farleyTheta(best []float64) (float64, int) {
	cands := cg.ps.cands
	top := sort.SearchFloat64s(cands, cg.incumbent) - 1 // last candidate below the incumbent
	var h rangeHeap
	push := func(r candRange) {
		if r.lo > top || r.val <= 0 {
			return
		}
		r.hi = min(r.hi, top) // best(cands[top]) ≤ val: still an upper bound
		r.ratio = cands[r.lo] / r.val
		h.push(r)
	}
	exact := cg.scale == 1
	memo := map[int]priced{} // refineValue's values priced ahead
	for i := range cg.grid {
		lo := 0
		if i > 0 {
			lo = cg.gridIdx[i-1] + 1
		}
		push(candRange{lo: lo, hi: cg.gridIdx[i], val: best[i], tight: exact})
	}
	for spent, tightened := 0, 0; len(h) > 0; {
		r := h.pop()
		if !r.tight {
			// The least ratio so far rests on a floored programme: lower
			// its value by the fractional bound, and look again.
			if cg.stopped(tightened) {
				return r.ratio, -1
			}
			tightened++
			r.val, r.tight = min(r.val, cg.fracDual(cands[r.hi])), true
			push(r)
			continue
		}
		if r.lo == r.hi {
			return r.ratio, r.lo
		}
		if spent >= cmp.Or(cg.splits, cg.refine*max(minGrid, len(cg.grid))) || cg.stopped(spent) {
			return r.ratio, -1
		}
		spent++
		mid := (r.lo + r.hi - 1) / 2
		v := cg.refineValue(mid, h, memo)
		push(candRange{lo: r.lo, hi: mid, val: v, tight: exact})
		push(candRange{lo: mid + 1, hi: r.hi, val: r.val, tight: true})
		cg.grow(mid)
	}
	return math.Inf(1), -1
}

// grow adds candidate i to the grid, while the grid is below growCap
// (gridGrowth times its first size, until liftAtCap lifts it): where θ was
// tight in one round it is likely tight in the next, whose duals are close,
// so the grid grows dense there and both the bound and the columns entered
// come from exact durations. At the cap it records that in capped (for
// the round: price clears it).
func (cg *columnGen) grow(i int) {
	if len(cg.grid) >= cg.growCap {
		cg.capped = true
		return
	}
	k, found := slices.BinarySearch(cg.gridIdx, i)
	if found {
		return
	}
	cg.gridIdx = slices.Insert(cg.gridIdx, k, i)
	cg.grid = slices.Insert(cg.grid, k, cg.ps.cands[i])
}

// liftAtCap ends a pricing round (only full rounds refine, so only they set
// capped): if a refinement of the round met the grid at its cap while the
// bound lay more than the tolerance below the LP (short), the cap goes,
// every candidate duration allowed, on a thinned grid priced in single VMs
// (scale 1). Farley's θ between two grid points rests on the gap's ratio
// until the refinement splits it down to single durations, and only those
// durations' columns can enter: a grid that cannot take the durations where
// θ is decided keeps the bound and the LP from them. On 50 hosts the first
// grid is 60 of some 15,000 candidates and the first full round meets the
// cap; lifted there, 100 jobs at a fixed 30,000 units (about the default
// limit's work) ended with plan ÷ bound lower on 20 seeds of 20, mean 1.025
// → 1.012. The cap stays until then because a full round prices every grid
// duration: lifted from the start, 200 jobs on 9 hosts (232 of 5,427
// durations, a grid that meets its cap late) gave longer plans on 15 seeds
// of 20; lifted at the cap, 9 better and 11 worse, the mean the same. In
// units of VMs (scale > 1) the shortfall comes from the rounded capacities
// too, which no duration mends, and the candidates run to hundreds of
// thousands: the cap stays.
func (cg *columnGen) liftAtCap(short bool) {
	if cg.capped && short && cg.scale == 1 {
		cg.growCap = max(cg.growCap, len(cg.ps.cands))
	}
}

// liftGrid reports whether pricing goes on after a full round that entered
// no column while the bound lay more than the tolerance below the LP, the
// grid having held before durations as the round began: on a grid priced in
// single VMs, if the round's refinement met the cap (which liftAtCap has
// just lifted) or added durations to the grid, since the next round prices
// at durations this one could not. Otherwise no duration the refinement
// reaches prices out, and column generation ends, relaxed.
func (cg *columnGen) liftGrid(before int) bool {
	return cg.scale == 1 && (cg.capped || len(cg.grid) > before)
}

// rangeHeap is a binary min-heap of candRanges by ratio.
type rangeHeap []candRange

func (h *rangeHeap) push(r candRange) {
	*h = append(*h, r)
	for i := len(*h) - 1; i > 0; {
		p := (i - 1) / 2
		if (*h)[p].ratio <= (*h)[i].ratio {
			break
		}
		(*h)[p], (*h)[i] = (*h)[i], (*h)[p]
		i = p
	}
}

func (h *rangeHeap) pop() candRange {
	old := *h
	r := old[0]
	n := len(old) - 1
	old[0] = old[n]
	*h = old[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && old[c+1].ratio < old[c].ratio {
			c++
		}
		if old[i].ratio <= old[c].ratio {
			break
		}
		old[i], old[c] = old[c], old[i]
		i = c
	}
	return r
}
