package optimize

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// Method names one of the algorithms Solve runs. Its value is the name the
// command line and plan documents use.
type Method string

// The methods. MethodSwarm is called "pso" on the command line and in plans.
const (
	MethodAuto       Method = "auto"       // MethodExact up to Settings.ExactJobs jobs, else MethodColumns seeded with MethodSwarm where autoSwarm says so
	MethodExact      Method = "exact"      // Exact: the proven optimum, up to MaxExactJobs jobs
	MethodSwarm      Method = "pso"        // Swarm: particle swarm, any size, seeded
	MethodColumns    Method = "columns"    // Columns: column generation with a proven lower bound
	MethodPair       Method = "pair"       // PairSchedule: the packing paper's pair scheduler
	MethodSequential Method = "sequential" // model.Sequential: every job alone on all N VMs
)

// methods is the registry: every method, in the order help texts and error
// messages list them.
var methods = []Method{MethodAuto, MethodExact, MethodSwarm, MethodColumns, MethodPair, MethodSequential}

// Methods returns every method Solve accepts, in the order help texts list
// them.
func Methods() []Method { return append([]Method(nil), methods...) }

// MethodList is the methods' names as running text, in Methods' order: "auto,
// exact, pso, …, or sequential".
func MethodList() string {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = string(m)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ErrUnknownMethod is wrapped by ParseMethod's error for a name that is not a
// method.
var ErrUnknownMethod = errors.New("unknown algorithm")

// ParseMethod returns the method called name, or an error wrapping
// ErrUnknownMethod that lists the methods.
func ParseMethod(name string) (Method, error) {
	for _, m := range methods {
		if string(m) == name {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w %q (want %s)", ErrUnknownMethod, name, MethodList())
}

// Settings tunes Solve. The zero value (and a nil *Settings) is valid: pso's
// default swarm, auto's default limit, phases in Smith's order.
type Settings struct {
	// Swarm configures the particle swarm for MethodSwarm (and MethodAuto when
	// it runs one: see autoSwarm; Iterations or Initial points make it). nil
	// means pso's defaults: 1500 particles, 200 iterations, seed 0, but
	// auto's swarm, without Iterations, runs a fixed budget of evaluations
	// (swarmIterations). Its Initial points come after the pair plan's.
	Swarm *pso.Settings
	// ExactJobs is the most jobs for which MethodAuto picks the exact solver
	// and for which a swarm's plan is judged against the exact optimum rather
	// than LowerBound. 0 means AutoExactJobs; at most MaxExactJobs.
	ExactJobs int
	// KeepOrder keeps the phases in the order the solver returns them. By
	// default exact, pso, columns and auto order them by Smith's rule
	// (OrderForCompletion), which lowers the mean job completion time and
	// leaves the makespan unchanged.
	KeepOrder bool
	// TimeLimit bounds pso and columns (so auto past ExactJobs), on the wall
	// clock: when it passes they return the best plan and the best bound of
	// the search so far (worklimit.go says what "so far" keeps). It cuts
	// the search at searchShare of the time the searches share, leaving the
	// rest to order and place the plan (at 1,000 jobs on 200 hosts, with the
	// plan document written, about 1.5 s). It never changes the search's
	// course, only where it ends: a longer limit never gives a worse plan or
	// a lower bound. 0 means no limit. Solve reads the clock (Clock) only
	// to keep it.
	TimeLimit time.Duration
	// WorkLimit bounds the same searches in work units (worklimit.go),
	// which are the same on every machine, load and core count: the plan
	// under a WorkLimit alone is the same every time. With TimeLimit too,
	// the first one reached ends the search. 0 means no limit.
	WorkLimit int64
	// Reserve is kept from TimeLimit for the caller's work after Solve
	// (writing a plan of 5,000 jobs on 200 hosts takes seconds): the
	// searches share TimeLimit − Reserve, and Reserve counts at most half
	// of TimeLimit. PlanWriteReserve estimates it for a plan document.
	Reserve time.Duration
	// Clock, if not nil, replaces the wall clock (time.Now) for TimeLimit:
	// tests give one that jumps. It must be safe for concurrent use: the
	// swarm's goroutines read it.
	Clock func() time.Time
	// Interrupt, if not nil, ends the search as soon as it is closed (a
	// signal): every algorithm that searches asks it where it asks the time
	// limit, and Solve returns the best plan and bound so far with
	// Result.Interrupted set and a note saying so. It must be safe to read
	// from several goroutines (a channel is).
	Interrupt <-chan struct{}
	// MaxMemory, if not 0, is the most bytes Solve may plan to hold: a
	// problem whose tables are estimated (Estimate) to need more is refused,
	// before they are allocated, with a *MemoryError naming the limit.
	// MemorySource says what set it ("half of ulimit -v (8.0 GB)"); the
	// error repeats it.
	MaxMemory    int64
	MemorySource string
	// shared is the phase solver and bound the solvers of one Solve share;
	// clock counts their work and ends them at the limits.
	shared *sharedTables
	clock  *workClock
	// workers, when not 0, replaces the goroutines column generation
	// prices, pivots and improves plans on (tests: the plan is the same on
	// any number).
	workers int
	// Progress, if not nil, is called by column generation after every
	// pricing round with the best plan's makespan and the best proven lower
	// bound so far (seconds).
	Progress func(incumbent, bound float64)
	// WithinMeasured keeps every job with a measured range (model.Job.Range)
	// on VM counts inside it, in every role; jobs without a range are free.
	// The optimum or lower bound Solve records is then that of the
	// restricted problem, and a note says so. A job whose range starts above
	// the cluster's primary VMs is an error wrapping ErrRangeDoesNotFit.
	WithinMeasured bool
}

// DefaultTimeLimit is the time limit the command line gives a problem of
// the given number of jobs unless told otherwise: 10 s up to 200 jobs (a
// planner waits for those at a prompt, and more buys little on an idle
// 2-core machine: 200 jobs' median plan ÷ bound, seeds 1–5, on the packing
// paper's 9 hosts 1.0169 at 10 s, 1.0163 at 15 s and at 60 s; on 50 hosts
// 1.0164, 1.0112 and 1.0100, which docs/planning.md tells planners), then
// rising linearly to 60 s at 1,000 jobs and beyond, where each pricing
// round takes seconds and the fourth run's integer search begins after at
// most about 8,400 units: 35–60 s on a 2-core machine, which does about
// 230 units a second there idle and 140 under load (integerShare has what
// 45 and 60 s give 1,000 jobs on 200 hosts).
func DefaultTimeLimit(jobs int) time.Duration {
	const lo, hi, from, to = 10 * time.Second, 60 * time.Second, 200, 1000
	switch {
	case jobs <= from:
		return lo
	case jobs >= to:
		return hi
	}
	return lo + (hi-lo)*time.Duration(jobs-from)/(to-from)
}

// weakGap is the gap past which the note of a column generation cut short
// says that the gap is the bound's as much as the plan's.
const weakGap = 0.05

// searchShare is the share of Settings.TimeLimit after which the searches
// stop: the rest is for Solve's own work after them, so that a plan is out
// within the limit.
const searchShare = 0.95

// FormatProgress is the progress line for Settings.Progress's arguments:
// "columns: plan 1234.5 s (20m34s), bound 1200 s (20m0s), gap 2.88 %".
func FormatProgress(incumbent, bound float64) string {
	return fmt.Sprintf("columns: plan %s, bound %s, gap %.2f %%", model.FormatSeconds(incumbent), model.FormatSeconds(bound), 100*(incumbent/bound-1))
}

// FormatSwarmProgress is the progress line for a swarm's pso.Progress:
// "pso: iteration 12/200, best makespan 1234.5 s (20m34s)".
func FormatSwarmProgress(pr pso.Progress) string {
	return fmt.Sprintf("pso: iteration %d/%d, best makespan %s", pr.Iteration, pr.Iterations, model.FormatSeconds(pr.Best))
}

// searchLimit is the time the searches share: TimeLimit less Reserve, at
// least half of it.
func (s *Settings) searchLimit() time.Duration {
	return s.TimeLimit - min(max(s.Reserve, 0), s.TimeLimit/2)
}

// PlanWriteReserve estimates, for Settings.Reserve, the time ordering,
// placing, checking and writing the plan of p take after the search: about
// 2 µs for each VM of a plan of M/2 phases on every VM (measured at 5,000
// jobs on 200 hosts: 1.5 million VMs, 3 s of CPU between the search's end
// and the document written).
func PlanWriteReserve(p *model.Problem) time.Duration {
	c := p.Cluster
	vms := float64(len(p.Jobs)) / 2 * float64(c.PrimaryVMs()+c.ExtrasFor(c.PrimaryVMs()))
	return time.Duration(vms * 2 * float64(time.Microsecond))
}

// now is Clock's time, else the wall clock's.
func (s *Settings) now() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

// interrupted reports whether Interrupt is closed.
func (s *Settings) interrupted() bool {
	if s.Interrupt == nil {
		return false
	}
	select {
	case <-s.Interrupt:
		return true
	default:
		return false
	}
}

// timeLimitNote says that a plan depends on how fast the machine was: a
// search the time limit cut short stops wherever it had got to.
func timeLimitNote(d time.Duration) string {
	return fmt.Sprintf("the time limit (%v) ended the search: this plan depends on the machine's speed and load, not only on the seed; --time-limit 0 searches to the end and gives the same plan for the same seed every time", d)
}

// interruptedNote is the note of a search Settings.Interrupt ended.
const interruptedNote = "interrupted: the search was stopped (a signal) before it ended; this is the best plan found so far, checked like any other, and its bound is the best proven so far"

// Validate reports a field of s that Solve refuses, as a *SettingError; a
// nil s is the zero Settings. Solve makes the same check, but a caller that
// writes files or works long before it calls Validate up front.
func (s *Settings) Validate() error {
	if s == nil {
		return nil
	}
	t := *s
	return t.validate()
}

// validate fills defaults and rejects nonsense with a *SettingError.
func (s *Settings) validate() error {
	switch {
	case s.ExactJobs < 0 || s.ExactJobs > MaxExactJobs:
		return &SettingError{Field: "ExactJobs", Value: s.ExactJobs, Rule: fmt.Sprintf("must be between 1 and %d (0: %d)", MaxExactJobs, AutoExactJobs)}
	case s.TimeLimit < 0:
		return &SettingError{Field: "TimeLimit", Value: s.TimeLimit, Rule: "must not be negative (0: no limit)"}
	case s.WorkLimit < 0:
		return &SettingError{Field: "WorkLimit", Value: s.WorkLimit, Rule: "must not be negative (0: no limit)"}
	case s.MaxMemory < 0:
		return &SettingError{Field: "MaxMemory", Value: s.MaxMemory, Rule: "must not be negative (0: no limit)"}
	case s.ExactJobs == 0:
		s.ExactJobs = AutoExactJobs
	}
	return nil
}

// Result is Solve's answer: the solution a plan document records, and how it
// was found.
type Result struct {
	// Solution is the normalized schedule, its placement, the algorithm that
	// made it, notes for readers, the optimum or a lower bound, and the
	// swarm's seed, particles and iterations when a swarm ran.
	model.Solution
	// Method is the method that ran: MethodAuto resolved to the one it chose.
	Method Method
	// Swarm is the particle swarm's own report (settings used, evaluations,
	// last improvement) when a swarm ran, else nil; PairMakespan is then the
	// makespan of the pair plan it started from.
	Swarm        *pso.Result
	PairMakespan float64
	// Interrupted is true when Settings.Interrupt ended the search: the
	// plan is the best found so far, and a note says so.
	Interrupted bool
	// Work is the work units the swarm or column generation spent before
	// the search ended: given as WorkLimit, it gives the same plan again on
	// any machine (unless Interrupted; 0 when a time limit ended the search
	// before any work, and 0 as WorkLimit means none). 0 for pair,
	// sequential and exact, auto's choice up to Settings.ExactJobs jobs
	// included.
	Work int64
}

// Solve plans problem p with one method and returns the placed schedule with
// what a plan document records about it; plan.New turns Result.Solution into
// the document. It writes once the rules the command line's plan and compare
// share:
//
//   - auto runs exact up to Settings.ExactJobs jobs, else column generation
//     seeded with the pair plan and, where autoSwarm says so, a swarm of a
//     fixed number of evaluations (so never worse than that swarm), and
//     says so in a note;
//   - pso, columns and auto follow one course whatever the limits, which
//     only cut it (worklimit.go): a longer TimeLimit or WorkLimit never
//     gives a worse plan or a lower bound, and a note says which limit
//     ended the search (under WorkLimit alone, nothing in the notes depends
//     on time);
//   - exact records the proven optimum; pso records the exact optimum up to
//     Settings.ExactJobs jobs, else LowerBound; pair and sequential record
//     neither;
//   - exact, pso and columns (so auto) order the phases by Smith's rule unless
//     Settings.KeepOrder, and note the mean completion before and after.
//
// Errors: ErrTooManyJobs (wrapped) for exact past MaxExactJobs, and the
// solvers' own.
func Solve(p *model.Problem, method Method, settings *Settings) (*Result, error) {
	var set Settings
	if settings != nil {
		set = *settings
	}
	if err := set.validate(); err != nil {
		return nil, err
	}
	// Whether auto seeds column generation with a swarm, decided once:
	// the size and memory checks and the search must agree.
	autoSwarmed := method == MethodAuto && autoSwarm(len(p.Jobs), p.Cluster, set.Swarm)
	swarmSet := set.Swarm
	if method != MethodSwarm && !autoSwarmed {
		swarmSet = &pso.Settings{Particles: 1} // no swarm runs: none to size
	}
	if err := CheckSize(p, swarmSet); err != nil {
		return nil, err
	}
	if err := checkMemory(p, method, swarmSet, &set); err != nil {
		return nil, err
	}
	var fallback model.Schedule
	if set.WithinMeasured {
		var err error
		if p, fallback, err = withinMeasured(p); err != nil {
			return nil, err
		}
	}
	set.shared = &sharedTables{p: p}
	set.clock = newWorkClock(&set, set.now())
	var sol model.Solution // notes, bounds and swarm settings until placed
	auto := method == MethodAuto
	if auto {
		method = MethodColumns
		if len(p.Jobs) <= set.ExactJobs {
			method = MethodExact
		}
		sol.Notes = append(sol.Notes, fmt.Sprintf("auto chose %s: %d jobs (exact up to %d)", method, len(p.Jobs), set.ExactJobs))
	}
	r := &Result{Method: method}
	var s model.Schedule
	var err error
	switch method {
	case MethodPair:
		s, err = pairNotes(p, &sol)
	case MethodSequential:
		s = model.Sequential(p)
	case MethodExact:
		s, err = exactOptimum(p, &sol)
	case MethodSwarm:
		s, err = r.swarm(p, &set, &sol, nil)
	case MethodColumns:
		s, err = r.columns(p, &set, &sol, auto, autoSwarmed)
	default:
		_, err = ParseMethod(string(method))
		err = fmt.Errorf("optimize: %w", err)
	}
	if err != nil {
		return nil, err
	}
	if method == MethodSwarm || method == MethodColumns {
		if r.Interrupted = set.interrupted(); r.Interrupted {
			sol.Notes = append(sol.Notes, interruptedNote)
		} else {
			sol.Notes = append(sol.Notes, set.clock.note())
		}
		r.Work = set.clock.spent()
	}
	if method == MethodSwarm || method == MethodColumns {
		// These plan on the phase solver's envelopes (zigzag.go); the
		// exact solver mends its own plans, and pair and sequential read
		// the runtimes as they are.
		if ps := set.shared.solver(); len(ps.zigzag) > 0 {
			s = mendSchedule(p, ps, s)
			sol.Notes = append(sol.Notes, zigzagNote(p, ps.zigzag))
		}
	}
	if set.WithinMeasured {
		if s, err = keepMeasured(p, s, fallback, &sol); err != nil {
			return nil, err
		}
	}
	if (method == MethodExact || method == MethodSwarm || method == MethodColumns) && !set.KeepOrder {
		before := p.MeanCompletion(s)
		s = OrderForCompletion(p, s)
		sol.Notes = append(sol.Notes, fmt.Sprintf("phases ordered shortest duration per job first (Smith's rule): mean job completion %s, %s in the solver's order; the makespan is the same",
			model.FormatSeconds(p.MeanCompletion(s)), model.FormatSeconds(before)))
	}
	placed, err := NewSolution(p, s, string(method))
	if err != nil {
		return nil, err
	}
	sol.Algorithm, sol.Schedule, sol.Placement = placed.Algorithm, placed.Schedule, placed.Placement
	r.Solution = sol
	return r, nil
}

// keepMeasured returns s, or the fallback schedule if s is no shorter (then
// s holds a job outside its range: withinMeasured), and notes that the plan
// and its bound are for the restricted problem.
func keepMeasured(p *model.Problem, s, fallback model.Schedule, sol *model.Solution) (model.Schedule, error) {
	if p.Makespan(s) > p.Makespan(fallback) {
		s = fallback
		sol.Notes = append(sol.Notes, fmt.Sprintf("within measured ranges: the solver's plan was no shorter than every job alone on the largest measured VM count the cluster has (%s), so this plan is that one", model.FormatSeconds(p.Makespan(fallback))))
	}
	sol.Notes = append(sol.Notes, measuredNote)
	return s, inMeasuredRanges(p, s)
}

// pairNotes runs the pair scheduler and notes whether its pairing is exact.
func pairNotes(p *model.Problem, sol *model.Solution) (model.Schedule, error) {
	res, err := PairSchedule(p)
	if err != nil {
		return model.Schedule{}, err
	}
	switch {
	case res.Sparse:
		sol.Notes = append(sol.Notes, fmt.Sprintf("pairing heuristic: %d jobs are too many to price every pair; each job was priced with its %d nearest partners by runtime (and I/O-bound with CPU-bound jobs), then matched greedily by saving", len(p.Jobs), 2*pairNeighbours))
	case res.Exact:
		sol.Notes = append(sol.Notes, fmt.Sprintf("pairing exact: the best of all pairings of the %d jobs (dynamic programming over subsets)", len(p.Jobs)))
	default:
		sol.Notes = append(sol.Notes, fmt.Sprintf("pairing heuristic: %d jobs exceed the exact limit of %d; greedy matching improved by pair swaps", len(p.Jobs), MaxExactPairJobs))
	}
	return res.Schedule, nil
}

// exactOptimum runs the exact solver and records the optimum it proves.
func exactOptimum(p *model.Problem, sol *model.Solution) (model.Schedule, error) {
	res, err := Exact(p)
	if err != nil {
		return model.Schedule{}, err
	}
	if len(res.Zigzag) > 0 {
		sol.Notes = append(sol.Notes, zigzagNote(p, res.Zigzag))
	}
	if res.Makespan > res.Bound {
		sol.LowerBound = &res.Bound
		sol.Notes = append(sol.Notes, fmt.Sprintf("exact solver over all %d-job partitions into phases, roles and VM counts, on runtimes that never overstate the measured ones: the bound is that search's optimum; the phases it chose, re-solved on the measured times, last longer, so this plan is not proven optimal", len(p.Jobs)))
		return res.Schedule, nil
	}
	sol.Optimum = &res.Makespan
	sol.Notes = append(sol.Notes, fmt.Sprintf("optimal: exact solver over all %d-job partitions into phases, roles and VM counts", len(p.Jobs)))
	return res.Schedule, nil
}

// columns runs column generation seeded with the pair plan, and with the
// swarm's plan too if swarmed (auto, where autoSwarm says so: auto is then
// never worse than the swarm), in the checkpoints worklimit.go describes,
// and records the bound it proves.
func (r *Result) columns(p *model.Problem, set *Settings, sol *model.Solution, auto, swarmed bool) (model.Schedule, error) {
	pr, err := PairSchedule(p)
	if err != nil {
		return model.Schedule{}, err
	}
	seeds := []model.Schedule{pr.Schedule}
	if swarmed {
		sw, err := r.swarm(p, set, sol, &pr)
		if err != nil {
			return model.Schedule{}, err
		}
		seeds = append(seeds, sw)
		sol.LowerBound = nil
	} else if auto {
		sol.Notes = append(sol.Notes, fmt.Sprintf("no particle swarm: past %d jobs on %d primary VMs or more, auto's swarm would be a few iterations that sample plans rather than search, and plans came out shorter without it (--iterations N makes auto run one; -a pso runs the swarm alone)",
			autoSwarmJobs, autoSwarmVMs))
	}
	cp, err := runCheckpoints(p, seeds, set)
	if err != nil {
		return model.Schedule{}, err
	}
	lb := cp.bound
	sol.LowerBound = &lb
	sol.Notes = append(sol.Notes, cp.note(set, swarmed))
	return cp.best, nil
}

// autoSwarm reports whether auto seeds column generation with a particle
// swarm on jobs jobs on cluster c, given the swarm settings sw (nil: the
// defaults): where sw asks for one (iterations or initial points given), and
// otherwise up to autoSwarmJobs jobs or below autoSwarmVMs primary VMs. Past
// 100 jobs the swarm's fixed budget (swarmIterations) is under 10 iterations
// of the default 1,500 particles, a sample of plans, far longer than column
// generation's (random-mM-seed1, the swarm's plan ÷ auto's: 1.67 at 200 jobs
// on 50 hosts, 2.6 at 1,000 on 200), and where phases hold many jobs seeding
// with one lengthened the plans at the default limit: 200 jobs on 50 hosts
// (100 primary VMs), seeds 1–5, plan ÷ bound 1.105 on average with it and
// 1.082 without, 1,000 on 200 hosts 1.479 and 1.426 (300 on 50, 150 on 30,
// 200 on 20 hosts: shorter without it too, on average). On 9 hosts (18
// primary VMs) the sample still helped (200 jobs: 1.032 with it, 1.038
// without), and at 100 jobs (10 iterations) the two were even.
func autoSwarm(jobs int, c model.Cluster, sw *pso.Settings) bool {
	if sw != nil && (sw.Iterations > 0 || len(sw.Initial) > 0) {
		return true
	}
	return jobs <= autoSwarmJobs || c.PrimaryVMs() < autoSwarmVMs
}

// AutoSwarmEvaluations is how many particle evaluations auto's swarm
// makes when auto plans jobs jobs past Settings.ExactJobs (column
// generation) on cluster c with swarm settings sw (nil: the defaults):
// particles × (iterations + 1), the iterations sw's or auto's fixed budget
// (swarmIterations), and 0 where auto runs no swarm (autoSwarm). Sweeps
// count it in a plan point's time.
func AutoSwarmEvaluations(jobs int, c model.Cluster, sw *pso.Settings) int {
	if !autoSwarm(jobs, c, sw) {
		return 0
	}
	set := autoSwarmSettings(jobs, sw)
	return cmp.Or(set.Particles, 1500) * (set.Iterations + 1)
}

// autoSwarmSettings are sw (nil: the defaults) as auto's swarm on jobs jobs
// runs them: swarmIterations unless sw gives iterations.
func autoSwarmSettings(jobs int, sw *pso.Settings) pso.Settings {
	var set pso.Settings
	if sw != nil {
		set = *sw
	}
	if set.Iterations == 0 {
		set.Iterations = swarmIterations(cmp.Or(set.Particles, 1500), jobs)
	}
	return set
}

// autoSwarmJobs and autoSwarmVMs are autoSwarm's limits: the most jobs
// for which the default 1,500 particles get 10 iterations of the swarm's
// budget, and the fewest primary VMs (20 hosts of 2 disks) where a swarm
// of fewer was measured to lengthen plans.
const (
	autoSwarmJobs = swarmJobEvaluations / (1500 * 10)
	autoSwarmVMs  = 40
)

// swarm runs the particle swarm, records its settings, and judges its plan
// against the exact optimum when the problem is small enough, else against
// LowerBound. pair, if not nil, is the pair plan, already made: auto's
// swarm, which gets swarmIterations unless the settings give iterations.
func (r *Result) swarm(p *model.Problem, set *Settings, sol *model.Solution, pair *PairResult) (model.Schedule, error) {
	var ps pso.Settings
	if set.Swarm != nil {
		ps = *set.Swarm
	}
	if pair != nil {
		ps = autoSwarmSettings(len(p.Jobs), set.Swarm)
	}
	ps.Stop = set.clock.tick
	var res SwarmResult
	var err error
	if pair != nil {
		res, err = swarmFrom(set.shared.solver(), &ps, *pair)
	} else if pr, perr := PairSchedule(p); perr != nil {
		err = perr
	} else {
		res, err = swarmFrom(set.shared.solver(), &ps, pr)
	}
	if err != nil {
		return model.Schedule{}, err
	}
	run := res.Run
	r.Swarm, r.PairMakespan = run, res.PairMakespan
	seed := run.Settings.Seed
	sol.Seed, sol.Particles, sol.Iterations = &seed, run.Settings.Particles, run.Settings.Iterations
	sol.Notes = append(sol.Notes, fmt.Sprintf("particle swarm: %s × %s (%s ran), seed %d, %s, last improvement at iteration %d, makespan %s; the pair plan it started from: %s",
		plural(run.Settings.Particles, "particle"), plural(run.Settings.Iterations, "iteration"), plural(run.Iterations, "iteration"), run.Settings.Seed,
		plural(run.Evaluations, "evaluation"), run.Improved, model.FormatSeconds(res.Makespan), model.FormatSeconds(res.PairMakespan)))
	if len(p.Jobs) <= set.ExactJobs {
		ex, err := Exact(p)
		if err != nil {
			return model.Schedule{}, err
		}
		if ex.Makespan > ex.Bound {
			sol.LowerBound = &ex.Bound
		} else {
			sol.Optimum = &ex.Makespan
		}
	} else {
		lb := set.shared.bound()
		sol.LowerBound = &lb
	}
	return res.Schedule, nil
}

// NewSolution checks a schedule, normalizes it (model.Normalize, in place)
// and places every phase (Place): the solution a plan document records
// (plan.New), without notes or bounds. Solve ends with it; a hand-made
// schedule goes through it alone.
func NewSolution(p *model.Problem, s model.Schedule, algorithm string) (model.Solution, error) {
	if err := p.Check(s); err != nil {
		return model.Solution{}, fmt.Errorf("optimize: %s: %w", algorithm, err)
	}
	s = model.Normalize(s)
	sol := model.Solution{Algorithm: algorithm, Schedule: s, Placement: make([][]model.HostPlacement, len(s.Phases))}
	for i, ph := range s.Phases {
		hosts, err := Place(p, ph)
		if err != nil {
			return model.Solution{}, err
		}
		sol.Placement[i] = hosts
	}
	return sol, nil
}

// plural is "1 iteration", "2 iterations".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
