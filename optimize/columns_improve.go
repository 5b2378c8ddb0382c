package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/packer-sched/packer/model"
)

// Local improvement of a finished plan. The dive and the branch-and-bound
// choose among whole columns, so a plan they return can still lose time
// where one job would sit better in another phase, or two jobs of two
// phases would sit better swapped: the best duration of a phase changes
// with every job that enters or leaves it. improve tries every move of one
// job to another phase (a phase left empty disappears, so this also merges
// phases) and every swap of two jobs between phases, taking each one that
// shortens the plan, until none does or stop says so. A job that enters a
// phase tries each role its class allows; a phase whose hosts or extras
// lose their partners falls back to all primary. Every phase is priced by
// phaseSolver.best, so the plan stays one the model accepts.

// looseJob is one job of a phase being improved: its job and role.
type looseJob struct{ job, role int }

// loosePhase is a phase as improve edits it: its jobs with roles, its
// duration, and per job the duration of the phase without it (a job whose
// removal does not shorten the phase is not worth moving, and a swap helps
// only if one of its two jobs is such a critical one).
//
// id names this content: newLoosePhase gives every phase it builds a new
// one, and nothing edits a phase in place, so two phases with one id hold
// the same jobs (localSearch's cleanPairs rest on it).
type loosePhase struct {
	jobs    []looseJob
	T       float64
	without []float64
	id      uint64
	sums    *[memoSlots]*sumsMemo // per goroutine of scanShared (memo)
}

// loosePhaseIDs numbers the phases newLoosePhase builds. Only equality of
// ids is ever asked, so neither the numbers a search draws nor other
// searches drawing from the same counter change what it finds.
var loosePhaseIDs atomic.Uint64

// newLoosePhase prices jobs (price) and each job's absence.
func (ps *phaseSolver) newLoosePhase(jobs []looseJob) loosePhase {
	jobs, T := ps.price(jobs, math.Inf(1))
	lp := loosePhase{jobs: jobs, T: T, without: make([]float64, len(jobs)), id: loosePhaseIDs.Add(1), sums: new([memoSlots]*sumsMemo)}
	for i := range jobs {
		_, lp.without[i] = ps.price(slices.Delete(slices.Clone(jobs), i, i+1), T)
	}
	return lp
}

// improve returns s improved by moves and swaps, then by large-neighbourhood
// steps (lns), and again by moves and swaps while those gain (the same
// schedule when nothing helps).
func (ps *phaseSolver) improve(s model.Schedule, workers int, stop func() bool) model.Schedule {
	return ps.improveWith(s, cleanPairs{}, workers, stop)
}

// improveWith is improve with localSearch's record of clean pairs, nil to
// look at every pair every pass (the plain search the tests compare with).
func (ps *phaseSolver) improveWith(s model.Schedule, clean cleanPairs, workers int, stop func() bool) model.Schedule {
	return ps.newImprover(s, clean).run(ps, workers, stop)
}

// improver is improve's search between two calls: the phases, the clean
// pairs, lns's generator, its record of whole phases and its tables. A
// call that stop cut leaves it where the search stood, so a later call on
// the plan it returned goes on from there instead of starting over: at
// 1,000 jobs on 200 hosts, where a run's roundings stop beating the best
// plan after its first runs, each run's integer search would otherwise
// look again at the 35,000 pairs of phases the last one found clean and
// re-try the neighbourhoods lns has already ruled out.
type improver struct {
	phases []loosePhase
	clean  cleanPairs
	rng    *rand.Rand
	whole  map[string]float64
	sub    lnsSub
	key    string // scheduleKey of the plan the last run returned
}

// newImprover starts improve's search from s with clean (nil: none kept).
func (ps *phaseSolver) newImprover(s model.Schedule, clean cleanPairs) *improver {
	// One generator for every lns round: a round after a gain goes on
	// where the last one left off.
	return &improver{phases: ps.loosePhases(s), clean: clean, rng: newLNSRand(len(s.Phases)), whole: map[string]float64{}}
}

// run goes on with the search until it ends by itself or stop says so,
// and returns its plan.
func (im *improver) run(ps *phaseSolver, workers int, stop func() bool) model.Schedule {
	for !ps.localSearch(im.phases, im.clean, workers, stop) {
		im.phases = slices.DeleteFunc(im.phases, func(lp loosePhase) bool { return len(lp.jobs) == 0 })
		if !ps.lns(&im.phases, im.rng, im.whole, &im.sub, stop) {
			break
		}
	}
	s := ps.looseSchedule(im.phases)
	im.key = scheduleKey(s)
	return s
}

// holds reports whether s is the plan im's last run returned, in the
// jobs and roles of each phase, whatever their order (model.Normalize sorts
// them) and VM counts (improve chooses those itself from jobs and roles).
func (im *improver) holds(s model.Schedule) bool {
	return im != nil && im.key != "" && im.key == scheduleKey(s)
}

// scheduleKey names s's phases in order, each by its jobs and their roles
// in job order.
func scheduleKey(s model.Schedule) string {
	var b strings.Builder
	for _, ph := range s.Phases {
		jobs := make([]model.Assignment, len(ph.Jobs))
		for k, a := range ph.Jobs {
			jobs[k] = model.Assignment{Job: a.Job, Role: a.Role}
		}
		slices.SortFunc(jobs, func(x, y model.Assignment) int { return x.Job - y.Job })
		b.WriteString(phaseKey(model.Phase{Jobs: jobs}) + "|")
	}
	return b.String()
}

// loosePhases is s's phases as improve edits them.
func (ps *phaseSolver) loosePhases(s model.Schedule) []loosePhase {
	phases := make([]loosePhase, 0, len(s.Phases))
	for _, ph := range s.Phases {
		var jobs []looseJob
		for _, a := range ph.Jobs {
			jobs = append(jobs, looseJob{a.Job, slices.Index(roleOf[:], a.Role)})
		}
		phases = append(phases, ps.newLoosePhase(jobs))
	}
	return phases
}

// localSearch applies moves and swaps (moveOrSwap) until none helps or stop
// says so; it reports whether stop ended it. clean, if not nil, holds the
// ordered pairs of phases (by id) that moveOrSwap has found nothing for, and
// localSearch skips them and adds those it finds nothing for: moveOrSwap
// looks only at its two phases, so on the same two it finds nothing again.
// The plan is the same as with nil, in fewer pairs priced and fewer stop
// calls: after the first pass only the pairs a change touched are looked at
// again, and improve keeps clean across the rounds of lns between its calls
// (and an improver across column generation's runs).
func (ps *phaseSolver) localSearch(phases []loosePhase, clean cleanPairs, workers int, stop func() bool) bool {
	// Every pass that changes the plan shortens it, so the search ends; the
	// cap bounds it when nothing else stops it (passes measured: 4–11 at
	// M = 60–100).
	pairs, perAsk := 0, 1 // pairs looked at; stop is asked once per perAsk of them
	if ps.n > fineDiveVMs {
		perAsk = pairTick
	}
	for range maxImprovePasses {
		better := false
		clean.prune(phases)
		for a := range phases {
			for b := range phases {
				if a == b || len(phases[a].jobs) == 0 || len(phases[b].jobs) == 0 {
					continue
				}
				key := pairKey{phases[a].id, phases[b].id, a < b}
				if _, ok := clean[key]; ok {
					continue
				}
				if pairs++; stop != nil && pairs%perAsk == 0 && stop() {
					return true
				}
				changed, stopped := ps.moveOrSwap(phases, a, b, workers, stop)
				if stopped {
					return true
				}
				if !changed && clean != nil && key.a != 0 && key.b != 0 {
					clean[key] = struct{}{}
				}
				better = changed || better
			}
		}
		if !better {
			break
		}
	}
	return false
}

// cleanPairs is localSearch's record of the pairs of phases moveOrSwap
// found nothing for.
type cleanPairs map[pairKey]struct{}

// pairKey is what moveOrSwap looked at: phase a, whose jobs it moves, and
// phase b, which they enter, by id, and whether it tried swaps too (a's
// position precedes b's). Neither localSearch nor lns reorders the phases
// they keep, so for two ids the flag stays as it was; id 0 (a phase not
// built by newLoosePhase) is never recorded.
type pairKey struct {
	a, b  uint64
	swaps bool
}

// prune drops the pairs with a phase not in phases once they are more than
// a few times the pairs there are: each change leaves the pairs of the
// phases it replaced behind.
func (c cleanPairs) prune(phases []loosePhase) {
	if len(c) <= 4*len(phases)*len(phases) {
		return
	}
	live := make(map[uint64]bool, len(phases))
	for _, ph := range phases {
		live[ph.id] = true
	}
	for k := range c {
		if !live[k.a] || !live[k.b] {
			delete(c, k)
		}
	}
}

// maxImprovePasses caps improve's passes over all pairs of phases.
const maxImprovePasses = 50

// pairTick is how many pairs of phases localSearch looks at per question
// to stop, a work unit, beyond fineDiveVMs primary VMs (up to them, one a
// pair). A unit should stand for about as much time in improve as in
// pricing, where it costs more the larger the cluster, while most pairs of
// phases of a large plan take microseconds: at 1,000 jobs on 200 hosts a
// pass looks at 35,000 pairs, 21,000 of them between two phases of one
// job, and with one question a pair a unit of improve took 0.24 ms against
// about 12 ms for one of pricing, so a run's integer search, at half its
// pricing's units, gave improve well under a second. At 64 a unit there
// takes 4.9 ms (10 s of improve on one plan: 2,043 units). Measured with
// the integer search at half the pricing's units, seeds 1–5, median plan ÷
// bound, 64 a unit against one a pair: 1,000 jobs on 200 hosts at 45 s
// 1.1279 against 1.1366; at the default limit 200 jobs on 50 hosts
// 1.0202, 1.0202, 1.0202 and 1.0251 in four runs
// against 1.0225 and 1.0222 in two; but 200 jobs on 9 hosts, where a unit
// of pricing takes a third of one on 50, 1.0279, 1.0236, 1.0253 and 1.0239
// against 1.0176 and 1.0174, so small clusters keep one a pair. The
// changes priced in a pair of large phases are counted besides (swapTick).
const pairTick = 64

// moveOrSwap applies the best move of a job from phase a to phase b, or swap
// of a job of a with one of b, if it shortens the pair, and reports whether
// it did and whether stop cut it; where a and b offer movesFirst places or
// more (places), it applies the best move if one shortens the pair, and
// looks at swaps only if none does. It asks stop (if not nil) once every
// swapTick changes it prices, and leaves the phases as they were if stop
// says so: two phases of 80 jobs (1,000 jobs on 200 hosts) have 25,600
// swaps, each a binary search over the candidate durations, seconds of work
// that one check per pair would count as one unit and hide from the time
// limit. A pair with at least parallelSwaps places to look (places) is
// searched on up to workers goroutines, the others on one (scanShared),
// with the same result and the same questions to stop.
func (ps *phaseSolver) moveOrSwap(phases []loosePhase, a, b, workers int, stop func() bool) (changed, stopped bool) {
	swaps := a < b // swaps are tried once per pair of phases
	if n := places(phases[a], phases[b], swaps); swaps && n >= movesFirst {
		if changed, stopped := ps.applyBest(phases, a, b, false, workers, stop); changed || stopped {
			return changed, stopped
		}
	}
	return ps.applyBest(phases, a, b, swaps, workers, stop)
}

// movesFirst is the fewest places (places) of a pair of phases for which
// moveOrSwap takes the best move before it looks at swaps. A pass makes
// one change per pair, the best of all its places, and on two large
// phases the swaps outnumber the moves: 1,000 jobs on 200 hosts end with
// phases of 248 and 193 jobs, 248 moves against 248 × 193 swaps. Searching
// every swap for each move taken held improve back there: on seed 5 the
// first run's improve shortened the plan from 16,206.7 s to 15,722.3 s
// with swaps always, to 15,128.4 s moves first. Where no move gains, the
// moves are priced twice, once alone and once beside the swaps. Seeds 1–5
// of 1,000 jobs on 200 hosts at 60 s on an idle machine, with improve
// going on across runs (improver), median (worst) plan ÷ bound: 1.0835
// (1.1273) with swaps always, 1.0824 (1.0963) from 1,000 places, 1.0823
// (1.0960) from 5,000, 1.0926 (1.1037) from 1, where the swaps of small
// phases cost little and the best of them gained more than the first
// move. 1,000 and 5,000 are within noise of each other; the plans of 100
// and 200 jobs on 9 and 50 hosts in packer bench were as good or better.
const movesFirst = 1000

// applyBest applies the best change moveOrSwap looks for among a and b's
// moves, and with swaps their swaps too.
func (ps *phaseSolver) applyBest(phases []loosePhase, a, b int, swaps bool, workers int, stop func() bool) (changed, stopped bool) {
	pa, pb := phases[a], phases[b]
	n := places(pa, pb, swaps)
	if n < parallelSwaps {
		workers = 1
	}
	best, stopped := ps.scanShared(pa, pb, swaps, n, workers, stop)
	if stopped || best.bestA == nil && best.bestB == nil {
		return false, stopped
	}
	phases[a], phases[b] = ps.newLoosePhase(best.bestA), ps.newLoosePhase(best.bestB)
	return true, false
}

// places is the number of places pairScan.scan looks at for pa and pb: per
// job x of pa, its moves to pb, then (with swaps) its swap with each job of
// pb.
func places(pa, pb loosePhase, swaps bool) int {
	if !swaps {
		return len(pa.jobs)
	}
	return len(pa.jobs) * (len(pb.jobs) + 1)
}

// parallelSwaps is the fewest places (places) for which moveOrSwap
// searches a pair of phases on several goroutines: on 9 hosts, where
// phases hold a few jobs, most pairs stay on one. At 200 jobs on 50 hosts,
// where three phases of about sixty jobs meet a dozen of one to four,
// improve runs 1.5–1.9 times faster on two (BenchmarkImprove).
const parallelSwaps = 16

// pairScan is moveOrSwap's search of the changes of one pair of phases: the
// best gain found so far above a threshold, and the two phases it gives.
type pairScan struct {
	ps     *phaseSolver
	pa, pb loosePhase
	swaps  bool // try swaps too, not only moves
	was    float64
	// slack widens the limits a change is priced against, so that no
	// rounding of was − gain − ta prunes a change whose gain, computed as
	// was − ta − tb, is above gain: the change kept is then the first of
	// the largest computed gain, whatever gain a search started from.
	slack float64
	gain  float64
	bestA []looseJob
	bestB []looseJob
	// tick counts a change priced and reports whether the search goes on.
	tick func() bool
	// sa and sb are pa's and pb's memos of sums, which every change is
	// priced against.
	sa, sb *sumsMemo
}

// newPairScan starts a search of pa and pb's changes, above a gain of 1e-9
// of their length, on the phases' memos of sums in slot w (the goroutine's
// of scanShared).
func (ps *phaseSolver) newPairScan(pa, pb loosePhase, swaps bool, tick func() bool, w int) pairScan {
	was := pa.T + pb.T
	return pairScan{ps: ps, pa: pa, pb: pb, swaps: swaps, was: was, slack: 1e-12 * was, gain: 1e-9 * was, tick: tick,
		sa: pa.memo(w), sb: pb.memo(w)}
}

// eval prices a change, na of pa and nb of pb; ta, if not NaN, is na's
// duration, known already. Only a gain above the best so far is taken, so
// of equal gains the first priced is kept. A change whose na cannot beat
// the first limit (many swaps) costs na's first test (two, where a job is
// not primary).
func (sc *pairScan) eval(na, nb change, ta float64) {
	limit := sc.was - sc.gain + sc.slack
	if math.IsNaN(ta) {
		ta = na.price(sc.ps, limit)
	}
	if ta >= limit {
		return
	}
	tb := nb.price(sc.ps, sc.was-sc.gain-ta+sc.slack)
	if g := sc.was - ta - tb; g > sc.gain {
		sc.gain, sc.bestA, sc.bestB = g, na.jobs(), nb.jobs()
	}
}

// noJob is a change's in where none enters.
var noJob = looseJob{-1, rolePrimary}

// scan tries the changes at places from..to−1 (places), in order, until
// tick says stop.
func (sc *pairScan) scan(from, to int) {
	ps, pa, pb := sc.ps, sc.pa, sc.pb
	per := 1
	if sc.swaps {
		per += len(pb.jobs)
	}
	for pos := from; pos < to; pos++ {
		i, k := pos/per, pos%per-1 // k: −1 for x's moves, else the job of pb it swaps with
		x := pa.jobs[i]
		critical := pa.without[i] < pa.T
		if k < 0 {
			if !critical {
				continue
			}
			for _, r := range ps.roles(x.job) { // the phase without x is known to last pa.without[i]
				if !sc.tick() {
					return
				}
				sc.eval(change{sc.sa, i, noJob, false}, change{sc.sb, -1, looseJob{x.job, r}, false}, pa.without[i])
			}
			continue
		}
		z := pb.jobs[k]
		if !critical && pb.without[k] >= pb.T {
			continue
		}
		for _, rx := range ps.roles(x.job) {
			for _, rz := range ps.roles(z.job) {
				if !sc.tick() {
					return
				}
				sc.eval(change{sc.sa, i, looseJob{z.job, rz}, false}, change{sc.sb, k, looseJob{x.job, rx}, true}, math.NaN())
			}
		}
	}
}

// scanShared searches the n places of pa and pb's changes: in order on
// this goroutine if workers is 1, else on up to workers goroutines, each
// taking the next of 4·workers runs of consecutive places and searching it
// from the first threshold, not from the best gain of the runs before it
// (it prunes less); the largest gain over the runs, the earliest of equal
// ones, is the change one scan in order keeps. The changes tried are
// counted together, and stop asked, under a lock, at every swapTick-th of
// them, and never again once it has said yes: stop is asked as often as
// one scan asks it, so the work units spent are the same too, and a pair
// stop cuts is dropped either way.
func (ps *phaseSolver) scanShared(pa, pb loosePhase, swaps bool, n, workers int, stop func() bool) (pairScan, bool) {
	var tries atomic.Int64
	var mu sync.Mutex
	var cut atomic.Bool
	tick := func() bool {
		if tries.Add(1)%swapTick == 0 && stop != nil {
			mu.Lock()
			if !cut.Load() && stop() {
				cut.Store(true)
			}
			mu.Unlock()
		}
		return !cut.Load()
	}
	if workers <= 1 { // one scan in order, on this goroutine
		best := ps.newPairScan(pa, pb, swaps, tick, 0)
		best.scan(0, n)
		return best, cut.Load()
	}
	workers = min(workers, memoSlots)
	runs := min(n, 4*workers)
	scans := make([]pairScan, runs)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(workers, runs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := int(next.Add(1) - 1); r < runs && !cut.Load(); r = int(next.Add(1) - 1) {
				scans[r] = ps.newPairScan(pa, pb, swaps, tick, w)
				scans[r].scan(r*n/runs, (r+1)*n/runs)
			}
		}()
	}
	wg.Wait()
	best := ps.newPairScan(pa, pb, swaps, nil, 0)
	for _, sc := range scans {
		if sc.gain > best.gain { // a run never started has gain 0
			best = sc
		}
	}
	return best, cut.Load()
}

// swapTick is how many changes moveOrSwap prices between two checks of its
// stop: more than two phases of 15 jobs offer (15·15 swaps in two roles
// each), so up to those sizes a pair costs no check of its own beside
// localSearch's (one a pair, or one per pairTick pairs).
const swapTick = 1024

// roles lists the roles job j may take: primary, and host or extra when its
// class allows.
func (ps *phaseSolver) roles(j int) []int {
	switch {
	case ps.canHost[j]:
		return []int{rolePrimary, roleHost}
	case ps.canExtra[j]:
		return []int{rolePrimary, roleExtra}
	}
	return []int{rolePrimary}
}

// price is the best duration of jobs in their roles, or all primary when
// that is shorter (the roles may have lost their partners), if it is below
// limit, and the roles used; +Inf if it is not. No jobs last 0. The limit
// lets a change that cannot gain end after one feasibility test instead of
// a binary search over every candidate duration.
func (ps *phaseSolver) price(jobs []looseJob, limit float64) ([]looseJob, float64) {
	if len(jobs) == 0 {
		return jobs, 0
	}
	top := sort.SearchFloat64s(ps.cands, limit) - 1 // the last candidate below limit
	if top < 0 {
		return jobs, math.Inf(1)
	}
	ids, roles := make([]int, len(jobs)), make([]int, len(jobs))
	for k, x := range jobs {
		ids[k], roles[k] = x.job, x.role
	}
	lo, hi := make([]int, len(jobs)), make([]int, len(jobs))
	least := func(roles []int) float64 {
		if !ps.fits(ids, roles, ps.cands[top], lo, hi) {
			return math.Inf(1)
		}
		return ps.cands[sort.Search(top, func(i int) bool { return ps.fits(ids, roles, ps.cands[i], lo, hi) })]
	}
	T, tp := least(roles), math.Inf(1)
	if slices.ContainsFunc(roles, func(r int) bool { return r != rolePrimary }) {
		tp = least(make([]int, len(jobs)))
	}
	if tp < T {
		out := make([]looseJob, len(jobs))
		for k, x := range jobs {
			out[k] = looseJob{x.job, rolePrimary}
		}
		return out, tp
	}
	return jobs, T
}

// looseSchedule builds the model.Schedule of the non-empty phases, VM counts
// from phaseSolver.assign. A phase no role choice fits (+Inf) cannot occur:
// improve only takes changes that shorten the plan.
func (ps *phaseSolver) looseSchedule(phases []loosePhase) model.Schedule {
	var s model.Schedule
	for _, ph := range phases {
		if len(ph.jobs) == 0 {
			continue
		}
		if math.IsInf(ph.T, 1) {
			panic("optimize: improve kept a phase that does not fit (a bug)")
		}
		ids, roles := make([]int, len(ph.jobs)), make([]int, len(ph.jobs))
		for k, x := range ph.jobs {
			ids[k], roles[k] = x.job, x.role
		}
		s.Phases = append(s.Phases, ps.assign(ids, roles, ph.T).phase())
	}
	return s
}
