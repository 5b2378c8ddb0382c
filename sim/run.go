package sim

import (
	"runtime"

	"github.com/packer-sched/packer/sim/internal/engine"
)

// bigRun is the number of tasks from which Run collects garbage before it
// allocates: a collection costs about a millisecond, a run of this size a second.
const bigRun = 1_000_000

// ErrStalled is returned by Run when a policy leaves jobs unfinished with
// nothing left to happen (it answered Idle to every offer and woke no node):
// a fault of the policy, not of the input.
var ErrStalled = engine.ErrStalled

// Run simulates workload w under policy p. A nil Settings is the zero
// Settings. The workload is validated first; its errors wrap
// ErrInvalidWorkload.
func Run(w *Workload, p Policy, set *Settings) (*Result, error) {
	return runWith(w, p, set, engine.DefaultOptions())
}

// runWith is Run with the engine's speed switches opts, for tests that hold
// a fast path to its plain twin (engine.Options).
func runWith(w *Workload, p Policy, set *Settings, opts engine.Options) (*Result, error) {
	st, err := checked(w, set)
	if err != nil {
		return nil, err
	}
	if w.Tasks() >= bigRun {
		// The previous run's state is garbage now, but the collector would let
		// the heap grow to twice what was live before reclaiming it: collect
		// first, so that a sequence of runs peaks at one run's memory.
		runtime.GC()
	}
	s := &State{w: w}
	s.e = engine.Compile(nil, input(w), config(&st, p), opts)
	if err := s.e.Run(hooks(s, p)); err != nil {
		return nil, err
	}
	return s.result(p, st.Seed), nil
}

// checked is set with its defaults, once w is valid and fits the memory
// limit.
func checked(w *Workload, set *Settings) (Settings, error) {
	st, err := set.withDefaults()
	if err != nil {
		return st, err
	}
	if err := w.Validate(); err != nil {
		return st, err
	}
	return st, checkMemory(w, st.MaxMemory)
}

// input is w as the engine reads it.
func input(w *Workload) *engine.Input {
	return &engine.Input{Cluster: engine.Cluster(w.Cluster.WithDefaults()), Jobs: len(w.Jobs), Job: func(i int) engine.Job {
		j := &w.Jobs[i]
		return engine.Job{Arrival: j.Arrival, User: j.User, Maps: engine.Tasks(j.Maps), Reduces: engine.Tasks(j.Reduces),
			Shuffle: j.Shuffle, NoInput: j.NoInput, Blocks: j.Blocks}
	}}
}

// config is what the engine reads of st (defaults set), for a run of p.
func config(st *Settings, p Policy) engine.Config {
	c := engine.Config{Seed: st.Seed, Heartbeat: st.Heartbeat, IdleRetry: st.IdleRetry, RackFactor: st.RackFactor,
		RemoteFactor: st.RemoteFactor, ReduceSlowstart: st.ReduceSlowstart, IgnoreLocality: st.IgnoreLocality}
	if st.Trace != nil {
		c.Trace = tracer{st.Trace}
	}
	if report := st.Progress; report != nil {
		name := p.Name()
		c.Progress = func(now float64, done, tasks int) {
			report(Progress{Policy: name, Time: now, TasksDone: done, Tasks: tasks})
		}
	}
	return c
}

// tracer hands the engine's events on as TraceEvents.
type tracer struct{ t Tracer }

func (t tracer) Event(e engine.TraceEvent) {
	t.t.Event(TraceEvent{Time: e.Time, Kind: TraceKind(e.Kind), Job: e.Job, Task: e.Task, Node: e.Node, Locality: Locality(e.Locality)})
}

// hooks is p bound to s, as the engine calls it: one call of the engine's
// is one call of p's, and a hook p lacks is nil, never called.
func hooks(s *State, p Policy) engine.Hooks {
	h := engine.Hooks{Name: p.Name(), Assign: func(node int, k engine.Kind) int { return p.Assign(s, node, Kind(k)) }}
	if o, ok := p.(Starter); ok {
		h.Start = func() { o.Start(s) }
	}
	if o, ok := p.(OfferObserver); ok {
		h.Offering = func(node int) { o.Offering(s, node) }
	}
	if o, ok := p.(ArrivalObserver); ok {
		h.JobArrived = func(j int) { o.JobArrived(s, j) }
	}
	if o, ok := p.(TaskObserver); ok {
		h.TaskEnded = func(t int) { o.TaskEnded(s, t) }
	}
	if o, ok := p.(RunnableObserver); ok {
		h.RunnableChanged = func(j int, k engine.Kind, runnable bool) { o.RunnableChanged(s, j, Kind(k), runnable) }
	}
	if o, ok := p.(FinishObserver); ok {
		h.JobFinished = func(j int) { o.JobFinished(s, j) }
	}
	if o, ok := p.(Periodic); ok {
		h.Interval, h.Tick = o.Interval, func() { o.Tick(s) }
	}
	_, h.Sticky = p.(StickySlots)
	return h
}

// result is the Result of s's run under p, once it ended.
func (s *State) result(p Policy, seed uint64) *Result {
	e := s.e
	r := &Result{Policy: p.Name(), Seed: seed, Makespan: e.LastEnd(), Events: e.Events(),
		Tasks: e.Tasks(), BusySlotSeconds: e.Busy()}
	for k := range r.Utilisation {
		if cap := float64(e.Nodes()*e.Slots(engine.Kind(k))) * r.Makespan; cap > 0 {
			r.Utilisation[k] = r.BusySlotSeconds[k] / cap
		}
	}
	r.Jobs = make([]JobResult, e.Jobs())
	for j := range r.Jobs {
		o := e.Outcome(j)
		loc := LocalityCounts{Node: o.Loc[NodeLocal], Rack: o.Loc[RackLocal], Remote: o.Loc[Remote], None: o.Loc[NoInput]}
		r.Jobs[j] = JobResult{Name: s.w.Jobs[j].Name, User: s.w.Jobs[j].User, Submit: o.Arrival, Start: o.Start,
			Finish: o.Finish, Response: o.Finish - o.Arrival, Locality: loc}
		r.Locality.add(loc)
	}
	r.Summarize(nil)
	return r
}
