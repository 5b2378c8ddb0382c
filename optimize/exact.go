package optimize

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/packer-sched/packer/model"
)

// MaxExactJobs is the largest M the exact solver accepts. The solver prices
// all 2^M job subsets as phases and then runs a dynamic programme over set
// partitions that visits 3^M (subset, sub-subset) pairs; each further job
// roughly triples the time. Measured on one core for random workloads on the
// paper's cluster: M = 14 in about 40 ms, 16 in about 0.5 s, 18 in 1.5–2.6 s
// (`packer bench` prints the current numbers). Past 18 the time grows beyond
// what a command-line planner should spend; use the swarm.
const MaxExactJobs = 18

// AutoExactJobs is the largest M for which `auto` picks the exact solver: up
// to here it answers in well under a second (where runtimes zigzag, each
// round of re-pricing, Exact, costs another pass over the partitions).
const AutoExactJobs = 16

// ErrTooManyJobs is returned by Exact when M exceeds MaxExactJobs.
var ErrTooManyJobs = errors.New("too many jobs for the exact solver")

// ExactResult is the exact solver's answer.
type ExactResult struct {
	// Schedule is an optimal schedule (unless Makespan exceeds Bound);
	// Makespan is its makespan.
	Schedule model.Schedule
	Makespan float64
	// Bound is the optimum the search proved: Makespan, unless some job's
	// runtimes zigzag over VM counts (zigzag.go) and the re-pricing rounds
	// did not reach a plan of the relaxation's optimum; then it is that
	// optimum (phases priced on the valley envelopes, the chosen ones
	// re-priced on measured times), at most the true optimum, and the
	// schedule is not proven optimal.
	Bound float64
	// Zigzag are the jobs whose runtimes zigzag.
	Zigzag []int
}

// Exact finds a schedule of least makespan for the packing paper's phase model
// (section 5.2, typos corrected), overcommitting included, and proves it
// optimal by exhaustion (where runtimes zigzag, see ExactResult.Bound). It
// returns an error wrapping ErrTooManyJobs when M > MaxExactJobs rather
// than run for hours.
//
// Method: the best duration of every subset S of jobs run as one phase is
// computed by phaseSolver, choosing the roles too; then
//
//	f(∅) = 0,  f(S) = min over T ⊆ S with lowest(S) ∈ T of  d(T) + f(S \ T)
//
// where lowest(S) is S's lowest-numbered job: every partition of S into phases
// is counted exactly once (the phase holding the lowest job comes first), and
// the order of phases does not change the makespan.
func Exact(p *model.Problem) (ExactResult, error) {
	m := len(p.Jobs)
	if m == 0 {
		return ExactResult{}, fmt.Errorf("optimize: exact solver: no jobs")
	}
	if m > MaxExactJobs {
		return ExactResult{}, fmt.Errorf("optimize: exact solver: %w: %d jobs, the limit is %d (use pso)", ErrTooManyJobs, m, MaxExactJobs)
	}
	ps := newPhaseSolver(p)
	full := uint32(1)<<m - 1
	d := make([]float64, full+1)
	roles := make([]uint32, full+1) // bit j set: job j takes its overcommit role
	sc := newRoleScratch(m)
	for s := uint32(1); s <= full; s++ {
		d[s], roles[s] = ps.bestSubset(s, sc)
	}
	f := make([]float64, full+1)
	choice := make([]uint32, full+1)
	partitions(d, f, choice)
	if math.IsInf(f[full], 1) {
		return ExactResult{}, fmt.Errorf("optimize: exact solver: no feasible schedule (a bug: every job alone on N VMs is one)")
	}
	res := ExactResult{Makespan: math.Inf(1), Zigzag: ps.zigzag}
	var fixed map[uint32]model.Phase // subsets re-solved on their measured times
	for round := 0; ; round++ {
		var sched model.Schedule
		// Chosen subsets whose phase on measured times lasts longer than
		// the relaxation priced it: re-pricing can only raise those.
		var loose []uint32
		for s := full; s != 0; s &^= choice[s] {
			c := choice[s]
			if ph, ok := fixed[c]; ok {
				sched.Phases = append(sched.Phases, ph)
				continue
			}
			ph, _ := ps.mendPhase(p, ps.buildPhase(c, roles[c], d[c]))
			sched.Phases = append(sched.Phases, ph)
			if p.PhaseDuration(ph) > d[c] && bits.OnesCount32(c) <= exactSubsetJobs {
				loose = append(loose, c)
			}
		}
		if ms := p.Makespan(sched); ms < res.Makespan {
			res.Schedule, res.Makespan = sched, ms
		}
		// Lazy correction: d stays at most each subset's true best, so f
		// stays a bound; once the partition it picks is priced on the
		// measured times throughout, a plan achieves it. (Without zigzag
		// f is the plan's makespan summed in another order.)
		res.Bound = min(res.Makespan, f[full])
		if len(ps.zigzag) == 0 || res.Makespan <= f[full]*(1+1e-12) {
			res.Bound = res.Makespan
			break
		}
		if len(loose) == 0 || round == exactRounds() {
			break
		}
		if fixed == nil {
			fixed = map[uint32]model.Phase{}
		}
		for _, c := range loose {
			d[c], fixed[c] = ps.exactSubset(p, c)
		}
		partitions(d, f, choice)
	}
	res.Schedule = model.Normalize(res.Schedule)
	if err := p.Check(res.Schedule); err != nil {
		return ExactResult{}, fmt.Errorf("optimize: exact solver produced a bad schedule (a bug): %w", err)
	}
	return res, nil
}

// exactRounds is how many times Exact re-prices the subsets its partition
// chose where runtimes zigzag: each round re-runs the partition search
// (3^M steps), and on random zigzag tables one or two rounds reach the
// optimum. A function so that a test can take the rounds away.
var exactRounds = func() int { return 8 }

// exactSubsetJobs is the most jobs a phase may hold for Exact to re-price
// it on measured times: exactSubset tries all 2^|S| role choices. A larger
// phase keeps the relaxation's duration, so the bound still holds, and the
// plan is its mended schedule.
const exactSubsetJobs = 10

// partitions fills f[S], the least total duration of phases partitioning S
// given each subset's duration d, and choice[S], the phase holding S's
// lowest job in it, for every S in increasing order.
func partitions(d, f []float64, choice []uint32) {
	for s := uint32(1); s < uint32(len(d)); s++ {
		low := s & -s
		rest := s &^ low
		b, bc := math.Inf(1), uint32(0)
		// Every T = low ∪ sub for sub ⊆ rest, including sub = rest.
		for sub := rest; ; sub = (sub - 1) & rest {
			t := low | sub
			if v := d[t] + f[s&^t]; v < b {
				b, bc = v, t
			}
			if sub == 0 {
				break
			}
		}
		f[s], choice[s] = b, bc
	}
}

// exactSubset is subset s's shortest phase on the problem's measured
// runtimes over every choice of roles (exactPhase for each), and that
// phase.
func (ps *phaseSolver) exactSubset(p *model.Problem, s uint32) (float64, model.Phase) {
	var jobs []int
	for r := s; r != 0; r &= r - 1 {
		jobs = append(jobs, bits.TrailingZeros32(r))
	}
	best, bestPh := math.Inf(1), model.Phase{}
	ph := model.Phase{Jobs: make([]model.Assignment, len(jobs))}
	for over := uint32(0); over < 1<<len(jobs); over++ {
		ok := true
		var used [3]bool
		for k, j := range jobs {
			role := rolePrimary
			if over&(1<<k) != 0 {
				if role = ps.overRole(j, true); role == rolePrimary {
					ok = false // this job has no overcommit role
				}
			}
			used[role] = true
			ph.Jobs[k] = model.Assignment{Job: j, VMs: 1, Role: roleOf[role]}
		}
		if !ok || used[roleHost] != used[roleExtra] {
			continue // hosts need extras beside them, and extras hosts
		}
		if np, ok := exactPhase(p, ps, ph, math.Inf(1)); ok {
			if v := p.PhaseDuration(np); v < best {
				best, bestPh = v, np
			}
		}
	}
	return best, bestPh
}

// buildPhase turns a subset, its roles and its duration into a model.Phase.
func (ps *phaseSolver) buildPhase(s, over uint32, T float64) model.Phase {
	var jobs, roles []int
	for r := s; r != 0; r &= r - 1 {
		j := bits.TrailingZeros32(r)
		jobs = append(jobs, j)
		roles = append(roles, ps.overRole(j, over&(1<<j) != 0))
	}
	return ps.assign(jobs, roles, T).phase()
}

// overRole is job j's role: its overcommit role (host or extra, whichever its
// class allows) when over is set, else primary.
func (ps *phaseSolver) overRole(j int, over bool) int {
	switch {
	case over && ps.canHost[j]:
		return roleHost
	case over && ps.canExtra[j]:
		return roleExtra
	}
	return rolePrimary
}

// roleScratch holds one subset's per-job data while its roles are searched.
type roleScratch struct {
	jobs []int
	// per job k of the subset: the intervals for primary and overcommit roles
	pl, ph, ol, oh []int
}

func newRoleScratch(m int) *roleScratch {
	mk := func() []int { return make([]int, m) }
	return &roleScratch{jobs: mk(), pl: mk(), ph: mk(), ol: mk(), oh: mk()}
}

// bestSubset is the shortest duration of subset s as one phase over all role
// choices, and the roles that achieve it (bit j: job j overcommitted).
//
// The role search is pruned by class and by two facts: only jobs that CanHost
// may host and only jobs that CanBeExtra may be extras, so a job has at most
// two roles, not three; and hosting without extras only slows a job down
// (α ≥ 1), so the search needs hosts only when it has extras, and vice versa.
// Binary search runs outside the role search: for each candidate T, some
// role choice fits or none does.
func (ps *phaseSolver) bestSubset(s uint32, sc *roleScratch) (float64, uint32) {
	jobs := sc.jobs[:0]
	for r := s; r != 0; r &= r - 1 {
		jobs = append(jobs, bits.TrailingZeros32(r))
	}
	top := len(ps.cands) - 1
	if _, ok := ps.anyRoles(jobs, ps.cands[top], sc); !ok {
		return math.Inf(1), 0
	}
	k := sort.Search(top, func(i int) bool {
		_, ok := ps.anyRoles(jobs, ps.cands[i], sc)
		return ok
	})
	over, _ := ps.anyRoles(jobs, ps.cands[k], sc)
	return ps.cands[k], over
}

// anyRoles reports whether some role choice lets jobs finish within T, and
// returns one (bit j: job j overcommitted), preferring none overcommitted.
func (ps *phaseSolver) anyRoles(jobs []int, T float64, sc *roleScratch) (uint32, bool) {
	prim := 0
	var hostIdx, extraIdx []int
	var hostBuf, extraBuf [32]int
	hostIdx, extraIdx = hostBuf[:0], extraBuf[:0]
	for k, j := range jobs {
		sc.pl[k], sc.ph[k] = ps.span(j, rolePrimary, T)
		if sc.pl[k] > sc.ph[k] {
			// With α ≥ 1 an overcommitted role is never faster than primary
			// on as many VMs, and extras have fewer VMs to use: this job
			// cannot finish within T in any role.
			return 0, false
		}
		prim += sc.pl[k]
		switch {
		case ps.canHost[j]:
			sc.ol[k], sc.oh[k] = ps.span(j, roleHost, T)
			if sc.ol[k] <= sc.oh[k] {
				hostIdx = append(hostIdx, k)
			}
		case ps.canExtra[j]:
			sc.ol[k], sc.oh[k] = ps.span(j, roleExtra, T)
			if sc.ol[k] <= sc.oh[k] && sc.ol[k] <= ps.emax {
				extraIdx = append(extraIdx, k)
			}
		}
	}
	if prim <= ps.n {
		return 0, true
	}
	if len(hostIdx) == 0 || len(extraIdx) == 0 {
		return 0, false
	}
	nh, ne := len(hostIdx), len(extraIdx)
	for es := 1; es < 1<<ne; es++ {
		var exLo, exHi, exPrim int
		for b := es; b != 0; b &= b - 1 {
			k := extraIdx[bits.TrailingZeros(uint(b))]
			exLo += sc.ol[k]
			exHi += sc.oh[k]
			exPrim += sc.pl[k]
		}
		if exLo > ps.emax {
			continue
		}
		for hs := 1; hs < 1<<nh; hs++ {
			p := prim - exPrim
			var hLo, hHi int
			for b := hs; b != 0; b &= b - 1 {
				k := hostIdx[bits.TrailingZeros(uint(b))]
				p -= sc.pl[k]
				hLo += sc.ol[k]
				hHi += sc.oh[k]
			}
			if ps.totalsFit(p, hLo, hHi, exLo, exHi, true, true) {
				var over uint32
				for b := es; b != 0; b &= b - 1 {
					over |= 1 << jobs[extraIdx[bits.TrailingZeros(uint(b))]]
				}
				for b := hs; b != 0; b &= b - 1 {
					over |= 1 << jobs[hostIdx[bits.TrailingZeros(uint(b))]]
				}
				return over, true
			}
		}
	}
	return 0, false
}
