package optimize

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/model"
)

// ColumnsOptions tune Columns. The zero value is valid.
type ColumnsOptions struct {
	// Rounds caps the pricing rounds; 0 means 1000.
	Rounds int
	// Stop, when set, is asked between pricing rounds and simplex pivots;
	// true ends column generation with the best bound so far (Solve uses it
	// for Settings.TimeLimit). It is asked during the integer search too,
	// as BranchStop is, when BranchStop is nil.
	Stop func() bool
	// BranchStop, when set, is asked during the integer search over the
	// columns, from one goroutine at a time but not always the same one;
	// true ends it with the best plan so far. nil means Stop.
	BranchStop func() bool
	// BoundStop, when set, is asked during the final bound round that
	// follows a stopped column generation; true ends it with the bound so far.
	// nil means BranchStop. Solve gives it an eighth of a run's pricing
	// units, apart from the integer search's: at 1,000 jobs that round alone
	// could take all of the integer search's.
	BoundStop func() bool
	// Progress, when set, is called after every round with the best plan's
	// makespan and the best proven bound so far.
	Progress func(incumbent, bound float64)
	// Tolerance ends column generation once the proven bound is within this
	// fraction of the LP's value, leaving the rest of the time to the integer
	// search: the last rounds of column generation move the LP little and
	// cost as much as the first. 0 means DefaultTolerance; negative means
	// none (generate until no column prices out).
	Tolerance float64
	// cells, when not 0, replaces maxCells (tests force scaled pricing
	// with it on clusters small enough for the exact solver).
	cells int
	// grid, when not 0, is the most durations a full round prices before
	// refining between them (tests thin the grid with it).
	grid int
	// splits, when not 0, is the most ranges farleyTheta splits in a round
	// (tests starve its refinement with it).
	splits int
	// integerWork, when not 0, is the work units the integer search may
	// spend (a checkpoint run's: integerShare); the dive is fine
	// only if they are enough for it (fineDive).
	integerWork int64
	// improver, if not nil, is the last run's improve (ColumnsResult's),
	// which this run's goes on with when it starts from the plan that one
	// returned, so improve's search continues from run to run instead of
	// starting over.
	improver *improver
	// noFinalBound skips the final bound round (tests measure what it adds).
	noFinalBound bool
	// noTransfers leaves the dual-optimal inequalities' transfers out of
	// the master LP (tests compare its optimum with and without them).
	noTransfers bool
	// maxPivots, when not 0, replaces the 50·M pivots a round's LP solve
	// may take (tests cut the solves short with it).
	maxPivots int
	// sparse keeps the master LP's B⁻¹ as sparse factors whatever the
	// jobs (tests compare them with the dense inverse; see luJobs).
	sparse bool
	// shared, when not nil, holds p's phase solver and LowerBound, which
	// Solve has built already.
	shared *sharedTables
	// columns are phases to start the master with besides the seeds'
	// (a previous run's columns, ColumnsResult.phases): a run continues
	// the LP where that one left it instead of pricing it all again.
	columns []model.Phase
	// workers, when not 0, replaces pricingWorkers, the goroutines that
	// price, pivot and try local improvement's moves and swaps (tests
	// compare one goroutine with several).
	workers int
	// ended, if not nil, reports that a limit has ended the search
	// (workClock.ended): the final bound round's bound, and the plans the
	// roundings (roundEach) and the integer search found before it, are
	// kept in ColumnsResult.uncut and uncutBound.
	ended func() bool
	// basis is the LP basis the previous run ended with
	// (ColumnsResult.basis): its columns are indices into columns.
	basis []int
	// lpValue is the value of basis, the LP the master goes on from (0:
	// none). A seed shorter than it does not enter the master (addSeed).
	lpValue float64
	// pricing, if not nil, is the previous run's pricing state after its
	// final bound round (ColumnsResult.pricing): this run's starts from it.
	pricing *pricingState
	// resumed, if not nil, is called once the master and the pricing state
	// are set up, before the first round (tests look at where it starts).
	resumed func(cg *columnGen)
	// priced, if not nil, is called when pricing has ended, before the
	// integer search (tests look at the LP it ended with).
	priced func(cg *columnGen, res *ColumnsResult)
}

// startBound returns the bound column generation starts from besides
// LowerBound's, the tolerance and the branch-and-bound judging by it too:
// the level bound Solve proved (levels.go), or, where pricing counts VMs in
// units and Columns runs on its own, the area duals' (areaBound). A first
// run (first: no pricing state to resume) smooths towards the level
// bound's duals rather than the area duals and skips the area duals'
// bound (random-m1000-seed1: 8,529 s against the level bound's 11,461 s):
// at 1,000 jobs on 200 hosts the LP then comes down faster.
// random-m1000-seed1 to seed5 at 6,000 units: plans 3.2, 0.1, 6.2, 3.3 and
// 2.1 % shorter than when the first run smoothed towards the area duals
// and computed their bound.
func (cg *columnGen) startBound(sh *sharedTables, first bool) float64 {
	if sh.levelDuals != nil {
		if first {
			cg.centre, cg.bestBound = slices.Clone(sh.levelDuals), sh.level
		}
		return sh.level
	}
	if !sh.hasAreaDual && cg.scale > 1 {
		sh.areaDual, sh.hasAreaDual = cg.areaBound()
	}
	return sh.areaDual
}

// pivots is the most pivots a round's LP solve takes on m jobs.
func (o ColumnsOptions) pivots(m int) int {
	if o.maxPivots > 0 {
		return o.maxPivots
	}
	return 50 * m
}

// DefaultTolerance is ColumnsOptions.Tolerance's default: 0.5 %.
const DefaultTolerance = 0.005

func (o ColumnsOptions) tolerance() float64 {
	switch {
	case o.Tolerance < 0:
		return 0
	case o.Tolerance == 0:
		return DefaultTolerance
	}
	return o.Tolerance
}

// ColumnsResult is Columns' answer.
type ColumnsResult struct {
	Schedule model.Schedule
	Makespan float64
	// LowerBound is proven: no schedule has a smaller makespan.
	LowerBound float64
	// LPValue is the restricted master LP's last value; Columns and Rounds
	// count the columns generated and the pricing rounds run; Converged is
	// true when exact pricing over every candidate duration found no column
	// to enter: the LP is then solved over all phases (LowerBound ≥
	// LPValue·(1−1e-9), or 1−2e-6 where the LP's own basic solution is
	// infeasible and it reports the perturbed one: coverLP.primal). Ended
	// says why column generation ended.
	LPValue          float64
	Columns, Rounds  int
	Converged        bool
	Ended            string
	SeedMakespan     float64 // the best seed schedule's makespan
	RelaxedPricing   bool    // capacities were scaled down, or durations priced on a grid, to keep pricing fast
	BoundFromLPRatio float64 // LowerBound / LPValue
	// proven is the bound before it is capped at the plan's makespan: a
	// bound above the optimum would hide under the cap when the plan is
	// optimal, so the tests check this one.
	proven float64
	// pivots counts the master LP's simplex pivots (tests and
	// measurements read it: deterministic, unlike the time).
	pivots int
	// uncut is the best plan after the last rounding (roundEach) or
	// integer-search step that ended before ColumnsOptions.ended said yes,
	// or where a local improvement begun before it had got to (no Phases:
	// no step ended before it and no rounding beat the seeds), and
	// uncutBound the final bound round's bound if it ended before (else 0).
	uncut      model.Schedule
	uncutBound float64
	// phases are the master's columns at the end, for a next run's
	// ColumnsOptions.columns.
	phases []model.Phase
	// basis is the master LP's last basis, its columns indices into
	// phases, for a next run's ColumnsOptions.basis, and basisValue its
	// value, for ColumnsOptions.lpValue.
	basis      []int
	basisValue float64
	// pricing is the pricing state after the final bound round (which may
	// grow the grid), for a next run's ColumnsOptions.pricing.
	pricing pricingState
	// improver is the integer search's last improve, for a next run's
	// ColumnsOptions.improver.
	improver *improver
}

// Why column generation ended (ColumnsResult.Ended).
const (
	EndedConverged = "converged"
	EndedRelaxed   = "no column priced out, but pricing counted VMs in units or priced some durations only (the LP is not proven optimal)"
	EndedTolerance = "the bound came within the tolerance of the LP"
	EndedStopped   = "stopped before converging"
	EndedRounds    = "the round limit was reached"
)

// Columns plans by column generation over phases (set partitioning): a
// column is one phase (its jobs, roles and VM counts), its cost the phase's
// duration, and a schedule picks columns that cover every job once. Its LP
// relaxation (covering, coverLP) bounds every schedule from below.
//
// Pricing: for duals π and a candidate phase length D, each job needs the
// fewest VMs that meet D in each role it may take; a knapsack by dynamic
// programming picks the subset and roles that maximise Σπ among the sets that
// fit one phase, exactly (columns_price.go: for each count O of overcommitted
// machines the phase's constraints split into three capacities). A phase
// whose real duration T has T − Σπ < 0 enters. Past N = 100 primary VMs
// (maxCells) the capacities are counted in units of several VMs: floored for
// the bound (a relaxation), rounded up for the columns (sets that fit). Most
// rounds are quick ones that price a sample of the durations (columns_round.go).
//
// The bound is Farley's: for any π ≥ 0, θ = min over phases of
// duration/π(phase) makes θ·π dual feasible, so θ·Σπ is a lower bound; a
// relaxed pricing only over-estimates π(phase), so θ stays valid. When
// the candidate durations are too many, a full round prices a geometric grid
// of them and bounds the phases between two grid points by the lower one's
// duration over the upper one's value, refining where that is tightest
// (farleyTheta): still valid, exact where the refinement reaches single
// durations; with floored weights each run's value is also lowered by the
// programme's linear relaxation (fracDual) where it decides θ. Full rounds
// price at smoothed duals (Wentges), since any π ≥ 0 gives a bound; with
// floored weights a first bound comes from the level bound Solve proved
// (levels.go), or on a call of Columns alone from the area duals
// (areaBound). The bound is the best of these and LowerBound's. Converged with exact
// pricing, it is the LP optimum over all phases.
//
// Column generation ends when no column prices out, when the bound is within
// Tolerance of the LP, or on Stop or the round cap (then a final bound round
// prices the last LP's duals, smoothed). Past largeDive jobs each round also
// rounds the LP into a plan (roundEach). The integer plan (price-and-branch):
// one or two dives that fix the LP's most-used columns and re-solve, pricing
// columns for the jobs left (diveSteps), the seed schedules (Solve passes
// the pair plan and, for auto, the swarm's), local improvement of the best
// of these by moving and swapping jobs between phases (improve), then a
// branch-and-bound over the generated columns (brancher); the best wins, so
// it is never worse than any seed.
func Columns(p *model.Problem, seeds []model.Schedule, opt ColumnsOptions) (ColumnsResult, error) {
	m := len(p.Jobs)
	if m == 0 {
		return ColumnsResult{}, fmt.Errorf("optimize: columns: no jobs")
	}
	if opt.Rounds == 0 {
		opt.Rounds = 1000
	}
	sh := opt.shared
	if sh == nil {
		sh = &sharedTables{p: p}
	}
	cg := newColumnGenOn(sh.solver(), opt.cells, opt.grid)
	cg.workers = cmp.Or(opt.workers, cg.workers)
	cg.integerWork = opt.integerWork
	cg.splits = opt.splits
	cg.lp.workers = cg.workers
	if opt.noTransfers {
		cg.lp.trans = nil
	}
	if opt.sparse && cg.lp.lu == nil {
		cg.lp.represent(true)
		cg.lp.restart()
	}
	res := ColumnsResult{Makespan: math.Inf(1), LowerBound: sh.bound(), RelaxedPricing: cg.scale > 1 || !cg.exact}
	for _, s := range seeds {
		if err := p.Check(s); err != nil {
			return ColumnsResult{}, fmt.Errorf("optimize: columns: seed schedule: %w", err)
		}
		if ms := cg.addSeed(s, opt.lpValue); ms < res.Makespan {
			res.Schedule, res.Makespan = s, ms
		}
	}
	cg.goOn(opt)
	res.SeedMakespan = res.Makespan
	cg.incumbent = res.Makespan
	cg.stop = opt.Stop
	res.LowerBound = max(res.LowerBound, cg.startBound(sh, opt.pricing == nil))
	res.Ended = EndedRounds
	for res.Rounds < opt.Rounds {
		res.Rounds++
		gridBefore := len(cg.grid)
		res.LPValue = cg.lp.solve(opt.pivots(m), opt.Stop)
		added, bound, full := cg.price(res.Rounds)
		if full {
			res.LowerBound = max(res.LowerBound, bound)
		}
		if m > largeDive && (opt.ended == nil || !opt.ended()) && (cg.lp.work-cg.roundedAt)*m >= roundPivots {
			cg.roundedAt = cg.lp.work
			cg.roundEach(&res, opt.ended)
		}
		// short: the bound lies more than the tolerance below the LP.
		short := res.LowerBound < res.LPValue*(1-opt.tolerance())
		cg.liftAtCap(short)
		if opt.Progress != nil {
			opt.Progress(res.Makespan, res.LowerBound)
		}
		if cg.cut {
			res.Ended = EndedStopped // in the middle of the round
			break
		}
		// Duals the pivot cap cut short are not the LP's: that none of
		// them prices a column out proves nothing, and the next round's
		// solve goes on from where this one stopped.
		if added == 0 && cg.lp.optimal && cg.ends(&res, short, gridBefore) {
			break
		}
		if full && !short {
			res.Ended = EndedTolerance // as good as this LP will make it, nearly
			break
		}
		if opt.Stop != nil && opt.Stop() {
			res.Ended = EndedStopped
			break
		}
	}
	if opt.priced != nil {
		opt.priced(cg, &res)
	}
	cg.integerPlan(&res, opt)
	res.Schedule = model.Normalize(res.Schedule)
	if err := p.Check(res.Schedule); err != nil {
		return ColumnsResult{}, fmt.Errorf("optimize: columns produced a bad schedule (a bug): %w", err)
	}
	res.proven = res.LowerBound
	res.LowerBound = min(res.LowerBound, res.Makespan)
	res.Columns = len(cg.lp.cols)
	res.pivots = cg.lp.work
	res.phases = cg.phases
	res.basis, res.basisValue = cg.lp.basis, cg.lp.objective()
	res.pricing = cg.state()
	if res.LPValue > 0 {
		res.BoundFromLPRatio = res.LowerBound / res.LPValue
	}
	return res, nil
}

// roundEach keeps the plain rounding of the current LP (the dive stopped at
// once, as integerPlan's first step past largeDive jobs) if it is shorter
// than res's plan. Past largeDive jobs a run's rounds take seconds each
// and its integer search comes only at its end, so where a limit cuts a
// run, its LP's progress reaches the plan only through these roundings.
// They follow the LP down unevenly (1,000 jobs on 200 hosts, seed 1, the
// fifth run: ten rounds' roundings between 13,617 and 13,953 s, then one
// of 12,982 s, 1.067 times the LP), so each round's is kept, at
// 0.04–0.19 s beside rounds of 1–1.5 s. A plan found before ended said yes
// is on every longer limit's course, so it is also res.uncut. It leaves
// cg.incumbent, the seeds' best, alone: Farley's bound leaves out only
// phases longer than that, and a phase as long as a whole plan is rare.
//
// A round rounds only once the LP has pivoted roundPivots/M times since the
// last rounding: a pivot costs at least M (B⁻¹'s update: M² entries where
// it is dense), a rounding about M·(jobs a phase), so where pivots are few
// the rounding would be most of the time (500 jobs on 9 hosts, 450 pivots a round in 0.1 s: 12 % fewer
// work units at the default limit when every round rounded); at 1,000 jobs
// on 200 hosts, 1,500–2,800 pivots a round, every round still does.
func (cg *columnGen) roundEach(res *ColumnsResult, ended func() bool) {
	s := cg.plainRounding()
	if ms := cg.p.Makespan(s); ms < res.Makespan {
		res.Schedule, res.Makespan = s, ms
		if ended != nil && !ended() {
			res.uncut = res.Schedule
		}
	}
}

// roundPivots is pivots times jobs: see roundEach.
const roundPivots = 1_000_000

// goOn starts cg where a previous run left off, as far as opt says: its
// columns, LP basis and pricing state; then it calls opt.resumed.
func (cg *columnGen) goOn(opt ColumnsOptions) {
	for _, ph := range opt.columns {
		cg.addPhase(ph)
	}
	if opt.basis != nil {
		cg.warmStart(opt.columns, opt.basis, opt.Stop)
	}
	if opt.pricing != nil {
		cg.resume(*opt.pricing)
	}
	if opt.resumed != nil {
		opt.resumed(cg)
	}
}

// ends is Columns' verdict on a round that entered no column on the LP's
// own duals, the grid having held gridBefore durations as it began: column
// generation ends, converged (relaxed, where pricing was), unless the bound
// lies more than the tolerance below the LP (short) and liftGrid lets
// pricing go on. The next round then prices the grid again (the tolerance
// test fails, the bound being short).
func (cg *columnGen) ends(res *ColumnsResult, short bool, gridBefore int) bool {
	if short && cg.liftGrid(gridBefore) {
		return false
	}
	res.Converged, res.Ended = !res.RelaxedPricing, EndedConverged
	if res.RelaxedPricing {
		res.Ended = EndedRelaxed
	}
	return true
}

// integerPlan ends Columns: a final bound round if the limit or the round
// cap stopped column generation (opt.BoundStop ends it; none with
// noFinalBound), past largeDive jobs a plain rounding of the LP (the dive
// stopped at once), the dives (diveSteps), local improvement (improve) of
// the best plan, then the branch-and-bound over the generated columns,
// whose plan is improved in turn; opt.BranchStop ends any of them.
func (cg *columnGen) integerPlan(res *ColumnsResult, opt ColumnsOptions) {
	p, m := cg.p, len(cg.p.Jobs)
	stop, boundStop := opt.BranchStop, opt.BoundStop
	if stop == nil {
		stop = opt.Stop
	}
	if boundStop == nil {
		boundStop = stop
	}
	// beforeLimit: every step so far ran before the limit, so its result
	// is the same whatever the limit.
	beforeLimit := func() bool { return opt.ended != nil && !opt.ended() }
	// take keeps s if it is shorter; onTrack says that s is what any
	// longer limit's search finds at this point or improves on, so that
	// runCheckpoints keeps it even if the limit then cuts the run: a step
	// that ended before the limit, or improve begun before it, which only
	// ever shortens the plan (a move, swap or lns step the limit cuts is
	// dropped), so the limit only ends its descent early.
	take := func(s model.Schedule, onTrack bool) {
		if ms := p.Makespan(s); ms < res.Makespan {
			res.Schedule, res.Makespan = s, ms
		}
		if onTrack {
			res.uncut = res.Schedule
		}
	}
	// improveFrom goes on with the last run's improve (opt.improver) where
	// s is the plan it returned, else starts one on s.
	improveFrom := func(s model.Schedule) {
		began := beforeLimit()
		im := opt.improver
		if !im.holds(s) {
			im = cg.ps.newImprover(s, cleanPairs{})
		}
		res.improver = im
		take(im.run(cg.ps, cg.workers, stop), began)
	}
	cg.stop, cg.cut = stop, false
	// Stop may have cut the last LP short, and the dive follows its values:
	// finish it (from where it stopped, so this is quick when it was not).
	cg.lp.solve(50*m, stop)
	// The final bound comes first: a plan exists already (the seeds), a
	// bound beyond LowerBound's only if a full round got to run, and at
	// M = 100 on 50 hosts under auto's share of the limit the dive could
	// leave it no time.
	if (res.Ended == EndedStopped || res.Ended == EndedRounds) && !opt.noFinalBound {
		cg.stop = boundStop
		res.LowerBound = max(res.LowerBound, cg.finalBound())
		cg.stop, cg.cut = stop, false
		if beforeLimit() {
			res.uncutBound = res.LowerBound
		}
	}
	if m > largeDive {
		// The plain rounding: the LP's columns by λ, greedily, then
		// finish. It asks no limit, so its plan counts as found before
		// the limit even if the limit then cuts the dive, whose own
		// plan from then on is lost; at 1,000 jobs on 200 hosts it is
		// 1.08–1.16 × the LP.
		take(cg.plainRounding(), beforeLimit())
	}
	for k, step := range cg.diveSteps() {
		if k > 0 && opt.ended != nil && opt.ended() {
			// Past the limit a further dive only rounds the LP greedily:
			// a work or time limit keeps no plan found after it, and an
			// interrupt, which keeps the best plan so far, ends sooner.
			break
		}
		take(cg.dive(step, stop), beforeLimit())
	}
	improveFrom(res.Schedule)
	if s, ok, _ := cg.branch(res.Makespan, res.LowerBound, 200_000, stop); ok && p.Makespan(s) < res.Makespan {
		take(s, beforeLimit())
		improveFrom(s)
	}
}

// columnGen holds the master LP, its columns' phases and the pricer.
type columnGen struct {
	p      *model.Problem
	ps     *phaseSolver
	lp     *coverLP
	phases []model.Phase
	seen   map[string]int // column index by phaseKey
	grid   []float64      // candidate phase lengths priced, ascending
	// gridIdx[i] is grid[i]'s index in ps.cands; grid0 the grid's first
	// size (farleyTheta grows it), growCap the most durations grow lets
	// it hold: gridGrowth times grid0, every candidate once lifted
	// (liftAtCap); capped records that a refinement of the current pricing
	// round met the cap (price clears it; Columns reads it after price).
	gridIdx []int
	grid0   int
	growCap int
	capped  bool
	// incumbent is the best seed's makespan: Farley's bound looks only at
	// phases shorter than it.
	incumbent float64
	// thetaAt is the candidate where the last full round's θ was attained
	// (an index into ps.cands), or −1.
	thetaAt int
	exact   bool // grid holds every candidate duration
	scale   int  // capacity units of the pricing programme, in VMs
	// sample is how many grid durations a quick round prices.
	sample int
	// integerWork is ColumnsOptions.integerWork.
	integerWork int64
	// work counts the table cells the pricing programme has filled;
	// quickWork and fullWork split it by round kind, and lastFull is the
	// last full round (fullDue reads them).
	work, quickWork, fullWork int64
	lastFull                  int
	// roundedAt is the LP's pivot count (coverLP.work) at the last
	// rounding (roundEach).
	roundedAt int
	lpHist    []float64 // the LP's value at each round
	// refine is farleyTheta's budget factor (refineFactor, or finalRefine);
	// splits, if not 0, its budget instead (ColumnsOptions.splits).
	refine, splits int
	// pi are the duals a round prices at; y the LP's own (clamped at 0),
	// which decide whether a column enters; centre the duals of the best
	// bound so far, bestBound (the stabilisation centre: the level bound's
	// or the area duals until a full round proves a higher bound).
	pi, y, centre []float64
	bestBound     float64
	// pricers hold the pricing programme's tables, reused: the first for
	// knapsack, one per goroutine for priceAll (workers of them at most);
	// workers also sets the master LP's (coverLP.workers).
	pricers []*pricer
	workers int
	// fracJobs, fracB and fracW are fracDual's scratch, reused.
	fracJobs     []fracJob
	fracB, fracW []float64
	// stop, if not nil, is asked during a round's pricing; cut records that
	// it said yes, so that the round's result is not taken for convergence.
	stop func() bool
	cut  bool
	// greedyGrid is the durations greedyRound prices (made on first use).
	greedyGrid []float64
}

// pricingWork is about the most table cells the pricing programme fills per
// round, summed over the candidate durations it prices: it sets how many
// durations are priced (at least minGrid) when there are too many to price
// them all.
const (
	pricingWork = 40_000_000
	minGrid     = 60
)

// maxCells bounds one pricing table, (⌊N/scale⌋+1)²: up to N = 100 primary
// VMs (50 hosts of 2 disks) pricing is exact.
const maxCells = 101 * 101

// newColumnGen starts column generation on p with the singleton columns;
// cells bounds a full round's pricing table (0: maxCells) and grid the
// durations it prices (0: as pricingWork allows).
func newColumnGen(p *model.Problem, cells, grid int) *columnGen {
	return newColumnGenOn(newPhaseSolver(p), cells, grid)
}

// newColumnGenOn is newColumnGen on p's phase solver, already built.
func newColumnGenOn(ps *phaseSolver, cells, grid int) *columnGen {
	p := ps.p
	m := len(p.Jobs)
	n := ps.n
	single := make([]float64, m)
	cg := &columnGen{p: p, ps: ps, seen: map[string]int{}, scale: 1, workers: pricingWorkers()}
	for j := range m {
		single[j] = p.Runtime(j, n, model.Primary)
		ph := model.Phase{Jobs: []model.Assignment{{Job: j, VMs: n, Role: model.Primary}}}
		cg.phases = append(cg.phases, ph)
		cg.seen[phaseKey(ph)] = j
	}
	cg.lp = newCoverLP(single)
	cg.lp.idle, cg.lp.age = make([]bool, m), make([]int32, m)
	cg.lp.workers = cg.workers
	cg.lp.trans = ps.transfers()
	if cells == 0 {
		cells = maxCells
	}
	cg.scale = unitFor(n, cells)
	side := n/cg.scale + 1
	cg.sample = min(maxSample, max(minSample, quickCells/(2*side*side*m)))
	cg.refine = refineFactor
	if grid == 0 {
		grid = max(minGrid, pricingWork/(2*side*side*m))
	}
	cg.grid, cg.exact = thinGrid(ps.cands, grid)
	for _, D := range cg.grid {
		cg.gridIdx = append(cg.gridIdx, sort.SearchFloat64s(ps.cands, D))
	}
	cg.grid0 = len(cg.grid)
	cg.growCap = gridGrowth * cg.grid0
	cg.incumbent = math.Inf(1)
	cg.centre = ps.areaDuals()
	return cg
}

// unitFor is the least unit s of VMs with (⌊n/s⌋+1)² ≤ cells.
func unitFor(n, cells int) int {
	s := 1
	for (n/s+1)*(n/s+1) > cells {
		s++
	}
	return s
}

// thinGrid keeps every candidate when there are at most g, else about g of
// them spaced geometrically, always the first and the last.
func thinGrid(cands []float64, g int) ([]float64, bool) {
	if len(cands) <= g {
		return cands, true
	}
	lo, hi := cands[0], cands[len(cands)-1]
	step := math.Pow(hi/lo, 1/float64(g))
	out := []float64{lo}
	for _, c := range cands[1:] {
		if c >= out[len(out)-1]*step {
			out = append(out, c)
		}
	}
	if out[len(out)-1] != hi {
		out = append(out, hi)
	}
	return out, false
}

func phaseKey(ph model.Phase) string {
	var b strings.Builder
	for _, a := range ph.Jobs {
		b.WriteString(strconv.Itoa(a.Job) + string(a.Role[0]) + strconv.Itoa(a.VMs) + ",")
	}
	return b.String()
}

// warmStart starts the LP from a previous run's basis, whose columns are
// indices into that run's phases (all of which are columns here too, added
// from ColumnsOptions.columns, at indices of their own); surpluses and
// transfers are numbered alike in both runs. stop may end it. It reports
// whether the LP now starts from that basis.
func (cg *columnGen) warmStart(phases []model.Phase, basis []int, stop func() bool) bool {
	mapped := make([]int, len(basis))
	for k, b := range basis {
		mapped[k] = b
		if b >= 0 {
			c, ok := cg.seen[phaseKey(phases[b])]
			if !ok {
				return false // cannot happen: every phase was added
			}
			mapped[k] = c
		}
	}
	return cg.lp.warmStart(mapped, stop)
}

// addSeed adds seed s's phases as columns unless s is shorter than lpValue,
// the LP's value the master goes on from, and returns its makespan. Such a
// plan would move the LP onto it, an integral vertex so degenerate that
// column generation stalls there: 100 jobs on 50 hosts (seed 1) sat at the
// plan's 5,040.1 s for 50 rounds, 5 or 6 columns entering each. It is the
// incumbent only.
func (cg *columnGen) addSeed(s model.Schedule, lpValue float64) float64 {
	ms := cg.p.Makespan(s)
	if !(ms < lpValue) {
		for _, ph := range s.Phases {
			cg.addPhase(ph)
		}
	}
	return ms
}

// addPhase adds a phase as a column unless it is there already.
func (cg *columnGen) addPhase(ph model.Phase) bool {
	ph = model.Normalize(model.Schedule{Phases: []model.Phase{{Jobs: slices.Clone(ph.Jobs)}}}).Phases[0]
	k := phaseKey(ph)
	if _, ok := cg.seen[k]; ok {
		return false
	}
	cg.seen[k] = len(cg.phases)
	jobs := make([]int, len(ph.Jobs))
	for i, a := range ph.Jobs {
		jobs[i] = a.Job
	}
	cg.phases = append(cg.phases, ph)
	cg.lp.add(jobs, cg.p.PhaseDuration(ph))
	return true
}

// realize prices a subset exactly and adds it as a column if its reduced
// cost under the LP's duals is negative; an infeasible role choice falls back to all primary, and
// then the job with the least dual leaves until the rest fits.
func (cg *columnGen) realize(jobs, roles []int) bool {
	ps := cg.ps
	for len(jobs) > 0 {
		lo, hi := make([]int, len(jobs)), make([]int, len(jobs))
		T := ps.best(jobs, roles, lo, hi)
		if math.IsInf(T, 1) {
			prim := make([]int, len(jobs))
			if T = ps.best(jobs, prim, lo, hi); !math.IsInf(T, 1) {
				roles = prim
			}
		}
		if !math.IsInf(T, 1) {
			var pi float64
			for _, j := range jobs {
				pi += cg.y[j]
			}
			if T-pi >= -1e-9*T {
				return false
			}
			return cg.addPhase(ps.assign(jobs, roles, T).phase())
		}
		w := 0
		for k := range jobs {
			if cg.pi[jobs[k]] < cg.pi[jobs[w]] {
				w = k
			}
		}
		jobs = slices.Delete(slices.Clone(jobs), w, w+1)
		roles = slices.Delete(slices.Clone(roles), w, w+1)
	}
	return false
}
