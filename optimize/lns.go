package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Large-neighbourhood search over phases. Moves and swaps (improve) change
// one or two jobs at a time; a plan they leave can still lose time that only
// a new grouping of several jobs wins back. Each step of lns picks a few
// phases (the destroyed ones) and at most size of their jobs (the free
// ones; the rest of each destroyed phase stays, keeping its roles, as an
// anchor), and re-packs the free jobs optimally: each goes to one of the
// anchors, in the role that suits it there, or into new phases of their own
// (any number). The re-packing is exact for that neighbourhood, a dynamic
// programme like Exact's:
//
//	F_a(S) = min over S_a ⊆ S of d(anchor a ∪ S_a) + F_{a+1}(S \ S_a)
//	F_A(S) = the exact partition of S into new phases
//
// over the subsets S of the free jobs, d being the best duration of a phase
// over the free jobs' roles (the anchor's stay). A re-packing that shortens
// the destroyed phases replaces them. Which phases and jobs are picked comes
// from a generator seeded by the plan's number of phases; stop is asked at
// fixed points of a step's work (repack), and a step it cuts is dropped, so
// a longer limit, or a work clock counting those questions, only extends
// the same search.

// lnsSizes are the most free jobs of one step, smallest first: the search
// runs at one size until it stops gaining (lnsIdle), then at the next, and
// goes back to the smallest after every gain. At 6 free jobs a step prices
// 2^6 subsets per anchor, at 10 sixteen times as many.
var lnsSizes = [...]int{6, 8, 10}

// lnsIdle is how many steps in a row without a gain, per phase of the plan,
// end the search at one size.
const lnsIdle = 20

// lnsState is the plan being searched and the generator that picks
// neighbourhoods.
type lnsState struct {
	ps     *phaseSolver
	phases []loosePhase
	rng    *rand.Rand
	sub    *lnsSub
	// whole holds the job sets of whole phases a step re-packed without
	// gain, with the largest total their phases had then: the re-packing
	// was exact, so their best packing takes at least that, and a later
	// step on the same jobs gains only if their phases now take longer.
	whole map[string]float64
}

// lns improves phases in place by large-neighbourhood steps until
// lnsIdle·len(phases) steps in a row gain nothing or stop says so; it
// reports whether any step gained. sub holds the re-packing's tables,
// reused from call to call.
func (ps *phaseSolver) lns(phases *[]loosePhase, rng *rand.Rand, whole map[string]float64, sub *lnsSub, stop func() bool) bool {
	st := &lnsState{ps: ps, phases: *phases, rng: rng, whole: whole, sub: sub}
	gained := false
	for size, idle := 0, 0; size < len(lnsSizes); {
		if stop != nil && stop() {
			break
		}
		if st.step(lnsSizes[size], stop) {
			gained, idle, size = true, 0, 0
			continue
		}
		if idle++; idle >= lnsIdle*max(1, len(st.phases)) {
			idle, size = 0, size+1
		}
	}
	*phases = st.phases
	return gained
}

// newLNSRand is lns's generator for a plan of the given number of phases:
// the same plan gives the same search.
func newLNSRand(phases int) *rand.Rand { return rand.New(rand.NewPCG(uint64(phases), 36)) }

// step destroys and re-packs one neighbourhood; it reports whether the plan
// got shorter.
func (st *lnsState) step(size int, stop func() bool) bool {
	chosen := st.pickPhases()
	if len(chosen) < 2 {
		return false
	}
	free, anchors := st.pickJobs(chosen, size)
	was := 0.0
	for _, c := range chosen {
		was += st.phases[c].T
	}
	key := ""
	if !slices.ContainsFunc(anchors, func(a []looseJob) bool { return len(a) > 0 }) {
		key = fmt.Sprint(slices.Sorted(slices.Values(free)))
		if least, ok := st.whole[key]; ok && was <= least {
			return false // their best packing takes at least least ≥ was
		}
	}
	sol, total := st.ps.repack(st.sub, free, anchors, was, stop)
	if math.IsInf(total, 1) && stop != nil && stop() {
		return false // cut short: not a proof that nothing gains
	}
	if total >= was*(1-1e-9) {
		if key != "" {
			st.whole[key] = max(st.whole[key], was)
		}
		return false
	}
	for k, c := range chosen {
		st.phases[c] = loosePhase{}
		if k < len(sol) && len(sol[k]) > 0 {
			st.phases[c] = st.ps.newLoosePhase(sol[k])
		}
	}
	for _, jobs := range sol[len(chosen):] {
		st.phases = append(st.phases, st.ps.newLoosePhase(jobs))
	}
	st.phases = slices.DeleteFunc(st.phases, func(lp loosePhase) bool { return len(lp.jobs) == 0 })
	return true
}

// pickPhases picks two to four phases: one at random, and the others either
// at random or among those of the nearest durations.
func (st *lnsState) pickPhases() []int {
	n := len(st.phases)
	if n < 2 {
		return nil
	}
	q := min(n, 2+st.rng.IntN(3))
	first := st.rng.IntN(n)
	chosen := []int{first}
	if st.rng.IntN(2) == 0 {
		for _, c := range st.rng.Perm(n) {
			if len(chosen) == q {
				break
			}
			if c != first {
				chosen = append(chosen, c)
			}
		}
		return chosen
	}
	others := make([]int, 0, n-1)
	for c := range n {
		if c != first {
			others = append(others, c)
		}
	}
	t0 := st.phases[first].T
	sort.SliceStable(others, func(a, b int) bool {
		return math.Abs(st.phases[others[a]].T-t0) < math.Abs(st.phases[others[b]].T-t0)
	})
	near := others[:min(len(others), 2*q)]
	for _, k := range st.rng.Perm(len(near))[:q-1] {
		chosen = append(chosen, near[k])
	}
	return chosen
}

// pickJobs frees at most size jobs of the chosen phases, taking them in
// turn from each phase, critical ones (whose leaving shortens the phase)
// first; it returns the free jobs and, per chosen phase, the jobs it keeps.
func (st *lnsState) pickJobs(chosen []int, size int) ([]int, [][]looseJob) {
	queues := make([][]looseJob, len(chosen))
	for k, c := range chosen {
		ph := st.phases[c]
		var crit, rest []looseJob
		for i, x := range ph.jobs {
			if ph.without[i] < ph.T {
				crit = append(crit, x)
			} else {
				rest = append(rest, x)
			}
		}
		st.rng.Shuffle(len(crit), func(a, b int) { crit[a], crit[b] = crit[b], crit[a] })
		st.rng.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
		queues[k] = append(crit, rest...)
	}
	var free []int
	for more := true; more && len(free) < size; {
		more = false
		for k := range queues {
			if len(free) == size || len(queues[k]) == 0 {
				continue
			}
			free = append(free, queues[k][0].job)
			queues[k] = queues[k][1:]
			more = true
		}
	}
	return free, queues
}
