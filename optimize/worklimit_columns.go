package optimize

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/packer-sched/packer/model"
)

// checkpoints is what column generation's runs (worklimit.go) found: the
// best plan, the best bound, the last whole run and how many ran whole.
type checkpoints struct {
	best          model.Schedule
	makespan      float64 // best's
	bound         float64
	last          *ColumnsResult
	runs          int     // whole runs
	started       int     // runs begun, the one a limit cut included
	startMakespan float64 // the best seed's
	fromCut       bool    // best was found by a run a limit cut, before the cut
	tolerance     float64 // the tolerance the last whole run priced to
}

// runCheckpoints runs column generation from seeds in runs of doubling
// work until one ends by itself or a limit ends the search. The plan and
// bound are the best of the whole runs, of the plans a run the limit cut
// found before the cut (its integer search's, and past largeDive jobs its
// pricing rounds' roundings), and of the bounds its pricing rounds proved
// before it: the same whatever the limit, up to where it cut.
func runCheckpoints(p *model.Problem, seeds []model.Schedule, set *Settings) (*checkpoints, error) {
	cp := &checkpoints{bound: set.shared.bound()}
	for _, s := range seeds {
		if ms := p.Makespan(s); cp.best.Phases == nil || ms < cp.makespan {
			cp.best, cp.makespan = s, ms
		}
	}
	cp.startMakespan = cp.makespan
	clock := set.clock
	// Progress shows what the result would be if the search ended now: the
	// best plan of the whole runs or of this run's roundings so far (its
	// integer search has not begun when pricing reports; Columns passes
	// the best of its seeds and roundings, all found before the limit) and
	// the best bound.
	progress := func(incumbent, lb float64) {
		if clock.ended() {
			return // the round a limit cut is not on the trajectory
		}
		cp.bound = max(cp.bound, lb)
		if set.Progress != nil {
			best := min(cp.makespan, incumbent)
			set.Progress(best, min(cp.bound, best))
		}
	}
	if sh := set.shared; levelWorth(sh.solver().n) {
		// A stage of its own, before the first run: of fixed work, so every
		// limit that lets it finish gets the same bound.
		if b, duals, ok := levelBound(sh.solver(), cmp.Or(set.workers, pricingWorkers()), clock.tick); ok {
			sh.level, sh.levelDuals = b, duals
			progress(cp.makespan, b)
		}
	}
	tol := DefaultTolerance
	for i := 0; !clock.ended(); i++ {
		cp.started++
		work := int64(columnsFirstWork) << min(i, 40)
		base := clock.used.Load()
		var hit [3]bool
		// A run goes on from the last whole run's columns, so with its LP
		// rather than pricing it all again (at 200 jobs on 50 hosts the LP
		// takes hundreds of rounds), its pricing state (pricingState: grid
		// and smoothing centre) and its integer search (improver). Only
		// whole runs are followed, which keeps the course the same whatever
		// the limit: the loop ends after a cut run, whose improver changed.
		var columns []model.Phase
		var basis []int
		var lpValue float64
		var pricing *pricingState
		var im *improver
		if cp.last != nil {
			columns, basis, lpValue = cp.last.phases, cp.last.basis, cp.last.basisValue
			pricing, im = &cp.last.pricing, cp.last.improver
		}
		integer := integerShare(len(p.Jobs), work)
		res, err := Columns(p, append(slices.Clone(seeds), cp.best), ColumnsOptions{Tolerance: tol,
			Stop: clock.stage(base+work, &hit[0]), BoundStop: clock.stage(base+work*9/8, &hit[1]),
			BranchStop: clock.stage(base+work*9/8+integer, &hit[2]), Progress: progress, shared: set.shared,
			columns: columns, basis: basis, lpValue: lpValue, pricing: pricing, improver: im, workers: set.workers, ended: clock.ended, integerWork: integer})
		if err != nil {
			return nil, err
		}
		if clock.ended() {
			if set.interrupted() {
				cp.take(p, &res) // a signal asks for the best plan, not a monotone one
			} else {
				// Found before the limit by this run's roundings, final
				// bound round and integer search, which a longer limit
				// runs the same way, its plan never longer and its bound
				// never lower.
				cp.bound = max(cp.bound, res.uncutBound)
				if u := res.uncut; u.Phases != nil {
					if ms := p.Makespan(u); ms < cp.makespan {
						cp.best, cp.makespan, cp.fromCut = u, ms, true
					}
				}
			}
			break
		}
		cp.runs++
		cp.last, cp.tolerance = &res, tol
		cp.take(p, &res)
		if res.Ended == EndedTolerance {
			tol = max(minTolerance, tol/2)
		}
		if hit == [3]bool{} {
			// It ended by itself: another run would find the same plan,
			// and prove at most a bound nearer the LP by less than the
			// tolerance this run met.
			break
		}
	}
	if sh := set.shared; sh.hasAreaDual {
		// Complete, hence on the trajectory of any longer limit too, even
		// if the run that computed it was then cut before reporting it.
		cp.bound = max(cp.bound, sh.areaDual)
	}
	cp.bound = max(cp.bound, set.shared.level)
	cp.bound = min(cp.bound, cp.makespan)
	return cp, nil
}

// integerShare is the work units the integer search of a run of m jobs
// whose pricing may spend work gets: half as much below integerJobs jobs,
// twice as much from them. There the dive is the plain rounding (past
// largeDive jobs), and local improvement (improve) makes the plan, at a
// few milliseconds a unit: on 1,000 jobs on 200 hosts at 60 s the fourth
// run's rounding is 12,944 s on seed 1, which improve shortens to
// 12,800 s in half the pricing's units and to 12,611 s in 6 s unhindered.
// Seeds 1–5, Solve called one after another, median (worst) plan ÷ bound:
//
//	jobs, hosts, limit   half             once             twice            thrice
//	1,000, 200, 60 s     1.1141 (1.1783)  1.1052 (1.1280)  1.0868 (1.1383)  1.1372 (1.1561)
//	1,000, 200, 45 s                                       1.1056 (1.1411)
//	1,000, 50, 60 s      1.1989 (1.2363)                   1.1834 (1.2134)
//	600, 50, 35 s        1.1406 (1.1714)                   1.1545 (1.1738)
//	600, 50, 28 s        1.1533 (1.1835)                   1.1577 (1.1763)
//
// (thrice: the second and third runs' improve delayed the fourth run's
// pricing past the limit). Twice is the best median at 1,000 jobs, not
// always the best worst, and worse at 600, so jobs between keep half.
// On an idle machine, `packer plan -w random-m1000-seedS --hosts 200` at
// 60 s, seeds 1–5, median (worst), before improve went on across runs
// (improver) and took moves first (movesFirst): 1.0836 (1.1260) at 2,
// 1.0878 (1.1352) at 4, 1.0877 (1.1355) at 6 and 1.0884 (1.1307) at 10
// times the units. More than twice took seed 5 from 1.126 to 1.088 (its
// improve had not converged) but seed 2 from 1.084 to 1.131–1.135: its
// plan at twice came from the fourth run's rounding of a better LP, a run
// the larger share leaves unfinished at 60 s. With both, twice gives
// 1.0824 (1.0963), seed 5 1.091.
func integerShare(m int, work int64) int64 {
	if m >= integerJobs {
		return 2 * work
	}
	return work / 2
}

// integerJobs is the fewest jobs whose runs give the integer search twice
// their pricing's units (integerShare).
const integerJobs = 1000

// minTolerance is the least tolerance a run prices to. A run that ends
// with its bound within the tolerance of its LP leaves the next run, which
// starts from that LP, half the tolerance: once a run has got there, the
// LP moves little, a run's pricing costs a few rounds, and each further
// run proves a bound nearer the LP, so the gap shows how far the plan is
// rather than the bound's slack. The first runs keep DefaultTolerance,
// which gives their integer search the time a tighter one would spend
// pricing (one that started at a fifth of it gave four of five 200-job
// plans on 9 hosts longer at the default limit).
const minTolerance = DefaultTolerance / 10

// take keeps res's plan if it is shorter, and its bound if it is higher.
func (cp *checkpoints) take(p *model.Problem, res *ColumnsResult) {
	if ms := p.Makespan(res.Schedule); ms < cp.makespan {
		cp.best, cp.makespan = res.Schedule, ms
	}
	cp.bound = max(cp.bound, res.LowerBound)
}

// weakNote is what the note adds where the gap is the bound's as much as
// the plan's (weakGap).
const weakNote = "; the LP had not converged, so the gap measures the bound as much as the plan, and a longer limit tightens it"

// levelNote names the level bound (levels.go) where it is the best.
const levelNote = "the level bound, which prices phases of many jobs with fractions of jobs and does not change with the limit: the LP's bound did not pass it, so the gap may be the bound's as much as the plan's"

// note is column generation's note: the last whole run's state, the
// bound and where it comes from, and the plan it started from.
func (cp *checkpoints) note(set *Settings, swarmed bool) string {
	from := fmt.Sprintf("the best plan it started from (pair plan%s): %s", map[bool]string{true: " and swarm"}[swarmed], model.FormatSeconds(cp.startMakespan))
	source, level := "Farley's bound on the LP duals", false
	switch sh := set.shared; {
	case cp.bound <= sh.bound():
		source = "the area and longest-job bound: the LP's did not pass it"
	case sh.level > 0 && cp.bound == min(sh.level, cp.makespan):
		source, level = levelNote, true
	case sh.hasAreaDual && cp.bound == min(sh.areaDual, cp.makespan):
		source = "Farley's bound on duals that charge each job its fewest VM-seconds: the LP's did not pass it"
	}
	// weak: the gap is the LP's bound's as much as the plan's, and a longer
	// limit tightens that bound; levelNote says what holds for the level
	// bound, which no limit changes.
	weak := cp.makespan > cp.bound*(1+weakGap) && !level
	if cp.started == 0 {
		// Where the swarm took the work limit, say about how much it
		// takes (an evaluation a unit, and a few units besides): a limit
		// picked as a round number can land there.
		swarm := ""
		if p := set.shared.p; swarmed && set.clock.reason.Load() == endedWork {
			swarm = fmt.Sprintf("; auto's swarm alone takes about %d work units, so only a --work-limit well above that leaves column generation any", AutoSwarmEvaluations(len(p.Jobs), p.Cluster, set.Swarm))
		}
		return fmt.Sprintf("column generation: the limit ended the search before it began: the plan is the best it would have started from, the bound %s (%s); %s%s",
			model.FormatSeconds(cp.bound), "the area and longest-job bound", from, swarm)
	}
	if cp.last == nil {
		if weak {
			source += weakNote
		}
		plan := "the best it started from"
		if cp.fromCut {
			plan = "the best that run found before the limit"
		}
		return fmt.Sprintf("column generation: the limit ended its first run: the plan is %s, the bound the best proved before the limit; proven lower bound %s (%s); %s",
			plan, model.FormatSeconds(cp.bound), source, from)
	}
	res := cp.last
	// A restricted LP cut short can lie above every plan: its value is
	// shown only once column generation has converged.
	state := res.Ended
	if state == EndedTolerance {
		state = fmt.Sprintf("the bound came within %.3g %% of the LP", 100*cp.tolerance)
	}
	if res.Converged {
		state += "; LP value " + model.FormatSeconds(res.LPValue)
	}
	if (res.Ended == EndedStopped || res.Ended == EndedRounds) && weak {
		// Farley's bound on duals far from the LP's optimum can lie well
		// under it: a planner must not read the gap as the plan's alone.
		// Only for a run cut short: one that ended at the tolerance has
		// its bound within it of the LP, and one that ended by itself
		// with relaxed pricing would not tighten with a longer limit.
		source += weakNote
	}
	if cp.fromCut {
		state += "; the plan is the best the next run found before the limit cut it"
	}
	return fmt.Sprintf("column generation: %d whole runs of doubling work, the last: %d phases priced in %d rounds, %s; proven lower bound %s (%s); %s",
		cp.runs, res.Columns, res.Rounds, state, model.FormatSeconds(cp.bound), source, from)
}
