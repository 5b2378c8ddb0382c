package engine

import "github.com/packer-sched/packer/sim/internal/reference"

// CompileReference lays out a run of in, as Compile does, to be run by the
// reference engine (sim/internal/reference) rather than this one: Run then
// shows the policy a State whose records are copied from the reference
// engine before every call into the policy, and the policy's actions (Kill,
// Wake, SetSlowdown, BestLocality, NodeLocal) go to the reference engine
// (State.ref). It is how sim's tests run every policy on both engines.
func CompileReference(in *Input, cfg Config) *State {
	s := layout(nil, in, cfg, DefaultOptions()) // the records the policy reads; nothing of this engine
	c := s.cluster
	jobs := make([]reference.Job, in.Jobs)
	for j := range jobs {
		job := in.Job(j)
		jobs[j] = reference.Job{Arrival: job.Arrival, Shuffle: job.Shuffle, NoInput: job.NoInput, Blocks: job.Blocks,
			Maps: durations(job.Maps), Reduces: durations(job.Reduces)}
	}
	e := reference.New(reference.Cluster{Nodes: c.Nodes, Racks: c.Racks, MapSlots: c.MapSlots, ReduceSlots: c.ReduceSlots,
		Replication: c.Replication, Extras: c.Extras}, jobs,
		reference.Settings{Seed: cfg.Seed, Heartbeat: cfg.Heartbeat, IdleRetry: cfg.IdleRetry, RackFactor: cfg.RackFactor,
			RemoteFactor: cfg.RemoteFactor, ReduceSlowstart: cfg.ReduceSlowstart, IgnoreLocality: cfg.IgnoreLocality})
	s.ref = &refAdapter{s: s, e: e}
	return s
}

// refAdapter runs a policy (its Hooks) on the reference engine.
type refAdapter struct {
	s *State
	e *reference.Engine
	h Hooks
}

// run is Run on the reference engine.
func (a *refAdapter) run(h Hooks) error {
	a.h, a.s.hooks = h, h
	if err := a.e.Run(a); err != nil {
		return err
	}
	a.sync()
	a.s.busy, a.s.lastEnd = a.e.Busy, a.e.LastEnd
	return nil
}

func durations(ts Tasks) []float64 {
	d := make([]float64, ts.N())
	for i := range d {
		d[i] = ts.Duration(i)
	}
	return d
}

// sync copies what changed in the engine into the State the policy reads.
func (a *refAdapter) sync() {
	s, e := a.s, a.e
	s.now = e.Now
	s.found.ok = false // BestLocality's cached answer is of the state before
	for _, j := range e.DirtyJobs {
		js, jr := &e.Jobs[j], &s.jobs[j]
		jr.arrived, jr.finished, jr.redsReady, jr.mapsShuffled = js.Arrived, js.Finished, js.RedsReady, js.Shuffled
		jr.started, jr.start, jr.finish = js.Started, js.Start, js.Finish
		for k := range 2 {
			jr.pending[k], jr.running[k], jr.done[k] = int32(js.Pending[k]), int32(js.Running[k]), int32(js.Done[k])
		}
		for l := range jr.loc {
			jr.loc[l] = int32(js.Loc[l])
		}
	}
	for _, t := range e.DirtyTasks {
		ts, tr := &e.Tasks[t], &s.tasks[t]
		tr.node, tr.start, tr.state, tr.loc, tr.held = int32(ts.Node), ts.Start, ts.State, Locality(ts.Loc), ts.Held
	}
	for _, n := range e.DirtyNodes {
		for k := range 2 {
			s.free[k][n] = int16(e.Free[k][n])
			for i, t := range e.SlotTask[k][n] {
				s.slotTask[k][n*s.slots[k]+i] = int32(t)
			}
		}
	}
	e.DirtyJobs, e.DirtyTasks, e.DirtyNodes = e.DirtyJobs[:0], e.DirtyTasks[:0], e.DirtyNodes[:0]
	for k := range 2 {
		for _, j := range s.runnable[k] {
			s.jobs[j].runPos[k] = -1
		}
		s.runnable[k] = s.runnable[k][:0]
		for i, j := range e.Runnable[k] {
			s.runnable[k] = append(s.runnable[k], int32(j))
			s.jobs[j].runPos[k] = int32(i)
		}
	}
	copy(s.slow, e.Slow)
}

func (a *refAdapter) Start() {
	a.sync()
	if st := a.h.Start; st != nil {
		st()
	}
}

func (a *refAdapter) Assign(node int, k reference.Kind) int {
	a.sync()
	return a.h.Assign(node, Kind(k))
}

func (a *refAdapter) Offering(node int) {
	if a.h.Offering != nil {
		a.sync()
		a.h.Offering(node)
	}
}

func (a *refAdapter) JobArrived(j int) {
	if a.h.JobArrived != nil {
		a.sync()
		a.h.JobArrived(j)
	}
}

func (a *refAdapter) TaskEnded(t int) {
	if a.h.TaskEnded != nil {
		a.sync()
		a.h.TaskEnded(t)
	}
}

func (a *refAdapter) JobFinished(j int) {
	if a.h.JobFinished != nil {
		a.sync()
		a.h.JobFinished(j)
	}
}

func (a *refAdapter) RunnableChanged(j int, k reference.Kind, runnable bool) {
	if a.h.RunnableChanged != nil {
		a.sync()
		a.h.RunnableChanged(j, Kind(k), runnable)
	}
}

func (a *refAdapter) Changed(j int, k reference.Kind) { a.s.noteChanged(j, Kind(k)) }

func (a *refAdapter) Interval() float64 {
	if a.h.Interval == nil {
		return 0
	}
	return a.h.Interval()
}

func (a *refAdapter) Tick() {
	a.sync()
	a.h.Tick()
}

// The policy's actions, which State sends here when ref is set.

func (a *refAdapter) kill(t int) bool {
	ok := a.e.Kill(t)
	a.sync()
	return ok
}

func (a *refAdapter) wake(node int) { a.e.Wake(node) }

func (a *refAdapter) setSlowdown(node int, f float64) { a.e.Slow[node] = f; a.s.slow[node] = f }

func (a *refAdapter) bestLocality(j, node int, k Kind) Locality {
	_, l := a.e.Choose(j, node, reference.Kind(k))
	return Locality(l)
}
