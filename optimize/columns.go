package optimize

import (
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
	// Rounds caps the pricing rounds; 0 means 200.
	Rounds int
	// Stop, when set, is asked between pricing rounds and simplex pivots;
	// true ends column generation with the best bound so far (Solve uses it
	// for Settings.TimeLimit).
	Stop func() bool
	// BranchStop, when set, is asked during the integer search over the
	// columns; true ends it with the best plan so far. nil means Stop.
	BranchStop func() bool
	// Progress, when set, is called after every round with the best plan's
	// makespan and the best proven bound so far.
	Progress func(incumbent, bound float64)
}

// ColumnsResult is Columns' answer.
type ColumnsResult struct {
	Schedule model.Schedule
	Makespan float64
	// LowerBound is proven: no schedule has a smaller makespan.
	LowerBound float64
	// LPValue is the restricted master LP's last value; Columns and Rounds
	// count the columns generated and the pricing rounds run; Converged is
	// true when no column priced out (then LowerBound ≥ LPValue·(1−1e-9)).
	LPValue          float64
	Columns, Rounds  int
	Converged        bool
	SeedMakespan     float64 // the best seed schedule's makespan
	RelaxedPricing   bool    // capacities were scaled down to keep pricing fast
	BoundFromLPRatio float64 // LowerBound / LPValue
}

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
// whose real duration T has T − Σπ < 0 enters. When N is large the
// capacities are counted in units of several VMs: floored for the bound (a
// relaxation), rounded up for the columns (sets that fit).
//
// The bound is Farley's: for any π ≥ 0, θ = min over phases of
// duration/π(phase) makes θ·π dual feasible, so θ·Σπ is a lower bound; a
// relaxed pricing only over-estimates π(phase), so θ stays valid. When
// the candidate durations are too many, they are thinned to a geometric grid
// and θ uses the grid point below each phase: still valid, slightly weaker.
// The bound is the best of these and LowerBound's. Converged with exact
// pricing, it is the LP optimum over all phases.
//
// The integer plan (price-and-branch): a dive that fixes the LP's most-used
// columns and re-solves, then a branch-and-bound over the generated columns
// (brancher), and the seed schedules (Solve passes the pair plan and, for
// auto, the swarm's); the best wins, so it is never worse than any seed.
func Columns(p *model.Problem, seeds []model.Schedule, opt ColumnsOptions) (ColumnsResult, error) {
	m := len(p.Jobs)
	if m == 0 {
		return ColumnsResult{}, fmt.Errorf("optimize: columns: no jobs")
	}
	if opt.Rounds == 0 {
		opt.Rounds = 200
	}
	cg := newColumnGen(p)
	res := ColumnsResult{Makespan: math.Inf(1), LowerBound: LowerBound(p), RelaxedPricing: cg.scale > 1 || !cg.exact}
	for _, s := range seeds {
		if err := p.Check(s); err != nil {
			return ColumnsResult{}, fmt.Errorf("optimize: columns: seed schedule: %w", err)
		}
		for _, ph := range s.Phases {
			cg.addPhase(ph)
		}
		if ms := p.Makespan(s); ms < res.Makespan {
			res.Schedule, res.Makespan = s, ms
		}
	}
	res.SeedMakespan = res.Makespan
	for res.Rounds < opt.Rounds {
		res.Rounds++
		res.LPValue = cg.lp.solve(50*m, opt.Stop)
		added, bound, full := cg.price(res.Rounds)
		if full {
			res.LowerBound = max(res.LowerBound, bound)
		}
		if opt.Progress != nil {
			opt.Progress(res.Makespan, res.LowerBound)
		}
		if added == 0 {
			res.Converged = true
			break
		}
		if opt.Stop != nil && opt.Stop() {
			break
		}
	}
	if opt.BranchStop == nil {
		opt.BranchStop = opt.Stop
	}
	if s := cg.dive(opt.BranchStop); p.Makespan(s) < res.Makespan {
		res.Schedule, res.Makespan = s, p.Makespan(s)
	}
	if s, ok, _ := cg.branch(res.Makespan, res.LowerBound, 200_000, opt.BranchStop); ok && p.Makespan(s) < res.Makespan {
		res.Schedule, res.Makespan = s, p.Makespan(s)
	}
	res.Schedule = model.Normalize(res.Schedule)
	if err := p.Check(res.Schedule); err != nil {
		return ColumnsResult{}, fmt.Errorf("optimize: columns produced a bad schedule (a bug): %w", err)
	}
	res.LowerBound = min(res.LowerBound, res.Makespan)
	res.Columns = len(cg.lp.cols)
	if res.LPValue > 0 {
		res.BoundFromLPRatio = res.LowerBound / res.LPValue
	}
	return res, nil
}

// columnGen holds the master LP, its columns' phases and the pricer.
type columnGen struct {
	p      *model.Problem
	ps     *phaseSolver
	lp     *coverLP
	phases []model.Phase
	seen   map[string]bool
	grid   []float64 // candidate phase lengths priced, ascending
	exact  bool      // grid holds every candidate duration
	scale  int       // capacity units of the pricing programme, in VMs
	pi     []float64
}

// pricingWork is about the most table cells the pricing programme fills per
// round, summed over the candidate durations it prices: it sets how many
// durations are priced (at least minGrid) when there are too many to price
// them all.
const (
	pricingWork = 40_000_000
	minGrid     = 60
)

// maxCells bounds one pricing table, (⌊N/scale⌋+1)².
const maxCells = 1600

func newColumnGen(p *model.Problem) *columnGen {
	ps := newPhaseSolver(p)
	m := len(p.Jobs)
	n := ps.n
	single := make([]float64, m)
	cg := &columnGen{p: p, ps: ps, seen: map[string]bool{}, scale: 1}
	for j := range m {
		single[j] = p.Runtime(j, n, model.Primary)
		ph := model.Phase{Jobs: []model.Assignment{{Job: j, VMs: n, Role: model.Primary}}}
		cg.phases = append(cg.phases, ph)
		cg.seen[phaseKey(ph)] = true
	}
	cg.lp = newCoverLP(single)
	for (n/cg.scale+1)*(n/cg.scale+1) > maxCells {
		cg.scale++
	}
	side := n/cg.scale + 1
	cg.grid, cg.exact = thinGrid(ps.cands, max(minGrid, pricingWork/(2*side*side*m)))
	return cg
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

// addPhase adds a phase as a column unless it is there already.
func (cg *columnGen) addPhase(ph model.Phase) bool {
	ph = model.Normalize(model.Schedule{Phases: []model.Phase{{Jobs: slices.Clone(ph.Jobs)}}}).Phases[0]
	k := phaseKey(ph)
	if cg.seen[k] {
		return false
	}
	cg.seen[k] = true
	jobs := make([]int, len(ph.Jobs))
	for i, a := range ph.Jobs {
		jobs[i] = a.Job
	}
	cg.phases = append(cg.phases, ph)
	cg.lp.add(jobs, cg.p.PhaseDuration(ph))
	return true
}

// Pricing rounds. A full round prices every grid duration and yields
// Farley's bound; in between, a round prices a rotating sample of
// sampleSize durations and stops there if columns entered, so most rounds
// cost a fraction of a full one. Every fullEvery-th round is full, for the
// bound's sake, and so is a round whose sample finds nothing: converging is
// declared only by a full round. At most maxEnter columns enter per round.
const (
	sampleSize = 40
	fullEvery  = 8
	maxEnter   = 16
)

// price runs one pricing round on the LP's duals: it returns how many
// columns entered and, if the round was full, Farley's bound for these duals.
func (cg *columnGen) price(round int) (added int, bound float64, full bool) {
	y := cg.lp.duals()
	for j := range y {
		y[j] = max(y[j], 0)
	}
	cg.pi = y
	g := len(cg.grid)
	if g > sampleSize && round%fullEvery != 0 {
		idx := make([]int, 0, sampleSize)
		for i := round % (g / sampleSize); i < g && len(idx) < sampleSize; i += g / sampleSize {
			idx = append(idx, i)
		}
		if added = cg.enter(idx, cg.values(idx)); added > 0 {
			return added, 0, false
		}
	}
	idx := make([]int, g)
	for i := range idx {
		idx[i] = i
	}
	best := cg.values(idx)
	return cg.enter(idx, best), cg.farley(best), true
}

// values prices the grid durations at the given indices (the programme's
// optimum Σπ, floored weights: a relaxation).
func (cg *columnGen) values(idx []int) []float64 {
	best := make([]float64, len(idx))
	for k, i := range idx {
		best[k], _, _ = cg.knapsack(cg.grid[i], false, false)
	}
	return best
}

// farley is Farley's bound θ·Σπ from the values of a full round.
func (cg *columnGen) farley(best []float64) float64 {
	var sum float64
	for _, v := range cg.pi {
		sum += v
	}
	theta := math.Inf(1)
	for i, D := range cg.grid {
		at := D // phases of length in (grid[i−1], D] cost more than grid[i−1]
		if !cg.exact && i > 0 {
			at = cg.grid[i-1]
		}
		if best[i] > 0 {
			theta = min(theta, at/best[i])
		}
	}
	if math.IsInf(theta, 1) {
		return 0
	}
	return theta * sum
}

// enter builds columns at the durations whose programme value beats them
// most, up to maxEnter, and returns how many entered. With scaled capacities
// the sets are rebuilt with weights rounded up, so that they fit.
func (cg *columnGen) enter(idx []int, best []float64) int {
	order := make([]int, len(idx))
	for k := range order {
		order[k] = k
	}
	sort.Slice(order, func(a, b int) bool {
		return cg.grid[idx[order[a]]]-best[order[a]] < cg.grid[idx[order[b]]]-best[order[b]]
	})
	added := 0
	for _, k := range order[:min(maxEnter, len(order))] {
		D := cg.grid[idx[k]]
		if D-best[k] >= -1e-9*D {
			break
		}
		_, jobs, roles := cg.knapsack(D, true, cg.scale > 1)
		if cg.realize(jobs, roles) {
			added++
		}
	}
	return added
}

// realize prices a subset exactly and adds it as a column if its reduced
// cost is negative; an infeasible role choice falls back to all primary, and
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
				pi += cg.pi[j]
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
