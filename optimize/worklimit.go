package optimize

import (
	"fmt"
	"sync/atomic"
	"time"
)

// The searches of Solve follow one trajectory whatever the limits: every
// stage's length is fixed in work, never a share of the time limit, and a
// limit only decides where the trajectory is cut. A work unit is one check
// of the limit where a search already asks it: one evaluation of the
// swarm's objective (and one per iteration), and in column generation one
// check every few simplex pivots, pricing items, dive rounds or branch
// nodes. Every search asks the limit from one goroutine at a time, as
// often as it would on one (column generation prices on several but asks
// from one: columns_parallel.go; local improvement's goroutines ask in
// turn, at the same counts: scanShared), except the swarm, whose cut
// iteration is dropped whole (pso), so the units spent before any point
// of the trajectory are the same on every machine, load and core count.
//
// The swarm that seeds auto's column generation gets a fixed number of
// evaluations (swarmJobEvaluations). Past 100 primary VMs the level bound
// (levels.go) follows, a fixed number of steps each asking the limit once
// (about 650 units up to 1,000 jobs, fewer past them; a limit inside it
// leaves the seeds' plan and the area bound, and no run begins). Column
// generation then runs in
// checkpoints: run i may spend columnsFirstWork·2^i units generating
// columns, an eighth more on the final bound round, and half the pricing's
// units on the integer search, twice them from integerJobs jobs
// (integerShare: its dives and local improvement make the plan; with an
// eighth, 1,000 jobs on 200 hosts kept the swarm's plan, and with as many
// units as the pricing, fewer runs completed and 200 jobs on 50 hosts
// ended further from the bound). A run starts from the best plan so
// far and the last whole run's columns and LP basis, so it goes on with that
// run's LP; after a run whose bound came within the tolerance of its LP, it
// prices to half that tolerance (minTolerance). A run that ends by itself,
// before its stages' ends, ends the search: another would find the same
// plan. Of a run the time or work limit cuts only what was found before the
// cut is kept: the bounds its pricing rounds proved, the plans of its
// integer search's steps that ended before it (a dive the limit cuts rounds
// its LP greedily, which a longer limit would not), past 400 jobs the
// rounding of its LP after each pricing round that ended before the cut
// (roundEach), and where a local
// improvement begun before it had got to (it only ever shortens the plan,
// so the limit only ends its descent early). So the plan and bound
// are on the trajectory of every longer limit, which completes every run a
// shorter one completes and never gives a worse plan or a lower bound.

// columnsFirstWork is the work of the first column generation checkpoint's
// pricing: small, so that a run ends within seconds even at 50 hosts, where
// a unit of pricing costs milliseconds. swarmJobEvaluations is auto's
// swarm's budget in evaluations times jobs (each evaluation decodes every
// job): at 100 jobs 15,000 evaluations, 10 iterations of 1,500 particles,
// about a second here; the swarm seeds column generation, whose plans
// soon pass it.
const (
	columnsFirstWork    = 250
	swarmJobEvaluations = 1_500_000
)

// Why a search ended (workClock.reason).
const (
	endedNot int32 = iota
	endedWork
	endedTime
	endedInterrupt
)

// workClock counts work units and ends the search at the first limit
// passed: Settings.WorkLimit units, Settings.TimeLimit on Settings.Clock,
// or Settings.Interrupt. Once ended it stays ended.
type workClock struct {
	set      *Settings
	deadline time.Time // zero: no time limit
	used     atomic.Int64
	reason   atomic.Int32
	endAt    atomic.Int64 // units spent before the check that ended it
}

// newWorkClock starts s's clock at start: the time limit passes at
// searchShare of the time the searches share (searchLimit), leaving the
// rest to order, place and write the plan.
func newWorkClock(s *Settings, start time.Time) *workClock {
	c := &workClock{set: s}
	if s.TimeLimit > 0 {
		c.deadline = start.Add(time.Duration(searchShare * float64(s.searchLimit())))
	}
	return c
}

// tick spends one unit and reports whether the search must end.
func (c *workClock) tick() bool {
	if c.reason.Load() != endedNot {
		return true
	}
	n := c.used.Add(1)
	r := endedNot
	switch {
	case c.set.interrupted():
		r = endedInterrupt
	case c.set.WorkLimit > 0 && n > c.set.WorkLimit:
		r = endedWork
	case !c.deadline.IsZero() && !c.set.now().Before(c.deadline):
		r = endedTime
	}
	if r == endedNot {
		return false
	}
	if c.reason.CompareAndSwap(endedNot, r) {
		c.endAt.Store(n - 1)
	}
	return true
}

// ended reports whether a limit has ended the search.
func (c *workClock) ended() bool { return c.reason.Load() != endedNot }

// stage returns a stop function for a stage that ends once more than until
// units are spent in all, or when the clock ends; *hit records that the
// stage's own end came first.
func (c *workClock) stage(until int64, hit *bool) func() bool {
	return func() bool {
		if c.tick() {
			return true
		}
		if c.used.Load() > until {
			*hit = true
			return true
		}
		return false
	}
}

// spent is the units the search spent before the check that ended it, or
// all it spent if no limit did: the work limit that repeats its course.
func (c *workClock) spent() int64 {
	if c.reason.Load() != endedNot {
		return c.endAt.Load()
	}
	return c.used.Load()
}

// note says which limit ended the search and how much work it did. Under
// a work limit it holds nothing that depends on time.
func (c *workClock) note() string {
	switch c.reason.Load() {
	case endedWork:
		return fmt.Sprintf("the work limit (%s) ended the search: the same command gives this plan again on any machine, load and core count; a larger --work-limit never gives a worse plan or a lower bound", plural(int(c.set.WorkLimit), "unit"))
	case endedTime:
		if n := c.endAt.Load(); n > 0 {
			return timeLimitNote(c.set.TimeLimit) + fmt.Sprintf("; it ended after %d work units, and --work-limit %d gives this plan again on any machine", n, n)
		}
		return timeLimitNote(c.set.TimeLimit) + "; it ended before any work"
	case endedInterrupt:
		return ""
	}
	return fmt.Sprintf("the search ran to its end (%d work units): no limit cut it, and a longer one gives the same plan", c.used.Load())
}

// swarmIterations is the iterations auto's swarm runs with particles
// particles on m jobs when the settings give none: swarmJobEvaluations
// spread over them, at least 1 and at most pso's 200.
func swarmIterations(particles, m int) int {
	return max(1, min(200, swarmJobEvaluations/max(1, particles*m)))
}
