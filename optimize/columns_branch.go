package optimize

import (
	"container/heap"
	"math"
	"slices"
	"sort"

	"github.com/packer-sched/packer/model"
)

// branch is the integer master (price-and-branch): a depth-first
// branch-and-bound over the generated columns for a set partition of the jobs
// into phases, cheapest first. With LP duals y ≥ 0 every partition costs
// Σ_j y_j + Σ_c rc_c, rc_c = cost_c − Σ_{j∈c} y_j ≥ 0 being a column's
// reduced cost, so a node whose reduced costs already reach
// incumbent − Σ y is cut, and a column whose own reduced cost does is never
// tried. Each node branches on the uncovered job with the fewest columns left
// that fit beside the chosen ones (none: a dead end), over those columns by
// reduced cost. It stops after maxNodes nodes, when stop says so, or when the
// incumbent meets bound; it returns the best partition found if it beats
// incumbent, and whether the search finished. Finished means no cheaper
// partition exists only when rc holds true reduced costs: columns the dive
// priced against a residual LP's duals may have negative ones, clamped to
// 0 here, so after a dive the search is a heuristic (Columns does not rely
// on the flag).
type brancher struct {
	cg       *columnGen
	rc       []float64
	byJob    [][]int // columns holding each job, by reduced cost
	covered  []bool
	chosen   []int
	best     []int
	bestCost float64
	slack    float64 // incumbent − Σ y: the reduced cost still affordable
	ysum     float64
	nodes    int
	maxNodes int
	stop     func() bool
	count    []int
}

func (cg *columnGen) branch(incumbent, bound float64, maxNodes int, stop func() bool) (model.Schedule, bool, bool) {
	m := len(cg.p.Jobs)
	y := cg.lp.duals()
	b := &brancher{cg: cg, rc: make([]float64, len(cg.lp.cols)), byJob: make([][]int, m), covered: make([]bool, m),
		bestCost: incumbent, maxNodes: maxNodes, stop: stop, count: make([]int, m)}
	for j := range y {
		y[j] = max(y[j], 0)
		b.ysum += y[j]
	}
	for c, jobs := range cg.lp.cols {
		b.rc[c] = max(cg.lp.reducedCostOf(c, y), 0)
		for _, j := range jobs {
			b.byJob[j] = append(b.byJob[j], c)
		}
	}
	for j := range b.byJob {
		sort.SliceStable(b.byJob[j], func(x, z int) bool { return b.rc[b.byJob[j][x]] < b.rc[b.byJob[j][z]] })
	}
	goal := bound * (1 + 1e-9)
	b.slack = incumbent - b.ysum
	b.search(0, m, goal)
	done := b.nodes < b.maxNodes && (stop == nil || !stop())
	if b.best == nil {
		return model.Schedule{}, false, done
	}
	var s model.Schedule
	for _, c := range b.best {
		s.Phases = append(s.Phases, cg.phases[c])
	}
	return s, true, done
}

// search extends the partial partition whose reduced costs sum to r, with
// left jobs uncovered; it returns false when the search must end.
func (b *brancher) search(r float64, left int, goal float64) bool {
	b.nodes++
	if b.nodes >= b.maxNodes || (b.stop != nil && b.nodes%16 == 0 && b.stop()) {
		return false
	}
	if left == 0 {
		var cost float64
		for _, c := range b.chosen {
			cost += b.cg.lp.cost[c]
		}
		if cost < b.bestCost*(1-1e-12) {
			b.bestCost, b.best = cost, slices.Clone(b.chosen)
			b.slack = cost - b.ysum
		}
		return cost > goal
	}
	j := b.pickJob(r)
	if j < 0 {
		return true
	}
	for _, c := range b.byJob[j] {
		if r+b.rc[c] >= b.slack*(1-1e-12) {
			break // sorted: the rest cost more
		}
		if !b.fits(c) {
			continue
		}
		cols := b.cg.lp.cols[c]
		for _, i := range cols {
			b.covered[i] = true
		}
		b.chosen = append(b.chosen, c)
		more := b.search(r+b.rc[c], left-len(cols), goal)
		b.chosen = b.chosen[:len(b.chosen)-1]
		for _, i := range cols {
			b.covered[i] = false
		}
		if !more {
			return false
		}
	}
	return true
}

// fits reports whether column c shares no job with the chosen columns.
func (b *brancher) fits(c int) bool {
	for _, i := range b.cg.lp.cols[c] {
		if b.covered[i] {
			return false
		}
	}
	return true
}

// pickJob returns the uncovered job with the fewest affordable columns that
// fit, or −1 if some uncovered job has none.
func (b *brancher) pickJob(r float64) int {
	best, bestN := -1, math.MaxInt
	for j, cs := range b.byJob {
		if b.covered[j] {
			continue
		}
		n := 0
		for _, c := range cs {
			if r+b.rc[c] >= b.slack*(1-1e-12) {
				break
			}
			if b.fits(c) {
				n++
			}
		}
		if n == 0 {
			return -1
		}
		if n < bestN {
			best, bestN = j, n
		}
	}
	return best
}

// dive is the integer heuristic that precedes the branch-and-bound: it fixes
// the most-used share of the LP's positive columns that fit (step.share:
// see diveSteps), at least one, and every further one at λ ≥ step.fix, then
// re-solves the LP over the columns that share no job with the fixed ones,
// pricing new columns for the jobs left (step.rounds at most, quick ones on
// the residual LP's duals), and repeats until every job is covered. Without
// that pricing the residual LP soon has only single jobs left to choose
// from. Once stop (if not nil) says so, it re-solves no more and rounds
// the last LP's values greedily; the jobs no column is left for go to
// finish, so the dive always ends in a partition.
func (cg *columnGen) dive(step diveStep, stop func() bool) model.Schedule {
	m := len(cg.p.Jobs)
	covered := make([]bool, m)
	left := m
	var s model.Schedule
	cols, lam := cg.lp.cols, cg.lp.values()
	ids := make([]int, len(cols)) // column index in cg of each LP column
	for i := range ids {
		ids[i] = i
	}
	var fixed *coverLP // the fine dive's LP, fixed a step at a time
	if step.warm {
		fixed = cg.lp.forDive()
	}
	for left > 0 {
		var sure []int
		for c, jobs := range cols {
			if lam[c] > 1e-9 && disjoint(jobs, covered) {
				sure = append(sure, c)
			}
		}
		if len(sure) == 0 {
			break // no positive column fits: the rest go alone below
		}
		sort.SliceStable(sure, func(a, b int) bool { return lam[sure[a]] > lam[sure[b]] })
		// The most-used 1/share of them (at least one), and every
		// further one at λ ≥ fix; past largeDive jobs, as many more
		// as cover half the jobs left.
		n := max(1, len(sure)/step.share)
		for n < len(sure) && lam[sure[n]] >= step.fix {
			n++
		}
		if len(cg.p.Jobs) > largeDive {
			n = max(n, halfCover(sure, cols, covered, left))
		}
		sure = sure[:n]
		for _, c := range sure {
			if !disjoint(cols[c], covered) {
				continue
			}
			for _, j := range cols[c] {
				covered[j] = true
				left--
			}
			s.Phases = append(s.Phases, cg.phases[ids[c]])
		}
		if left == 0 {
			break
		}
		if stop != nil && stop() {
			continue // out of time: round the last LP's values greedily
		}
		if fixed != nil {
			// fixed's columns are cg's, in cg's order: ids stays the
			// identity, grown with the columns the step priced.
			cols, lam = cg.fixedLP(fixed, covered, step.rounds, stop)
			for len(ids) < len(cols) {
				ids = append(ids, len(ids))
			}
			continue
		}
		cols, lam, ids = cg.subLP(covered, step.rounds, stop)
	}
	return cg.finish(s, covered)
}

// finish completes a dive's partial schedule: the jobs it did not cover
// (out of time, or no LP column left for them) are planned by the pair
// scheduler on their own, or alone if that fails; past maxFinishJobs of
// them, by coverRest. Past largeDive jobs in all, coverRest's plan is
// kept if it is shorter: two jobs a phase waste a large cluster (4 pricing
// rounds on 80 hosts: 9,650 s against the pair scheduler's 23,753 s for
// 250 jobs).
func (cg *columnGen) finish(s model.Schedule, covered []bool) model.Schedule {
	var rest []int
	for j, c := range covered {
		if !c {
			rest = append(rest, j)
		}
	}
	if len(rest) == 0 {
		return s
	}
	if len(rest) > maxFinishJobs {
		return cg.coverRest(s, covered)
	}
	pair := cg.finishPairs(slices.Clone(s.Phases), rest)
	if len(cg.p.Jobs) > largeDive {
		if c := cg.coverRest(s, covered); cg.p.Makespan(c) < cg.p.Makespan(pair) {
			return c
		}
	}
	return pair
}

// finishPairs completes the phases s with the pair scheduler's plan for
// the jobs rest, or with each of them alone if it fails.
func (cg *columnGen) finishPairs(phases []model.Phase, rest []int) model.Schedule {
	s := model.Schedule{Phases: phases}
	sub := &model.Problem{Jobs: make([]model.Job, len(rest)), Cluster: cg.p.Cluster}
	for k, j := range rest {
		sub.Jobs[k] = cg.p.Jobs[j]
	}
	pr, err := PairSchedule(sub)
	if err != nil {
		for _, j := range rest {
			s.Phases = append(s.Phases, cg.phases[j]) // column j is job j alone
		}
		return s
	}
	for _, ph := range pr.Schedule.Phases {
		var out model.Phase
		for _, a := range ph.Jobs {
			a.Job = rest[a.Job]
			out.Jobs = append(out.Jobs, a)
		}
		s.Phases = append(s.Phases, out)
	}
	return s
}

// diveRounds is the most pricing rounds per step of the coarse dive (and
// of the bold one, below); each step fixes the most-used 1/diveShare of the
// LP's positive columns, and beyond them those at λ ≥ diveFix (the bold
// dive: boldDiveFix). Fixing a handful per step keeps the steps (each
// re-solves an LP from scratch) few.
//
// On small problems (fineDive) a step fixes only the most used column, and
// those at λ ≥ fineDiveFix, and prices up to fineDiveRounds rounds: each
// fixed column then leaves a residual LP priced nearly to its optimum, so
// the next choice follows the LP of the jobs left rather than the first
// LP's values. On 9 hosts the LP converges well within the default limit,
// and the plan, not the bound, is what lags (at 16 and 18 jobs, 14 seeds,
// the converged LP lies within 1.4 % of the exact optimum, 9 times within
// 0.1 %): `packer plan -w random-m100-seedS --hosts 9` gives plan ÷ bound
// 1.0150 1.0038 1.0234 1.0196 1.0103 at the default limit with the fine
// dive, 1.0277 1.0060 1.0236 1.0204 1.0110 with the coarse one; 200 jobs
// 1.0264 1.0185 1.0295 1.0229 1.0146 at --work-limit 35000 (about the
// default 10 s), 1.0412 1.0319 1.0441 1.0348 1.0224 with the coarse one.
// Its steps, one a phase, re-solve the LP from the last step's basis
// (fixedLP: a few dozen to a few hundred pivots a step, against about 1,500
// from the singletons at 200 jobs). A run whose integer search has less
// than fineDiveWork units a job dives coarsely: at 200 jobs the fine dive
// took 7,000–8,000 units, which the run of 8,000 (4,000 for the integer
// search, and what its pricing left) had, but not the runs before it; and
// a dive the limit cuts leaves only a greedy rounding of its LP, plans
// 20–25 % above the bound. 200 jobs on 50 hosts gave 1.15–1.22 with the
// fine dive against 1.07–1.08 with the coarse one at a fixed --work-limit.
//
// Past largeDive jobs a step fixes half the positive columns, and more,
// up to all of them, until they cover half the jobs left, and prices one
// round: a residual LP that holds most of 1,000 jobs costs seconds, and
// with finer steps the limit cut every dive of random-m1000-seedS on 200
// hosts, whose plan was then a greedy rounding of the LP's values.
const (
	diveRounds      = 3
	diveFix         = 0.6
	diveShare       = 8
	largeDive       = 400
	largeDiveRounds = 1
	largeDiveShare  = 2
	fineDiveFix     = 0.9
	fineDiveRounds  = 20
	// fineDiveVMs and fineDiveJobs are the most primary VMs (N: 18 on 9
	// hosts, 40 on 20, at k = 2) and jobs at which the dive is fine:
	// measured at 100 and 200 jobs on 9 hosts (above) and at 100 on 20,
	// 1.0149 1.0118 1.0124 1.0229 1.0254 at --work-limit 35000 against
	// the coarse dive's 1.0149 1.0230 1.0141 1.0215 1.0458. fineDiveWork
	// is the least work units a job the run's integer search must have
	// for it (see above).
	fineDiveVMs  = 40
	fineDiveJobs = 200
	fineDiveWork = 20
	// maxFinishJobs is the most jobs finish hands to the pair scheduler.
	maxFinishJobs = 256
)

// Past fineDiveVMs primary VMs (and up to largeDive jobs) the integer
// search makes two coarse dives and goes on from the shorter plan: the
// careful dive fixes 1/carefulDiveShare of the positive columns a step,
// beyond them only those at λ ≥ carefulDiveFix, and prices up to
// carefulDiveRounds rounds a step; the bold one fixes 1/diveShare, beyond
// them those at λ ≥ boldDiveFix, and prices diveRounds. Both start from the
// run's LP; the bold one's residual LPs also hold the columns the careful
// one priced, and the next run starts with both's. Which fixing rule gives
// the shortest plan varies with the instance and the LP: on the LPs of the
// fifth run at 200 jobs on 50 hosts (random-m200-seedS, seeds 1–3), of
// seven rules (shares 4, 8, 16; fixes 0.4, 0.6, 0.9; 3 or 6 rounds) the one
// coarse dive (8, 0.6, 3) gave plans 0.7–1.4 % longer than the best, and
// these two were each the best or within 0.3 % of it on some seed. Two
// dives cost 600–1,200 units where one cost about 300, taken from the
// local search that follows, which gained less. `packer plan -w
// random-m200-seedS --hosts 50 --work-limit 15000` gives plan ÷ bound
// 1.0239 1.0194 1.0224 1.0236 1.0196 (seeds 1–5) and 1.0305 1.0334 1.0276
// 1.0209 1.0275 (seeds 6–10) against the one coarse dive's 1.0193 1.0247
// 1.0327 1.0160 1.0318 and 1.0256 1.0356 1.0257 1.0315 1.0364: medians
// 1.0224 and 1.0276 against 1.0247 and 1.0315, though four seeds of ten
// came out higher. The careful dive goes first: bold first gave medians
// 1.0243 and 1.0316. At the default limit (12,000–14,700 units on a 2-core
// machine) 200 jobs on 50 hosts gave median 1.0231 (worst 1.0239) against
// 1.0247 (1.0378), 100 jobs 1.0041 (1.0049) against 1.0035 (1.0073). On 9
// hosts, in runs with too little work for the fine dive, two dives cost
// 40 % of the units at the default limit and left 200-job plans 1.5 %
// longer, so clusters of at most fineDiveVMs primary VMs keep the one
// coarse dive.
const (
	carefulDiveShare  = 16
	carefulDiveRounds = 6
	carefulDiveFix    = 0.9
	boldDiveFix       = 0.4
)

// diveStep is how a step of the dive fixes and prices on one problem.
type diveStep struct {
	share  int     // 1/(the share of the LP's positive columns it fixes)
	rounds int     // the most pricing rounds of its residual LP
	fix    float64 // the least λ it fixes a column at beyond its share
	warm   bool    // re-solve from the last step's basis (fixedLP), not subLP
}

// plainRounding is the large dive stopped at once: the LP's columns by λ,
// greedily, then finish (roundEach, and integerPlan past largeDive jobs).
func (cg *columnGen) plainRounding() model.Schedule {
	return cg.dive(largeDiveStep, func() bool { return true })
}

// largeDiveStep is the dive's step past largeDive jobs.
var largeDiveStep = diveStep{largeDiveShare, largeDiveRounds, diveFix, false}

// diveSteps are the dives the integer search makes on this problem, one
// diveStep each, in order: the large dive past largeDive jobs, the fine
// dive (one column a step: max(1, n/MaxInt)) where fineDive, the coarse
// dive on other clusters of at most fineDiveVMs primary VMs, and beyond
// them the careful dive, then the bold one (see carefulDiveShare).
func (cg *columnGen) diveSteps() []diveStep {
	switch {
	case len(cg.p.Jobs) > largeDive:
		return []diveStep{largeDiveStep}
	case cg.fineDive():
		return []diveStep{{math.MaxInt, fineDiveRounds, fineDiveFix, true}}
	case cg.ps.n <= fineDiveVMs:
		return []diveStep{{diveShare, diveRounds, diveFix, false}}
	}
	return []diveStep{
		{carefulDiveShare, carefulDiveRounds, carefulDiveFix, false},
		{diveShare, diveRounds, boldDiveFix, false},
	}
}

// fineDive reports whether this problem is small enough for the fine dive,
// at most fineDiveJobs jobs and fineDiveVMs primary VMs, and the integer
// search's work (integerWork, 0: not known) at least fineDiveWork a job.
func (cg *columnGen) fineDive() bool {
	m := len(cg.p.Jobs)
	return m <= fineDiveJobs && cg.ps.n <= fineDiveVMs && (cg.integerWork == 0 || cg.integerWork >= fineDiveWork*int64(m))
}

// halfCover is the fewest of the columns sure (indices into cols, in the
// order a dive step fixes them) that, taking those disjoint from the
// covered jobs and from each other, cover half of the left jobs left.
func halfCover(sure []int, cols [][]int, covered []bool, left int) int {
	taken := slices.Clone(covered)
	got, n := 0, 0
	for n < len(sure) && 2*got < left {
		if c := cols[sure[n]]; disjoint(c, taken) {
			for _, j := range c {
				taken[j] = true
			}
			got += len(c)
		}
		n++
	}
	return n
}

// subLP solves the LP over the columns disjoint from the covered jobs, rows
// for the others only, pricing new columns for them in up to rounds rounds;
// it returns those columns (in cg's job numbers), their λ and their indices
// in cg.
func (cg *columnGen) subLP(covered []bool, rounds int, stop func() bool) ([][]int, []float64, []int) {
	row := make([]int, len(covered))
	var single []float64
	var ids, rowJob []int
	for j, c := range covered {
		row[j] = -1
		if !c {
			row[j] = len(single)
			single = append(single, cg.lp.cost[j])
			ids = append(ids, j)
			rowJob = append(rowJob, j)
		}
	}
	lp := newCoverLP(single)
	lp.workers = cg.workers
	// The dominance transfers among the jobs left: a pair implied through a
	// job already covered is not among them, a weaker (still valid) set.
	for _, tr := range cg.lp.trans {
		if row[tr[0]] >= 0 && row[tr[1]] >= 0 {
			lp.trans = append(lp.trans, [2]int{row[tr[0]], row[tr[1]]})
		}
	}
	addFrom := func(from int) {
		for c := from; c < len(cg.lp.cols); c++ {
			jobs := cg.lp.cols[c]
			if !disjoint(jobs, covered) {
				continue
			}
			rows := make([]int, len(jobs))
			for k, j := range jobs {
				rows[k] = row[j]
			}
			lp.add(rows, cg.lp.cost[c])
			ids = append(ids, c)
		}
	}
	addFrom(len(covered))
	cg.residualRounds(lp, rowJob, rounds, stop, lp.duals, addFrom)
	cols := make([][]int, len(ids))
	for k, c := range ids {
		cols[k] = cg.lp.cols[c]
	}
	return cols, lp.values(), ids
}

// fixedLP is subLP for the fine dive: it fixes the jobs covered since the
// last step in lp (the dive's copy of the master LP, whose columns are cg's
// in cg's order), re-solves it from the last step's basis (fix) and prices
// up to rounds rounds for the jobs left, adding the new columns to lp too.
// It returns lp's columns and their λ.
func (cg *columnGen) fixedLP(lp *coverLP, covered []bool, rounds int, stop func() bool) ([][]int, []float64) {
	var fresh, rowJob []int
	for j, c := range covered {
		switch {
		case !c:
			rowJob = append(rowJob, j)
		case !lp.done[j]:
			fresh = append(fresh, j)
		}
	}
	// Failing (stop, or at most 4·M pivots: a few hundred were the most
	// measured at 200 jobs), fix restarts from the singletons, and solve
	// goes on from there: the result does not change what follows.
	lp.fix(fresh, 4*lp.m, stop)
	y := make([]float64, len(rowJob))
	duals := func() []float64 { // the rows of the jobs left
		all := lp.duals()
		for r, j := range rowJob {
			y[r] = all[j]
		}
		return y
	}
	cg.residualRounds(lp, rowJob, rounds, stop, duals, func(from int) {
		for c := from; c < len(cg.lp.cols); c++ {
			lp.add(cg.lp.cols[c], cg.lp.cost[c])
		}
	})
	return lp.cols, lp.values()
}

// residualRounds solves lp, a dive's LP of the jobs rowJob, and prices up
// to rounds quick rounds for them on its duals (duals: one per job of
// rowJob), re-solving after each; add takes the columns a round entered
// into cg, those from index from on.
func (cg *columnGen) residualRounds(lp *coverLP, rowJob []int, rounds int, stop func() bool, duals func() []float64, add func(from int)) {
	for round := 0; ; round++ {
		lp.solve(50*len(rowJob), stop)
		if round == rounds || (stop != nil && stop()) {
			return
		}
		before := len(cg.lp.cols)
		if cg.priceResidual(duals(), rowJob, round) == 0 {
			return
		}
		add(before)
	}
}

// priceResidual runs one quick pricing round for the residual LP of a dive,
// whose row r is job rowJob[r] and whose duals are y: the covered jobs get
// π = 0, so the programme leaves them out. It returns how many columns
// entered (into cg; the caller adds them to the residual LP).
func (cg *columnGen) priceResidual(y []float64, rowJob []int, round int) int {
	pi := make([]float64, len(cg.p.Jobs))
	for r, j := range rowJob {
		pi[j] = max(y[r], 0)
	}
	cg.pi, cg.y = pi, pi
	// The programme's work is about proportional to the jobs priced, so a
	// residual LP with fewer jobs affords more durations per round.
	return cg.quickRound(round, min(maxSample, cg.sample*len(pi)/max(1, len(rowJob))))
}

func disjoint(jobs []int, covered []bool) bool {
	for _, j := range jobs {
		if covered[j] {
			return false
		}
	}
	return true
}

// coverRest completes a partial schedule for finish (past maxFinishJobs
// jobs left, or past largeDive jobs in all where it beats the pair
// scheduler): a greedy set cover over the generated columns,
// each cut down to the jobs still uncovered (a subset of a phase is a phase,
// in the same roles or all primary, whichever is shorter), taking the one
// whose jobs' fewest VM-seconds fill its length best. Every job has its
// single-job column, so every job is covered. Running the jobs left alone
// instead would put hundreds of single-job phases into a plan at 1,000 jobs.
//
// A column's ratio changes only when jobs it holds are covered, so the
// columns sit in a heap, and a popped one whose jobs changed is priced again
// and pushed back (lazy greedy): the cover prices each column about once per
// job of it covered, not every column at every step. A column cut down can
// fill its shorter length better than before, so the order is the greedy's
// nearly, not exactly. It does not ask the limit: at 1,000 jobs on 200 hosts
// with 1,538 columns it takes about 0.2 s.
func (cg *columnGen) coverRest(s model.Schedule, covered []bool) model.Schedule {
	ps := cg.ps
	area := ps.areaDuals()
	covered = slices.Clone(covered)
	price := func(c int) (coverCand, bool) {
		var left []looseJob
		for _, a := range cg.phases[c].Jobs {
			if !covered[a.Job] {
				left = append(left, looseJob{a.Job, slices.Index(roleOf[:], a.Role)})
			}
		}
		if len(left) == 0 {
			return coverCand{}, false
		}
		left, T := ps.price(left, math.Inf(1)) // its roles or all primary
		if math.IsInf(T, 1) {
			return coverCand{}, false
		}
		jobs, roles := make([]int, len(left)), make([]int, len(left))
		var w float64
		for k, x := range left {
			jobs[k], roles[k] = x.job, x.role
			w += area[x.job]
		}
		return coverCand{col: c, ratio: w / T, jobs: jobs, roles: roles, T: T}, true
	}
	// The highest ratio first, then the lower column.
	h := &heapOf[coverCand]{before: func(a, b coverCand) bool {
		if a.ratio != b.ratio {
			return a.ratio > b.ratio
		}
		return a.col < b.col
	}}
	for c := range cg.phases {
		if cand, ok := price(c); ok {
			h.items = append(h.items, cand)
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		cand := heap.Pop(h).(coverCand)
		if !disjoint(cand.jobs, covered) {
			if again, ok := price(cand.col); ok {
				heap.Push(h, again)
			}
			continue
		}
		for _, j := range cand.jobs {
			covered[j] = true
		}
		s.Phases = append(s.Phases, ps.assign(cand.jobs, cand.roles, cand.T).phase())
	}
	for j, c := range covered {
		if !c {
			// Not reached while every single-job column is in cg.
			s.Phases = append(s.Phases, cg.phases[j])
		}
	}
	return s
}

// coverCand is a column cut down to the jobs coverRest has left: its
// index, jobs, roles, duration, and their fewest VM-seconds per second of it.
type coverCand struct {
	col         int
	ratio       float64
	jobs, roles []int
	T           float64
}
