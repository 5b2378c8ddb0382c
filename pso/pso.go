// Package pso minimises a function over a box by particle swarm optimisation,
// with constraints handled the way Hu and Eberhart propose (the packing paper's
// reference [4]): every particle starts at a feasible point, and a particle's
// personal best and the swarm's global best only ever move to feasible points,
// while the particles themselves may fly through infeasible space.
//
// The package knows nothing of what the coordinates mean. The driver is
//
//	Minimize(p Problem, s *Settings) (*Result, error)
//
// in the manner of gonum's optimize package: a nil or zero Settings is valid.
//
// The update of particle i in dimension d is the classic one with inertia:
//
//	v ← w·v + c1·u1·(pbest − x) + c2·u2·(gbest − x),  x ← x + v
//
// with u1, u2 uniform on [0, 1), w drawn uniformly from [0.5, 1) every
// iteration (Hu and Eberhart's random inertia), |v| clamped to VelocityLimit
// times the dimension's range, and x clamped into [Lower, Upper].
//
// Determinism: every random number is drawn by the calling goroutine from one
// generator seeded by Settings.Seed, in a fixed order; only the objective
// evaluations run in parallel, each writing its own slot. The result is
// therefore the same for the same seed whatever GOMAXPROCS or Workers is.
package pso

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

// Problem is a box-constrained minimisation problem with optional further
// constraints.
type Problem struct {
	// Func is the objective. It is called concurrently from several
	// goroutines and must not modify x.
	Func func(x []float64) float64
	// Feasible reports whether x satisfies the problem's constraints; nil means
	// every point of the box is feasible. Called concurrently, like Func.
	Feasible func(x []float64) bool
	// Lower and Upper bound each coordinate: Lower[d] ≤ x[d] ≤ Upper[d]. They
	// have the problem's dimension and Lower[d] < Upper[d].
	Lower, Upper []float64
}

// Settings tune the swarm. The zero value is the paper's setting: 1500
// particles, 200 iterations, seed 0.
type Settings struct {
	// Particles is the swarm size; default 1500 (Aboulnaga et al., Packing the Most Onto Your Cloud, CloudDB 2009, section 5.2).
	Particles int
	// Iterations is the number of velocity updates after the initial
	// evaluation; default 200 (Aboulnaga et al., Packing the Most Onto Your Cloud, CloudDB 2009, section 5.2).
	Iterations int
	// Cognitive and Social are the acceleration constants c1 and c2; default
	// 1.49445 each (Hu and Eberhart).
	Cognitive, Social float64
	// VelocityLimit bounds |v_d| as a fraction of Upper[d] − Lower[d];
	// default 0.5.
	VelocityLimit float64
	// Neighbors is the ring ("lbest") neighbourhood: particle i follows the
	// best personal best among particles i−n..i+n. Default 3. On rugged,
	// combinatorial objectives the global best (Hu and Eberhart's choice)
	// pulls the whole swarm onto the first good point within a few
	// iterations; a ring spreads good points slowly and keeps exploring. On
	// packer's phase problem (50 random 8-job workloads) the ring of 3 found
	// the optimum in 46 cases, the global best in 22 (swarm seed 0; the ring
	// found 45 with seed 1).
	Neighbors int
	// Global makes every particle follow the swarm's global best instead of
	// a ring, as in Hu and Eberhart; Neighbors is then ignored.
	Global bool
	// Seed seeds the only random generator the swarm uses.
	Seed uint64
	// Workers is the number of goroutines that evaluate particles; default
	// GOMAXPROCS. It changes the speed, never the result.
	Workers int
	// Initial are starting positions for the first particles (for example a
	// known good solution); each must lie in the box. An infeasible one is
	// treated like a particle that found no feasible start. The rest of the
	// swarm starts at random feasible points.
	Initial [][]float64
	// MaxInitTries bounds the random draws per particle when looking for a
	// feasible starting point; default 1000. A particle that finds none starts
	// at a copy of a feasible particle (an Initial one if any).
	MaxInitTries int
	// Recorder, if not nil, is called by Minimize's goroutine after the
	// initial evaluation (Iteration 0) and after every iteration.
	Recorder func(Progress)
	// Stop, if not nil, is asked before every evaluation of the objective
	// (on the Workers goroutines, so it must be safe for concurrent use)
	// and after every iteration; true ends the run early with the best point
	// after the last whole iteration (Result.Iterations says how many ran,
	// Stopped that Stop ended it): the iteration Stop cut is dropped, so a
	// Stop that says yes at the same call gives the same result whatever
	// GOMAXPROCS or Workers is. The Initial points are always evaluated, so a
	// run that has one feasible start returns it however soon Stop says yes.
	// Solvers use it for time and work limits and interrupts.
	Stop func() bool
}

// Progress is what a Recorder sees.
type Progress struct {
	Iteration, Iterations int
	// Best is the global best objective so far (+Inf while none is feasible).
	Best float64
	// Evaluations counts calls of Func so far.
	Evaluations int
}

// Status says how a run ended.
type Status int

// The ways a run ends.
const (
	// IterationLimit: the run made all its iterations; X is the best feasible
	// point found.
	IterationLimit Status = iota + 1
	// NoFeasiblePoint: no particle ever found a feasible point.
	NoFeasiblePoint
)

// String names the status.
func (s Status) String() string {
	switch s {
	case IterationLimit:
		return "IterationLimit"
	case NoFeasiblePoint:
		return "NoFeasiblePoint"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ErrNoFeasiblePoint is returned by Status.Err for NoFeasiblePoint.
var ErrNoFeasiblePoint = errors.New("pso: no feasible point found")

// Err is nil for a run that found a feasible point, else ErrNoFeasiblePoint.
func (s Status) Err() error {
	if s == NoFeasiblePoint {
		return ErrNoFeasiblePoint
	}
	return nil
}

// Result is the outcome of a run.
type Result struct {
	// X is the best feasible point found and F = Func(X).
	X []float64
	F float64
	// Status says how the run ended.
	Status Status
	// Iterations and Evaluations count the work done.
	Iterations, Evaluations int
	// Improved is the last iteration that improved the global best (0 when the
	// initial swarm's best was never beaten).
	Improved int
	// Stopped is true when Settings.Stop ended the run; Evaluations then
	// counts only the evaluations of the whole iterations kept.
	Stopped bool
	// Settings are the settings used, defaults filled in (Initial, Recorder
	// and Stop are cleared).
	Settings Settings
}

// validate fills defaults and rejects nonsense, naming the field.
func (s Settings) validate() (Settings, error) {
	setDefault(&s.Particles, 1500)
	setDefault(&s.Iterations, 200)
	setDefault(&s.Cognitive, 1.49445)
	setDefault(&s.Social, 1.49445)
	setDefault(&s.VelocityLimit, 0.5)
	setDefault(&s.Neighbors, 3)
	setDefault(&s.Workers, runtime.GOMAXPROCS(0))
	setDefault(&s.MaxInitTries, 1000)
	switch {
	case s.Particles < 1:
		return s, fmt.Errorf("pso: Particles must be at least 1, got %d", s.Particles)
	case s.Iterations < 0:
		return s, fmt.Errorf("pso: Iterations must not be negative, got %d", s.Iterations)
	case s.Cognitive < 0 || s.Social < 0 || math.IsNaN(s.Cognitive+s.Social) || math.IsInf(s.Cognitive+s.Social, 0):
		return s, fmt.Errorf("pso: Cognitive and Social must be finite and not negative, got %v and %v", s.Cognitive, s.Social)
	case !(s.VelocityLimit > 0) || math.IsInf(s.VelocityLimit, 0):
		return s, fmt.Errorf("pso: VelocityLimit must be finite and positive, got %v", s.VelocityLimit)
	case s.Neighbors < 0:
		return s, fmt.Errorf("pso: Neighbors must not be negative, got %d", s.Neighbors)
	case s.Workers < 1:
		return s, fmt.Errorf("pso: Workers must be at least 1, got %d", s.Workers)
	case s.MaxInitTries < 1:
		return s, fmt.Errorf("pso: MaxInitTries must be at least 1, got %d", s.MaxInitTries)
	case len(s.Initial) > s.Particles:
		return s, fmt.Errorf("pso: %d Initial positions for %d Particles", len(s.Initial), s.Particles)
	}
	return s, nil
}

func (p Problem) validate() error {
	if p.Func == nil {
		return errors.New("pso: Problem.Func is nil")
	}
	if len(p.Lower) == 0 || len(p.Lower) != len(p.Upper) {
		return fmt.Errorf("pso: Problem.Lower has %d coordinates and Upper %d; both need the problem's dimension, at least 1", len(p.Lower), len(p.Upper))
	}
	for d := range p.Lower {
		lo, hi := p.Lower[d], p.Upper[d]
		if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return fmt.Errorf("pso: coordinate %d: need finite Lower < Upper, got [%v, %v]", d, lo, hi)
		}
	}
	return nil
}

// Minimize runs the swarm. It returns an error for an invalid problem or
// settings; a run that finds no feasible point returns a Result with Status
// NoFeasiblePoint and the error Status.Err().
func Minimize(p Problem, settings *Settings) (*Result, error) {
	var s Settings
	if settings != nil {
		s = *settings
	}
	s, err := s.validate()
	if err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	dim := len(p.Lower)
	for i, x := range s.Initial {
		if len(x) != dim {
			return nil, fmt.Errorf("pso: Initial[%d] has %d coordinates, the problem %d", i, len(x), dim)
		}
		for d, v := range x {
			if !(v >= p.Lower[d] && v <= p.Upper[d]) {
				return nil, fmt.Errorf("pso: Initial[%d][%d] = %v lies outside [%v, %v]", i, d, v, p.Lower[d], p.Upper[d])
			}
		}
	}
	sw := newSwarm(p, s)
	sw.init()
	res := &Result{Settings: s}
	res.Settings.Initial, res.Settings.Recorder, res.Settings.Stop = nil, nil, nil
	sw.record(0)
	for it := 1; it <= s.Iterations && sw.best >= 0 && !sw.halted.Load(); it++ {
		sw.step()
		if sw.halted.Load() {
			break // the iteration Stop cut is dropped whole (evaluate)
		}
		if sw.updateBests() {
			res.Improved = it
		}
		res.Iterations = it
		sw.record(it)
		if !sw.halted.Load() && s.Stop != nil && s.Stop() {
			sw.halted.Store(true)
		}
	}
	res.Stopped = sw.halted.Load()
	res.Evaluations = sw.evals
	if sw.best < 0 {
		res.Status, res.F = NoFeasiblePoint, math.Inf(1)
		return res, res.Status.Err()
	}
	res.Status = IterationLimit
	res.X = append([]float64(nil), sw.pbest[sw.best]...)
	res.F = sw.pbestF[sw.best]
	return res, nil
}

// swarm is one run's state. Only evaluate runs on several goroutines, and it
// writes nothing but f[i] and feasible[i] for its own i.
type swarm struct {
	p        Problem
	s        Settings
	rng      *rand.Rand
	x, v     [][]float64
	f        []float64
	feasible []bool
	pbest    [][]float64
	pbestF   []float64
	hasBest  []bool
	best     int // particle holding the global best; −1 while none is feasible
	vmax     []float64
	evals    int
	// halted is set once Settings.Stop said yes: the particles not yet
	// evaluated are left infeasible, and the run ends.
	halted atomic.Bool
}

func newSwarm(p Problem, s Settings) *swarm {
	n, dim := s.Particles, len(p.Lower)
	sw := &swarm{p: p, s: s, rng: rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15)), best: -1,
		x: make([][]float64, n), v: make([][]float64, n), f: make([]float64, n), feasible: make([]bool, n),
		pbest: make([][]float64, n), pbestF: make([]float64, n), hasBest: make([]bool, n), vmax: make([]float64, dim)}
	for d := range dim {
		sw.vmax[d] = s.VelocityLimit * (p.Upper[d] - p.Lower[d])
	}
	for i := range n {
		sw.x[i] = make([]float64, dim)
		sw.v[i] = make([]float64, dim)
		sw.pbest[i] = make([]float64, dim)
	}
	return sw
}

// init places the particles: Initial positions first, then random points,
// redrawn (in rounds, so that draws stay in a fixed order while evaluation is
// parallel) until feasible or MaxInitTries is spent.
func (sw *swarm) init() {
	dim := len(sw.p.Lower)
	for i, x := range sw.s.Initial {
		copy(sw.x[i], x)
	}
	first := make([]int, len(sw.s.Initial))
	for i := range first {
		first[i] = i
	}
	sw.evaluateAll(first, false)
	pending := make([]int, 0, len(sw.x))
	for i := len(sw.s.Initial); i < len(sw.x); i++ {
		pending = append(pending, i)
	}
	for try := 0; try < sw.s.MaxInitTries && len(pending) > 0 && !sw.halted.Load(); try++ {
		for _, i := range pending {
			for d := range dim {
				sw.x[i][d] = sw.p.Lower[d] + sw.rng.Float64()*(sw.p.Upper[d]-sw.p.Lower[d])
			}
		}
		sw.evaluate(pending)
		still := pending[:0]
		for _, i := range pending {
			if !sw.feasible[i] {
				still = append(still, i)
			}
		}
		pending = still
	}
	for i := range sw.x {
		for d := range dim {
			sw.v[i][d] = (2*sw.rng.Float64() - 1) * sw.vmax[d] / 2
		}
	}
	sw.updateBests()
	if sw.best < 0 {
		return
	}
	// Particles that never found a feasible point start where the best one is;
	// their velocities differ, so they do not stay together.
	for i := range sw.x {
		if !sw.hasBest[i] {
			copy(sw.x[i], sw.pbest[sw.best])
			copy(sw.pbest[i], sw.pbest[sw.best])
			sw.pbestF[i], sw.hasBest[i] = sw.pbestF[sw.best], true
		}
	}
}

// step moves every particle once and evaluates the new positions.
func (sw *swarm) step() {
	c1, c2 := sw.s.Cognitive, sw.s.Social
	for i, x := range sw.x {
		g := sw.pbest[sw.leader(i)]
		w := 0.5 + sw.rng.Float64()/2
		v, pb := sw.v[i], sw.pbest[i]
		for d := range x {
			vd := w*v[d] + c1*sw.rng.Float64()*(pb[d]-x[d]) + c2*sw.rng.Float64()*(g[d]-x[d])
			vd = math.Max(-sw.vmax[d], math.Min(sw.vmax[d], vd))
			xd := x[d] + vd
			if xd < sw.p.Lower[d] {
				xd, vd = sw.p.Lower[d], 0
			} else if xd > sw.p.Upper[d] {
				xd, vd = sw.p.Upper[d], 0
			}
			x[d], v[d] = xd, vd
		}
	}
	all := make([]int, len(sw.x))
	for i := range all {
		all[i] = i
	}
	sw.evaluate(all)
}

// leader is the particle whose personal best particle i follows: the global
// best, or the best of its ring neighbourhood (on ties, itself, else the lowest offset).
func (sw *swarm) leader(i int) int {
	k := sw.s.Neighbors
	n := len(sw.x)
	if sw.s.Global || 2*k+1 >= n {
		return sw.best
	}
	b := i
	for o := -k; o <= k; o++ {
		j := (i + o + n) % n
		if sw.pbestF[j] < sw.pbestF[b] {
			b = j
		}
	}
	return b
}

// updateBests moves personal bests to feasible improvements and the global
// best to the best personal best, scanning particles in index order and
// moving only on a strict improvement, so the outcome does not depend on the
// order evaluations finished in. It reports whether the global best improved.
func (sw *swarm) updateBests() bool {
	before := math.Inf(1)
	if sw.best >= 0 {
		before = sw.pbestF[sw.best]
	}
	for i := range sw.x {
		if sw.feasible[i] && (!sw.hasBest[i] || sw.f[i] < sw.pbestF[i]) {
			copy(sw.pbest[i], sw.x[i])
			sw.pbestF[i], sw.hasBest[i] = sw.f[i], true
		}
		if sw.hasBest[i] && (sw.best < 0 || sw.pbestF[i] < sw.pbestF[sw.best]) {
			sw.best = i
		}
	}
	return sw.best >= 0 && sw.pbestF[sw.best] < before
}

// evaluate computes feasibility and the objective for the listed particles on
// Workers goroutines; each writes only its own particles' slots. Once
// Settings.Stop says yes, the particles left are marked infeasible unseen.
func (sw *swarm) evaluate(idx []int) { sw.evaluateAll(idx, true) }

// evaluateAll is evaluate; stoppable false evaluates every particle whatever
// Stop says (the Initial points).
func (sw *swarm) evaluateAll(idx []int, stoppable bool) {
	var evals atomic.Int64
	defer func() {
		if stoppable && sw.halted.Load() {
			// Which particles were evaluated before Stop said yes depends on
			// the goroutines' timing: drop the whole batch, so a stopped run
			// returns the state after its last whole batch, the same on any
			// core count, and counts only the evaluations it used.
			for _, i := range idx {
				sw.feasible[i], sw.f[i] = false, math.Inf(1)
			}
			return
		}
		sw.evals += int(evals.Load())
	}()
	one := func(i int) {
		x := sw.x[i]
		if stoppable && (sw.halted.Load() || (sw.s.Stop != nil && sw.s.Stop())) {
			sw.halted.Store(true)
			sw.feasible[i], sw.f[i] = false, math.Inf(1)
			return
		}
		evals.Add(1)
		if sw.p.Feasible != nil && !sw.p.Feasible(x) {
			sw.feasible[i], sw.f[i] = false, math.Inf(1)
			return
		}
		f := sw.p.Func(x)
		sw.feasible[i], sw.f[i] = !math.IsNaN(f), f
	}
	workers := min(sw.s.Workers, len(idx))
	if workers <= 1 {
		for _, i := range idx {
			one(i)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (len(idx) + workers - 1) / workers
	for w := 0; w < len(idx); w += chunk {
		part := idx[w:min(w+chunk, len(idx))]
		wg.Go(func() {
			for _, i := range part {
				one(i)
			}
		})
	}
	wg.Wait()
}

func (sw *swarm) record(it int) {
	if sw.s.Recorder == nil {
		return
	}
	best := math.Inf(1)
	if sw.best >= 0 {
		best = sw.pbestF[sw.best]
	}
	sw.s.Recorder(Progress{Iteration: it, Iterations: sw.s.Iterations, Best: best, Evaluations: sw.evals})
}

// setDefault sets *v to d when *v is the zero value, the "unset" of a
// settings field.
func setDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
