package optimize

import (
	"math"
	"sort"
)

// Pricing a change of one or two jobs against a phase's sums. Every change
// moveOrSwap prices is a phase of the pair with one of its jobs taken out,
// one put in, or both, and price tests such a phase at a binary search's
// candidate durations, each test adding up every job's span (fits). Past a
// hundred jobs a phase that sum is nearly all of improve's time. The sums
// of a phase at a candidate do not depend on the change, so each phase
// keeps those it has been tested at (sumsMemo), and a change is priced by
// taking one job's span out and adding one: the same tests, so the same
// durations, bit for bit (TestPriceChangeAgreesWithPrice), the same
// changes taken and the same plans, sooner. At 1,000 jobs on 200 hosts
// (seed 1, the plan of the fourth run: 188 phases, 146 of one job beside
// phases of 70 to 243) 30 s of improve shorten the plan from 12,941.3 s to
// 12,439.3 s this way, to 12,832.7 s adding up every job's span.

// candSums is what fits and price's all-primary test add up over a phase's
// jobs at one candidate duration: fits' totals in the jobs' roles, how many
// jobs cannot meet the duration in their role (bad), and with every job
// primary the fewest VMs and how many cannot meet it so (allBad).
type candSums struct {
	roleTotals
	bad, allPrim, allBad int
}

// add adds job x at duration T to s, sign +1, or takes it out, sign −1.
func (s *candSums) add(ps *phaseSolver, x looseJob, T float64, sign int) {
	l, h := ps.span(x.job, x.role, T)
	if l > h {
		s.bad += sign
	} else {
		s.roleTotals.add(x.role, l, h, sign)
	}
	if x.role != rolePrimary {
		l, h = ps.span(x.job, rolePrimary, T)
	}
	if l > h {
		s.allBad += sign
	} else {
		s.allPrim += sign * l
	}
}

// fitRoles is fits' answer: every job meets the duration in its role, and
// the totals fit.
func (s *candSums) fitRoles(ps *phaseSolver) bool {
	return s.bad == 0 && s.fit(ps)
}

// fitPrimary is fits' answer with every job primary.
func (s *candSums) fitPrimary(ps *phaseSolver) bool {
	return s.allBad == 0 && s.allPrim <= ps.n
}

// sumsMemo holds a phase's sums at the candidates (indices into
// phaseSolver.cands) searches have tested, and how many of its jobs are not
// primary. A loosePhase keeps them for its life (its jobs never change), so
// the sums of a phase of 243 jobs, which meets every other phase of the
// plan in a pass, are added up once per candidate, not once per pair: with
// a memo per pair's search, a pass over a 188-phase plan of 1,000 jobs took
// 5.5 s, and adding up the sums was half of it. Each goroutine of
// scanShared has a memo of its own (memo): one shared under a lock gave
// back a fifth of the time to the lock.
type sumsMemo struct {
	jobs  []looseJob
	moved int
	at    map[int]candSums // made on first use, emptied past memoEntries
}

// memoEntries bounds a memo, a pure cache emptied when full: its keys are
// candidate indices, and a phase of many jobs tested over a long search
// could otherwise hold sums at most of the candidates (every job's runtime
// at every VM count), a few MB per memo at this bound. At 1,000 jobs on 200
// hosts the largest memo after 30 s of improve on one plan held 12,124
// (the process 57 MB), under the bound.
const memoEntries = 16384

// memoJobs is the fewest jobs of a phase whose changes are priced against
// its memo of sums; smaller ones go to price, whose tests add up a few
// jobs' spans in less time than the memo takes to look up a candidate.
const memoJobs = 12

// memoSlots is the most goroutines scanShared searches a pair on, each with
// its memos of sums.
const memoSlots = 8

// memo is ph's memo of sums for slot w, made on first use; a phase built
// without newLoosePhase (tests) gets a new one each time.
func (ph loosePhase) memo(w int) *sumsMemo {
	if ph.sums == nil {
		return newSumsMemo(ph.jobs)
	}
	if ph.sums[w] == nil {
		ph.sums[w] = newSumsMemo(ph.jobs)
	}
	return ph.sums[w]
}

func newSumsMemo(jobs []looseJob) *sumsMemo {
	s := &sumsMemo{jobs: jobs}
	for _, x := range jobs {
		if x.role != rolePrimary {
			s.moved++
		}
	}
	return s
}

// sums is the phase's sums at candidate i, added up on first use.
func (s *sumsMemo) sums(ps *phaseSolver, i int) candSums {
	c, ok := s.at[i]
	if !ok {
		T := ps.cands[i]
		for _, x := range s.jobs {
			c.add(ps, x, T, 1)
		}
		if s.at == nil || len(s.at) >= memoEntries {
			s.at = make(map[int]candSums)
		}
		s.at[i] = c
	}
	return c
}

// change is a phase of a pair with its job out taken out (−1: none) and
// in put in (in.job −1: none): at the end, or in out's place if swap (which
// needs both).
type change struct {
	base *sumsMemo
	out  int
	in   looseJob
	swap bool
}

// price is phaseSolver.price's duration for the change's jobs: the least
// candidate below limit at which they fit in their roles, or all primary
// when a job is not primary and that is shorter; +Inf if none; 0 for no
// jobs.
func (ch change) price(ps *phaseSolver, limit float64) float64 {
	jobs := len(ch.base.jobs)
	if ch.out >= 0 {
		jobs--
	}
	if ch.in.job >= 0 {
		jobs++
	}
	if jobs == 0 {
		return 0
	}
	if len(ch.base.jobs) < memoJobs {
		_, T := ps.price(ch.jobs(), limit)
		return T
	}
	moved := ch.base.moved
	if ch.out >= 0 && ch.base.jobs[ch.out].role != rolePrimary {
		moved--
	}
	if ch.in.job >= 0 && ch.in.role != rolePrimary {
		moved++
	}
	top := sort.SearchFloat64s(ps.cands, limit) - 1 // the last candidate below limit
	if top < 0 {
		return math.Inf(1)
	}
	at := func(i int) candSums {
		s, T := ch.base.sums(ps, i), ps.cands[i]
		if ch.out >= 0 {
			s.add(ps, ch.base.jobs[ch.out], T, -1)
		}
		if ch.in.job >= 0 {
			s.add(ps, ch.in, T, 1)
		}
		return s
	}
	// The search runs over every candidate, those from top on known to
	// fit, rather than over those below top as price's does: the least
	// candidate that fits is the same, and the candidates it tests no
	// longer depend on the limit, so searches of the same phase at
	// different limits meet in its memo (on 1,000 jobs, most of them).
	least := func(fit func(*candSums, *phaseSolver) bool) float64 {
		if s := at(top); !fit(&s, ps) {
			return math.Inf(1)
		}
		return ps.cands[sort.Search(len(ps.cands), func(i int) bool {
			if i >= top {
				return true
			}
			s := at(i)
			return fit(&s, ps)
		})]
	}
	T := least((*candSums).fitRoles)
	if moved > 0 {
		T = min(T, least((*candSums).fitPrimary))
	}
	return T
}

// jobs is the change's phase as a list of jobs, for newLoosePhase: the
// order decides the order later scans look at the phase's jobs in, and
// bestChange, the tests' plain search, builds them in the same one.
func (ch change) jobs() []looseJob {
	out := make([]looseJob, 0, len(ch.base.jobs)+1)
	for k, x := range ch.base.jobs {
		switch {
		case k != ch.out:
			out = append(out, x)
		case ch.swap:
			out = append(out, ch.in)
		}
	}
	if ch.in.job >= 0 && !ch.swap {
		out = append(out, ch.in)
	}
	return out
}
