package optimize

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/packer-sched/packer/pso"

	"github.com/packer-sched/packer/model"
)

// SwarmResult is the particle swarm's answer.
type SwarmResult struct {
	Schedule model.Schedule
	Makespan float64
	// PairMakespan is the pair scheduler's makespan, the swarm's starting
	// point; Makespan ≤ PairMakespan always.
	PairMakespan float64
	// Run is the swarm's own report: settings used, iterations, evaluations.
	Run *pso.Result
}

// swarmEncoding maps a point of [0, M)^M × [0, 1]^M to a feasible schedule.
//
// Coordinates 2j and 2j+1 belong to job j: ⌊x[2j]⌋ is the job's phase (a
// "random key"; phases are ordered by number and empty ones dropped), and
// x[2j+1] ≥ ½ asks for the job's overcommit role (host for an I/O-only job,
// extra for a CPU-only one; ignored for other jobs). VM counts are not
// coordinates: for a given phase and roles the best VM counts follow exactly
// from phaseSolver (smallest feasible duration, by binary search), so the swarm
// searches only the combinatorial part, where search is needed.
//
// Infeasible choices are repaired, not rejected, so every point decodes to a
// feasible schedule and Hu and Eberhart's rule (bests stay feasible) holds
// trivially: a phase whose roles cannot work (extras but no host, or more
// extras than hosts carry) runs all its jobs as primary; a phase with more
// jobs than N VMs is cut, in key order, into phases of at most N jobs. The
// repaired schedule is what the objective prices and what the result reports.
type swarmEncoding struct {
	ps   *phaseSolver
	m    int
	pool sync.Pool
}

type decodeScratch struct {
	order, jobs, roles, lo, hi []int
}

func newSwarmEncoding(p *model.Problem) *swarmEncoding { return encodingFor(newPhaseSolver(p)) }

// encodingFor is newSwarmEncoding on a phase solver already built.
func encodingFor(ps *phaseSolver) *swarmEncoding {
	e := &swarmEncoding{ps: ps, m: len(ps.p.Jobs)}
	m := e.m
	e.pool.New = func() any {
		mk := func() []int { return make([]int, m) }
		return &decodeScratch{order: mk(), jobs: mk(), roles: mk(), lo: mk(), hi: mk()}
	}
	return e
}

func (e *swarmEncoding) bounds() (lo, hi []float64) {
	lo = make([]float64, 2*e.m)
	hi = make([]float64, 2*e.m)
	for j := range e.m {
		hi[2*j] = float64(e.m) - 1e-9
		hi[2*j+1] = 1
	}
	return lo, hi
}

// decode walks the phases of x in order and calls emit with each phase's jobs,
// roles and duration; it returns the makespan. emit may be nil.
func (e *swarmEncoding) decode(x []float64, emit func(jobs, roles []int, T float64)) float64 {
	sc := e.pool.Get().(*decodeScratch)
	defer e.pool.Put(sc)
	order := sc.order
	for j := range order {
		order[j] = j
	}
	bin := func(j int) int { return min(int(x[2*j]), e.m-1) }
	sort.Slice(order, func(a, b int) bool {
		ja, jb := order[a], order[b]
		if ba, bb := bin(ja), bin(jb); ba != bb {
			return ba < bb
		}
		if x[2*ja] != x[2*jb] {
			return x[2*ja] < x[2*jb]
		}
		return ja < jb
	})
	var total float64
	for start := 0; start < e.m; {
		end := start + 1
		for end < e.m && bin(order[end]) == bin(order[start]) {
			end++
		}
		// Cut an overfull phase into runs of at most N + P·⌊k/r⌋ jobs (one
		// VM each, extras included), in key order; phase splits a run
		// further if its roles cannot carry it.
		cut := e.ps.n + e.ps.emax
		for s := start; s < end; s += cut {
			total += e.phase(x, order[s:min(s+cut, end)], sc, emit)
		}
		start = end
	}
	return total
}

// phase prices one phase of the decoded schedule, repairing its roles if they
// cannot work.
func (e *swarmEncoding) phase(x []float64, group []int, sc *decodeScratch, emit func(jobs, roles []int, T float64)) float64 {
	k := len(group)
	jobs, roles := sc.jobs[:k], sc.roles[:k]
	copy(jobs, group)
	sort.Ints(jobs)
	anyOver := false
	for i, j := range jobs {
		roles[i] = e.ps.overRole(j, x[2*j+1] >= 0.5)
		anyOver = anyOver || roles[i] != rolePrimary
	}
	T := e.ps.best(jobs, roles, sc.lo[:k], sc.hi[:k])
	if math.IsInf(T, 1) && anyOver {
		for i := range roles {
			roles[i] = rolePrimary
		}
		T = e.ps.best(jobs, roles, sc.lo[:k], sc.hi[:k])
	}
	if math.IsInf(T, 1) && k > e.ps.n {
		// More jobs than primary VMs, and the overcommit roles asked for
		// cannot carry the rest: run them as consecutive phases of at most
		// N primary jobs.
		var total float64
		part := append([]int(nil), group...)
		for s := 0; s < k; s += e.ps.n {
			total += e.phase(x, part[s:min(s+e.ps.n, k)], sc, emit)
		}
		return total
	}
	if math.IsInf(T, 1) {
		panic(fmt.Sprintf("optimize: swarm decoder: %d primary jobs do not fit on %d VMs (a bug)", k, e.ps.n))
	}
	if emit != nil {
		emit(jobs, roles, T)
	}
	return T
}

// schedule decodes x into a model.Schedule with VM counts.
func (e *swarmEncoding) schedule(x []float64) model.Schedule {
	var s model.Schedule
	e.decode(x, func(jobs, roles []int, T float64) {
		s.Phases = append(s.Phases, e.ps.assign(jobs, roles, T).phase())
	})
	return model.Normalize(s)
}

// encode is decode's inverse for a schedule: phase i's jobs get key i + ½ and
// overcommitted jobs role key ¾, others ¼. Used to start the swarm at the
// pair scheduler's plan.
func (e *swarmEncoding) encode(s model.Schedule) []float64 {
	x := make([]float64, 2*e.m)
	for i, ph := range s.Phases {
		for _, a := range ph.Jobs {
			x[2*a.Job] = float64(i) + 0.5
			x[2*a.Job+1] = 0.25
			if a.Role.Overcommitted() {
				x[2*a.Job+1] = 0.75
			}
		}
	}
	return x
}

// Swarm plans by particle swarm optimisation over the phase model (the packing paper,
// section 5.2): each particle is a choice of phase and role per job, decoded
// as swarmEncoding describes, and priced by its makespan. One particle starts
// at the pair scheduler's plan, so the result is never worse than it. A nil
// settings means pso's defaults, the paper's 1500 particles and 200
// iterations, with seed 0.
func Swarm(p *model.Problem, settings *pso.Settings) (SwarmResult, error) {
	if len(p.Jobs) == 0 {
		return SwarmResult{}, fmt.Errorf("optimize: swarm: no jobs")
	}
	pr, err := PairSchedule(p)
	if err != nil {
		return SwarmResult{}, err
	}
	return swarmFrom(newPhaseSolver(p), settings, pr)
}

// swarmFrom is Swarm started from the pair plan pr, which auto has already
// made for column generation (at 1,000 jobs it costs seconds).
// ps is p's phase solver, which Solve shares with column generation.
func swarmFrom(ps *phaseSolver, settings *pso.Settings, pr PairResult) (SwarmResult, error) {
	p := ps.p
	e := encodingFor(ps)
	lo, hi := e.bounds()
	var s pso.Settings
	if settings != nil {
		s = *settings
	}
	start := e.encode(pr.Schedule)
	s.Initial = append([][]float64{start}, s.Initial...)
	run, err := pso.Minimize(pso.Problem{Func: func(x []float64) float64 { return e.decode(x, nil) }, Lower: lo, Upper: hi}, &s)
	if err != nil {
		return SwarmResult{}, fmt.Errorf("optimize: swarm: %w", err)
	}
	sched := e.schedule(run.X)
	pair := p.Makespan(pr.Schedule)
	if p.Makespan(sched) > pair {
		// Cannot happen (the start decodes to at most the pair makespan),
		// but the promise "never worse than pair" should not rest on that.
		sched = pr.Schedule
	}
	if err := p.Check(sched); err != nil {
		return SwarmResult{}, fmt.Errorf("optimize: swarm produced a bad schedule (a bug): %w", err)
	}
	return SwarmResult{Schedule: sched, Makespan: p.Makespan(sched), PairMakespan: pair, Run: run}, nil
}
