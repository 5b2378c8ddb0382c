package optimize

import (
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/packer-sched/packer/model"
)

// Measured runtime tables need not be valley-shaped: a job timed at 4, 6
// and 8 VMs may run slower on 6 than on 4 and 8 (model.Table passes through
// every median). The phase solver's searches (span) rest on the valley
// shape, and on a table that zigzags they overstate a job's fewest VMs, so
// an "optimum" or a bound could exceed what a plan achieves. So the solver
// works on each table's lower valley envelope instead (valleyEnvelope): the
// fastest time over fewer VMs on the falling side, over more on the rising
// side. It is valley-shaped, it equals the table where the table already is,
// and it never exceeds the table, so every phase the table allows the
// envelope allows at least as short: the solver's optimum and bounds are
// optima and bounds of a relaxation and hold for the tables. Its plans, read
// with the tables, may run longer than it believed where a job sits on a
// count the envelope filled in; mendSchedule re-solves those phases on the
// measured times exactly (exactPhase), so no plan is worse than the
// solver's counts read honestly.

// valleyEnvelope replaces t[1..] by its lower valley envelope in place and
// returns its fastest count (lowest, the same before and after) and whether
// anything changed (t was not valley-shaped).
func valleyEnvelope(t []float64) (low int, changed bool) {
	low = lowest(t)
	if low == 0 {
		return 0, false
	}
	for x := 2; x < low; x++ {
		if t[x-1] < t[x] {
			t[x], changed = t[x-1], true
		}
	}
	for x := len(t) - 2; x > low; x-- {
		if t[x+1] < t[x] {
			t[x], changed = t[x+1], true
		}
	}
	return low, changed
}

// zigzagNote names the jobs whose runtimes zigzag and says how the plan
// and its optimum or bound read them.
func zigzagNote(p *model.Problem, jobs []int) string {
	names := make([]string, 0, 3)
	for _, j := range jobs[:min(3, len(jobs))] {
		names = append(names, p.Jobs[j].Name)
	}
	list, verb, its := strings.Join(names, ", "), "runs", "its"
	if len(jobs) > 3 {
		list += fmt.Sprintf(" and %d more", len(jobs)-3)
	}
	if len(jobs) > 1 {
		verb, its = "run", "their"
	}
	return fmt.Sprintf("runtimes that zigzag: %s %s slower on some VM counts than on fewer (or, past %s fastest count, than on more); the search used the faster time there, never above the measured one, so the optimum or bound holds for the measured times; a phase that gave such a job such a count was re-solved on the measured times, and the makespan is the measured one",
		list, verb, its)
}

// mendSchedule re-solves, on the problem's own runtimes, every phase of s in
// which some job runs longer than the phase solver believed (mendPhase).
func mendSchedule(p *model.Problem, ps *phaseSolver, s model.Schedule) model.Schedule {
	if len(ps.zigzag) == 0 {
		return s
	}
	out := model.Schedule{Phases: make([]model.Phase, len(s.Phases))}
	for i, ph := range s.Phases {
		out.Phases[i], _ = ps.mendPhase(p, ph)
	}
	return out
}

// mendPhase re-solves ph on the problem's own runtimes if some job in it
// runs longer than the phase solver believed (its table is not
// valley-shaped and it sits on a count the envelope filled in): the phase
// keeps its jobs and roles and takes the VM counts exactPhase finds if they
// make it shorter. (At equal length it keeps its own, which assign spread
// over the jobs for their completion times.) It reports whether it did.
func (ps *phaseSolver) mendPhase(p *model.Problem, ph model.Phase) (model.Phase, bool) {
	if len(ps.zigzag) == 0 {
		return ph, false
	}
	wrong := false
	for _, a := range ph.Jobs {
		if p.Runtime(a.Job, a.VMs, a.Role) > ps.rt[a.Job][slices.Index(roleOf[:], a.Role)][a.VMs] {
			wrong = true
		}
	}
	if !wrong {
		return ph, false
	}
	d := p.PhaseDuration(ph)
	if np, ok := exactPhase(p, ps, ph, d); ok && p.PhaseDuration(np) < d {
		return np, true
	}
	return ph, false
}

// exactPhase finds, for the jobs of ph in their roles, the VM counts that
// make the phase shortest on the problem's runtimes as they are, valley or
// not. For a duration T each job's counts meeting T are a set, not
// necessarily an interval: a primary job takes the fewest; the host and
// the extra VMs' totals each range over the sums of their jobs' sets
// (bitset sums, one shift-or per run of consecutive counts), and for each
// extra total E the least host total H ≥ r·E decides (totalsOK; more host
// VMs only need more machines). Whether T can be met is monotone in T, so
// a binary search over the jobs' runtimes up to limit finds the least; it
// reports false if none up to limit can be met.
func exactPhase(p *model.Problem, ps *phaseSolver, ph model.Phase, limit float64) (model.Phase, bool) {
	jobs := make([]phaseJob, len(ph.Jobs))
	var cands []float64
	for k, a := range ph.Jobs {
		role := slices.Index(roleOf[:], a.Role)
		t := ps.rt[a.Job][role] // the measured times where they are a valley
		if _, zig := slices.BinarySearch(ps.zigzag, a.Job); zig {
			t = make([]float64, len(t))
			for x := 1; x < len(t); x++ {
				t[x] = p.Runtime(a.Job, x, a.Role)
			}
		}
		jobs[k] = phaseJob{job: a.Job, role: role, t: t}
		for _, v := range t[1:] {
			if v <= limit {
				cands = append(cands, v)
			}
		}
	}
	sort.Float64s(cands)
	cands = slices.Compact(cands)
	var sol phaseSums
	if len(cands) == 0 || !sol.feasible(ps, jobs, cands[len(cands)-1]) {
		return model.Phase{}, false
	}
	i := sort.Search(len(cands)-1, func(i int) bool { return sol.feasible(ps, jobs, cands[i]) })
	sol.feasible(ps, jobs, cands[i])
	return sol.counts(jobs, cands[i]), true
}

// phaseJob is one job of exactPhase's phase: its runtime in its role per VM
// count (index 0 unused).
type phaseJob struct {
	job, role int
	t         []float64
}

// phaseSums is exactPhase's work for one duration: the sums reachable by
// the first i host (extra) jobs in layers, and the totals found.
type phaseSums struct {
	host, extra [][]uint64
	prim, H, E  int
}

// feasible reports whether the jobs can all finish within T, leaving the
// layers and totals for counts.
func (s *phaseSums) feasible(ps *phaseSolver, jobs []phaseJob, T float64) bool {
	s.host, s.extra, s.prim = s.host[:0], s.extra[:0], 0
	hostOn, extraOn := false, false
	for _, j := range jobs {
		x := slices.IndexFunc(j.t[1:], func(v float64) bool { return v <= T })
		if x < 0 {
			return false
		}
		switch j.role {
		case rolePrimary:
			s.prim += x + 1
		case roleHost:
			hostOn = true
			s.host = append(s.host, sumWith(s.host, ps.n, j.t, T))
		case roleExtra:
			extraOn = true
			s.extra = append(s.extra, sumWith(s.extra, ps.emax, j.t, T))
		}
	}
	if hostOn != extraOn {
		return false
	}
	if !hostOn {
		s.H, s.E = 0, 0
		return s.prim <= ps.n
	}
	hs, es := s.host[len(s.host)-1], s.extra[len(s.extra)-1]
	h := -1 // the least host total ≥ r·e, which only rises with e
	for e := 1; e <= ps.emax; e++ {
		if !bitAt(es, e) {
			continue
		}
		if h < ps.r*e {
			if h = nextBit(hs, ps.r*e); h < 0 {
				break
			}
		}
		if h > ps.k*e {
			continue
		}
		if ps.totalsOK(s.prim, h, e) {
			s.H, s.E = h, e
			return true
		}
	}
	return false
}

// counts builds the phase from the layers feasible left for T: primary
// jobs on their fewest counts meeting T, host and extra jobs traced back
// from the totals, each on its fastest count that keeps the rest reachable.
func (s *phaseSums) counts(jobs []phaseJob, T float64) model.Phase {
	var ph model.Phase
	vms := make([]int, len(jobs))
	hostLeft, extraLeft := s.H, s.E
	hi, ei := len(s.host)-1, len(s.extra)-1
	for k := len(jobs) - 1; k >= 0; k-- {
		j := jobs[k]
		switch j.role {
		case rolePrimary:
			vms[k] = 1 + slices.IndexFunc(j.t[1:], func(v float64) bool { return v <= T })
		case roleHost:
			vms[k] = traceBack(s.host, hi, hostLeft, j.t, T)
			hostLeft -= vms[k]
			hi--
		case roleExtra:
			vms[k] = traceBack(s.extra, ei, extraLeft, j.t, T)
			extraLeft -= vms[k]
			ei--
		}
	}
	for k, j := range jobs {
		ph.Jobs = append(ph.Jobs, model.Assignment{Job: j.job, VMs: vms[k], Role: roleOf[j.role]})
	}
	return ph
}

// traceBack picks layer i's job's count x: t[x] ≤ T, total − x reachable
// by the jobs before it, and the least t[x] among those (ties: fewer VMs).
func traceBack(layers [][]uint64, i, total int, t []float64, T float64) int {
	best := 0
	for x := 1; x < len(t) && x <= total; x++ {
		if t[x] > T {
			continue
		}
		if rest := total - x; (i == 0 && rest == 0) || (i > 0 && bitAt(layers[i-1], rest)) {
			if best == 0 || t[x] < t[best] {
				best = x
			}
		}
	}
	if best == 0 {
		panic("optimize: exactPhase lost its totals (a bug)")
	}
	return best
}

// sumWith returns the sums, up to limit, of one of layers' last sums (0
// when layers is empty) and a count x with t[x] ≤ T: the last layer
// shifted by every such x, one doubling shift-or per run of consecutive
// counts.
func sumWith(layers [][]uint64, limit int, t []float64, T float64) []uint64 {
	words := limit/64 + 1
	prev := make([]uint64, words)
	if len(layers) == 0 {
		prev[0] = 1
	} else {
		copy(prev, layers[len(layers)-1])
	}
	out := make([]uint64, words)
	run := make([]uint64, words)
	for a := 1; a < len(t); a++ {
		if t[a] > T {
			continue
		}
		b := a
		for b+1 < len(t) && t[b+1] <= T {
			b++
		}
		// run = OR of prev << x for x in [a, b]: prev << a, then
		// doubling the window it covers.
		shiftOr(run, prev, a, true)
		for cover := 1; cover < b-a+1; {
			step := min(cover, b-a+1-cover)
			shiftOr(run, run, step, false)
			cover += step
		}
		for w := range out {
			out[w] |= run[w]
		}
		a = b
	}
	if r := (limit + 1) % 64; r != 0 {
		out[words-1] &= 1<<r - 1
	}
	return out
}

// shiftOr sets dst to src << s (replace) or ORs src << s into it; dst and
// src may be the same slice.
func shiftOr(dst, src []uint64, s int, replace bool) {
	ws, bs := s/64, uint(s%64)
	for w := len(dst) - 1; w >= 0; w-- {
		var v uint64
		if i := w - ws; i >= 0 {
			v = src[i] << bs
			if bs != 0 && i > 0 {
				v |= src[i-1] >> (64 - bs)
			}
		}
		if replace {
			dst[w] = v
		} else {
			dst[w] |= v
		}
	}
}

// bitAt reports whether bit i of b is set.
func bitAt(b []uint64, i int) bool {
	return i >= 0 && i/64 < len(b) && b[i/64]>>(uint(i)%64)&1 != 0
}

// nextBit is the least set bit of b at or after i, −1 when there is none.
func nextBit(b []uint64, i int) int {
	for w := i / 64; w < len(b); w++ {
		v := b[w]
		if w == i/64 {
			v &^= 1<<(uint(i)%64) - 1
		}
		if v != 0 {
			return w*64 + bits.TrailingZeros64(v)
		}
	}
	return -1
}
