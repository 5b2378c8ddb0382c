package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim/internal/reference"
	"github.com/packer-sched/packer/workloads"
)

// refAdapter runs a Policy on the reference engine: the policy reads a State
// whose fields are copied from the engine before every call into the
// policy, and its actions (Kill, Wake, SetSlowdown, BestLocality, NodeLocal)
// go to the engine (State.ref).
type refAdapter struct {
	s   *State
	e   *reference.Engine
	p   Policy
	per Periodic
}

// runReference is Run on the reference engine.
func runReference(w *Workload, p Policy, set *Settings) (*Result, error) {
	st, err := set.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	s := layout(nil, w, st, defaultEngine()) // the records the policy reads; nothing of the engine
	c := s.cluster
	jobs := make([]reference.Job, len(w.Jobs))
	for j, job := range w.Jobs {
		jobs[j] = reference.Job{Arrival: job.Arrival, Shuffle: job.Shuffle, NoInput: job.NoInput, Blocks: job.Blocks,
			Maps: durations(job.Maps), Reduces: durations(job.Reduces)}
	}
	e := reference.New(reference.Cluster{Nodes: c.Nodes, Racks: c.Racks, MapSlots: c.MapSlots, ReduceSlots: c.ReduceSlots,
		Replication: c.Replication, Extras: c.Extras}, jobs,
		reference.Settings{Seed: st.Seed, Heartbeat: st.Heartbeat, IdleRetry: st.IdleRetry, RackFactor: st.RackFactor,
			RemoteFactor: st.RemoteFactor, ReduceSlowstart: st.ReduceSlowstart, IgnoreLocality: st.IgnoreLocality})
	a := &refAdapter{s: s, e: e, p: p}
	a.per, _ = p.(Periodic)
	s.ref, s.policy = a, p
	if err := e.Run(a); err != nil {
		return nil, err
	}
	a.sync()
	s.busy, s.lastEnd = e.Busy, e.LastEnd
	return s.result(), nil
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
	if st, ok := a.p.(Starter); ok {
		st.Start(a.s)
	}
}

func (a *refAdapter) Assign(node int, k reference.Kind) int {
	a.sync()
	return a.p.Assign(a.s, node, Kind(k))
}

func (a *refAdapter) Offering(node int) {
	if o, ok := a.p.(OfferObserver); ok {
		a.sync()
		o.Offering(a.s, node)
	}
}

func (a *refAdapter) JobArrived(j int) {
	if o, ok := a.p.(ArrivalObserver); ok {
		a.sync()
		o.JobArrived(a.s, j)
	}
}

func (a *refAdapter) TaskEnded(t int) {
	if o, ok := a.p.(TaskObserver); ok {
		a.sync()
		o.TaskEnded(a.s, t)
	}
}

func (a *refAdapter) JobFinished(j int) {
	if o, ok := a.p.(FinishObserver); ok {
		a.sync()
		o.JobFinished(a.s, j)
	}
}

func (a *refAdapter) RunnableChanged(j int, k reference.Kind, runnable bool) {
	if o, ok := a.p.(RunnableObserver); ok {
		a.sync()
		o.RunnableChanged(a.s, j, Kind(k), runnable)
	}
}

func (a *refAdapter) Changed(j int, k reference.Kind) { a.s.noteChanged(j, Kind(k)) }

func (a *refAdapter) Interval() float64 {
	if a.per == nil {
		return 0
	}
	return a.per.Interval()
}

func (a *refAdapter) Tick() {
	a.sync()
	a.per.Tick(a.s)
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

// sameJobs reports the first job whose result differs, or "".
func sameJobs(fast, ref *Result) string {
	if len(fast.Jobs) != len(ref.Jobs) {
		return fmt.Sprintf("%d jobs against %d", len(fast.Jobs), len(ref.Jobs))
	}
	for j := range fast.Jobs {
		f, r := fast.Jobs[j], ref.Jobs[j]
		if f.Start != r.Start || f.Finish != r.Finish || f.Locality != r.Locality {
			return fmt.Sprintf("job %d (%s): fast engine start %v finish %v locality %+v, reference start %v finish %v locality %+v",
				j, f.Name, f.Start, f.Finish, f.Locality, r.Start, r.Finish, r.Locality)
		}
	}
	if fast.Makespan != ref.Makespan || fast.BusySlotSeconds != ref.BusySlotSeconds {
		return fmt.Sprintf("makespan %v busy %v against %v busy %v", fast.Makespan, fast.BusySlotSeconds, ref.Makespan, ref.BusySlotSeconds)
	}
	return ""
}

// builtinPolicies builds every policy of the registry that is built by
// name (registered ones too: in this test binary, ExamplePolicy's),
// fair also with delay scheduling.
func builtinPolicies(t *testing.T) []Policy {
	var ps []Policy
	for _, name := range PolicyNames() {
		if strings.Contains(name, ":") {
			continue // a form with a parameter (fair:D): built below
		}
		p, err := ParsePolicy(name, &PolicyOptions{})
		if errors.Is(err, ErrNeedsPlan) {
			continue // a plan replay: TestPlanReplayOnBothEngines compares it
		}
		if err != nil {
			t.Fatalf("policy %s: %v", name, err)
		}
		ps = append(ps, p)
	}
	for _, o := range []PolicyOptions{{Delay: 3}, {Delay: 3, RackDelay: 2}} {
		p, err := ParsePolicy("fair", &o)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if len(ps) < 8 {
		t.Fatalf("only %d policies built by name: %v", len(ps), PolicyNames())
	}
	return ps
}

// compareEngines runs w under every policy on both engines and reports the
// first difference.
func compareEngines(t *testing.T, label string, w *Workload, set *Settings, ps []Policy) {
	t.Helper()
	compareEnginesWith(t, label, w, set, ps, defaultEngine())
}

// compareEnginesWith is compareEngines with the fast engine's switches.
func compareEnginesWith(t *testing.T, label string, w *Workload, set *Settings, ps []Policy, opts engineOptions) (kills int) {
	t.Helper()
	for _, p := range ps {
		traced := *set
		count := &killCounter{}
		traced.Trace = count
		fast, ferr := runWith(w, p, &traced, opts)
		kills += count.kills
		ref, rerr := runReference(w, p, set)
		if (ferr == nil) != (rerr == nil) {
			t.Errorf("%s, %s: fast engine error %v, reference %v", label, p.Name(), ferr, rerr)
			continue
		}
		if ferr != nil {
			continue
		}
		if d := sameJobs(fast, ref); d != "" {
			t.Errorf("%s, %s: %s", label, p.Name(), d)
		}
	}
	return kills
}

// TestReferenceRandom: every built-in policy gives the same per-job results
// on both engines, on random clusters, workloads and settings.
func TestReferenceRandom(t *testing.T) {
	t.Parallel()
	ps := builtinPolicies(t)
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 38))
		w := randomWorkload(rng, seed%2 == 0, seed%3 != 0)
		for j := range w.Jobs {
			w.Jobs[j].User = fmt.Sprint("u", rng.IntN(3))
			w.Jobs[j].Priority = rng.IntN(2)
		}
		set := &Settings{Seed: seed}
		switch seed % 4 {
		case 1:
			set.Heartbeat = float64(1 + rng.IntN(3))
		case 2:
			set.ReduceSlowstart = 0.5
		case 3:
			set.IgnoreLocality = seed%8 == 3
		}
		compareEngines(t, fmt.Sprintf("seed %d", seed), w, set, ps)
	}
}

// bigWorkload is a random workload on a cluster of up to 300 nodes in up to
// 12 racks, with up to 40 jobs of up to 300 maps: big enough for the fast
// engine's block indexes, filters and event ring to matter.
func bigWorkload(rng *rand.Rand) *Workload {
	w := &Workload{Cluster: Cluster{Nodes: 20 + rng.IntN(280), Racks: 1 + rng.IntN(12), MapSlots: 1 + rng.IntN(3), ReduceSlots: 1 + rng.IntN(2)}}
	for j := range 5 + rng.IntN(35) {
		d := make([]float64, 1+rng.IntN(300))
		for i := range d {
			d[i] = 1 + rng.Float64()*40
		}
		job := Job{Name: fmt.Sprint(j), User: fmt.Sprint("u", rng.IntN(4)), Arrival: float64(rng.IntN(400)),
			Maps: Tasks{Durations: d}, NoInput: rng.IntN(6) == 0}
		if rng.IntN(2) == 0 {
			job.Reduces = Tasks{Count: 1 + rng.IntN(20), Mean: 1 + rng.Float64()*30}
			job.Shuffle = rng.Float64() * 5
		}
		w.Jobs = append(w.Jobs, job)
	}
	return w
}

// TestReferenceEngineSwitches: the fast engine under every setting of its
// speed switches (prefetching from the first task, each kind of block
// filter, eager sweeps) agrees with the reference on larger clusters.
func TestReferenceEngineSwitches(t *testing.T) {
	t.Parallel()
	ps := builtinPolicies(t)
	switches := map[string]func(*engineOptions){
		"default":      func(*engineOptions) {},
		"prefetch":     func(o *engineOptions) { o.prefetchFrom = 0 },
		"rack filters": func(o *engineOptions) { o.finestFilter = filterRacks },
		"no filters":   func(o *engineOptions) { o.finestFilter = filterNone },
		"eager sweeps": func(o *engineOptions) { o.eagerSweeps = true },
	}
	n := uint64(6)
	if testing.Short() {
		n = 2
	}
	kills := 0 // tasks preempted in the runs compared: the requeued path is compared too
	for seed := range n {
		rng := rand.New(rand.NewPCG(seed, 3800))
		w := bigWorkload(rng)
		set := &Settings{Seed: seed}
		if seed%3 == 1 {
			set.Heartbeat = 3
		}
		for name, change := range switches {
			opts := defaultEngine()
			change(&opts)
			kills += compareEnginesWith(t, fmt.Sprintf("seed %d, %s", seed, name), w, set, ps, opts)
		}
	}
	if kills == 0 {
		t.Error("no task was killed in any run compared: the requeued path went unchecked")
	}
}

// TestReferenceBuiltinWorkloads: the packing paper's workloads W1–W6, as
// sim builds them from their job models, agree on both engines.
func TestReferenceBuiltinWorkloads(t *testing.T) {
	t.Parallel()
	ps := builtinPolicies(t)
	for _, name := range workloads.Names() {
		mw, err := workloads.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		w, err := FromModel(mw, Cluster{Nodes: 18, Racks: 2}, 2)
		if err != nil {
			t.Fatal(err)
		}
		compareEngines(t, name, w, &Settings{Seed: 7}, ps)
	}
}

type killCounter struct{ kills int }

func (k *killCounter) Event(e TraceEvent) {
	if e.Kind == TraceKill {
		k.kills++
	}
}
