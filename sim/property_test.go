package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// runBytes runs the test workload file under p and returns the result as JSON
// followed by the whole trace: everything a run outputs.
func runBytes(t *testing.T, p Policy, seed uint64) []byte {
	data, err := os.ReadFile("testdata/small.json")
	if err != nil {
		t.Error(err)
		return nil
	}
	w, err := ParseWorkload(data, "small.json")
	if err != nil {
		t.Error(err)
		return nil
	}
	rec := &recorder{}
	r, err := Run(w, p, &Settings{Seed: seed, Trace: rec})
	if err != nil {
		t.Error(err)
		return nil
	}
	alone, err := Alone(w, &Settings{Seed: seed})
	if err != nil {
		t.Error(err)
		return nil
	}
	r.Summarize(alone)
	b, _ := json.Marshal(r)
	return append(b, strings.Join(rec.lines, "\n")...)
}

// TestDeterministic: the same seed gives byte-identical output, run after run
// and in concurrent runs (no shared state between runs); another seed places
// blocks elsewhere and changes it.
func TestDeterministic(t *testing.T) {
	policies := func() []Policy { return []Policy{&FIFO{}, &Fair{}, &Fair{Delay: 5, RackDelay: 3}, &Sequential{}} }
	for i, p := range policies() {
		first := runBytes(t, p, 42)
		if again := runBytes(t, p, 42); string(again) != string(first) {
			t.Errorf("%s: a second run with seed 42 differs", p.Name())
		}
		var wg sync.WaitGroup
		out := make([][]byte, 4)
		for g := range out {
			wg.Go(func() { out[g] = runBytes(t, policies()[i], 42) })
		}
		wg.Wait()
		for g := range out {
			if string(out[g]) != string(first) {
				t.Errorf("%s: concurrent run %d differs", p.Name(), g)
			}
		}
		if other := runBytes(t, p, 43); string(other) == string(first) {
			t.Errorf("%s: seeds 42 and 43 give the same output; the seed does nothing", p.Name())
		}
	}
}

// listFIFO is a dumb reference for FIFO without locality or reduces: take the
// tasks in FIFO order (submit time, then workload order) and give each the
// slot that frees first, starting at max(slot free, job's submit). It returns
// each job's finish time.
func listFIFO(w *Workload) []float64 {
	c := w.Cluster.WithDefaults()
	free := make([]float64, c.Nodes*c.MapSlots)
	order := make([]int, len(w.Jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return int(math.Copysign(1, w.Jobs[a].Arrival-w.Jobs[b].Arrival)) * btoi(w.Jobs[a].Arrival != w.Jobs[b].Arrival)
	})
	finish := make([]float64, len(w.Jobs))
	for _, j := range order {
		for k := range w.Jobs[j].Maps.N() {
			s := slices.Index(free, slices.Min(free))
			start := max(free[s], w.Jobs[j].Arrival)
			free[s] = start + w.Jobs[j].Maps.Duration(k)
			finish[j] = max(finish[j], free[s])
		}
	}
	return finish
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// randomWorkload draws jobs with random arrivals, task counts and durations.
func randomWorkload(rng *rand.Rand, reduces, input bool) *Workload {
	w := &Workload{Cluster: Cluster{Nodes: 1 + rng.IntN(12), MapSlots: 1 + rng.IntN(3), ReduceSlots: 1 + rng.IntN(2)}}
	w.Cluster.Racks = 1 + rng.IntN(w.Cluster.Nodes)
	for j := range 1 + rng.IntN(8) {
		d := make([]float64, 1+rng.IntN(30))
		for i := range d {
			d[i] = float64(1 + rng.IntN(20))
		}
		job := Job{Name: fmt.Sprint(j), Arrival: float64(rng.IntN(50)), Maps: Tasks{Durations: d}, NoInput: !input}
		if reduces && rng.IntN(2) == 0 {
			job.Reduces = Tasks{Count: 1 + rng.IntN(3), Mean: float64(1 + rng.IntN(10))}
			job.Shuffle = float64(rng.IntN(3))
		}
		w.Jobs = append(w.Jobs, job)
	}
	return w
}

// TestFIFOAgainstListScheduling cross-checks the event core against the dumb
// reference on random workloads: every job finishes at the same time.
func TestFIFOAgainstListScheduling(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for i := range 300 {
		w := randomWorkload(rng, false, false)
		r := mustRun(t, w, &FIFO{}, nil)
		want := listFIFO(w)
		for j := range w.Jobs {
			if r.Jobs[j].Finish != want[j] {
				t.Fatalf("case %d: job %d finishes at %v, list scheduling says %v", i, j, r.Jobs[j].Finish, want[j])
			}
		}
	}
}

// invariants checks a run's trace: no node ever runs more tasks of a kind
// than it has slots; every task ends exactly once, after it starts, having
// taken its base duration times its locality factor; no task starts before its
// job is submitted, no reduce before the job's last map ends plus the shuffle;
// a job finishes when its last task ends.
type invariants struct {
	t       *testing.T
	w       *Workload
	set     Settings
	base    []float64 // task → base duration, in compile order
	kind    []Kind
	job     []int
	running map[[2]int]int // (node, kind) → tasks
	started map[int]TraceEvent
	ended   map[int]bool
	lastMap map[int]float64
	lastEnd map[int]float64
	kills   int
}

func newInvariants(t *testing.T, w *Workload, set Settings) *invariants {
	v := &invariants{t: t, w: w, set: set, running: map[[2]int]int{}, started: map[int]TraceEvent{},
		ended: map[int]bool{}, lastMap: map[int]float64{}, lastEnd: map[int]float64{}}
	for j, job := range w.Jobs {
		for k := range job.Maps.N() {
			v.base, v.kind, v.job = append(v.base, job.Maps.Duration(k)), append(v.kind, Map), append(v.job, j)
		}
		for k := range job.Reduces.N() {
			v.base, v.kind, v.job = append(v.base, job.Reduces.Duration(k)), append(v.kind, Reduce), append(v.job, j)
		}
	}
	return v
}

func (v *invariants) Event(e TraceEvent) {
	c := v.w.Cluster.WithDefaults()
	switch e.Kind {
	case TraceStart:
		k := v.kind[e.Task]
		key := [2]int{e.Node, int(k)}
		v.running[key]++
		if slots := [2]int{c.MapSlots, c.ReduceSlots}[k]; v.running[key] > slots {
			v.t.Errorf("t = %v: node %d runs %d %s tasks on %d slots", e.Time, e.Node, v.running[key], k, slots)
		}
		if e.Time < v.w.Jobs[e.Job].Arrival {
			v.t.Errorf("task %d starts at %v before its job arrives at %v", e.Task, e.Time, v.w.Jobs[e.Job].Arrival)
		}
		if k == Reduce && e.Time < v.lastMap[e.Job]+v.w.Jobs[e.Job].Shuffle {
			v.t.Errorf("reduce %d starts at %v before maps end (%v) + shuffle", e.Task, e.Time, v.lastMap[e.Job])
		}
		v.started[e.Task] = e
	case TraceEnd:
		s, ok := v.started[e.Task]
		if !ok || v.ended[e.Task] {
			v.t.Errorf("task %d ends at %v without a start, or twice", e.Task, e.Time)
			return
		}
		v.ended[e.Task] = true
		v.running[[2]int{e.Node, int(v.kind[e.Task])}]--
		f := map[Locality]float64{NodeLocal: 1, NoInput: 1, RackLocal: v.set.RackFactor, Remote: v.set.RemoteFactor}[s.Locality]
		if want := v.base[e.Task] * f; math.Abs(e.Time-s.Time-want) > 1e-9*max(1, e.Time) {
			v.t.Errorf("task %d ran %v s, want %v (%s)", e.Task, e.Time-s.Time, want, s.Locality)
		}
		if v.kind[e.Task] == Map {
			v.lastMap[e.Job] = max(v.lastMap[e.Job], e.Time)
		}
		v.lastEnd[e.Job] = max(v.lastEnd[e.Job], e.Time)
	case TraceKill:
		if _, ok := v.started[e.Task]; !ok || v.ended[e.Task] {
			v.t.Errorf("task %d killed at %v without running", e.Task, e.Time)
		}
		v.running[[2]int{e.Node, int(v.kind[e.Task])}]--
		delete(v.started, e.Task)
		v.kills++
	case TraceFinish:
		if e.Time != v.lastEnd[e.Job] {
			v.t.Errorf("job %d finishes at %v, its last task ends at %v", e.Job, e.Time, v.lastEnd[e.Job])
		}
	}
}

// TestInvariantsRandom runs every policy on random workloads, with and
// without input blocks, reduces and heartbeats, and checks the invariants
// and that every task ran.
func TestInvariantsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	kills := 0
	for i := range 150 {
		w := randomWorkload(rng, true, i%2 == 0)
		set := Settings{Seed: uint64(i), RackFactor: 1.25, RemoteFactor: 2}
		if i%3 == 0 {
			set.Heartbeat = 0.5 + rng.Float64()*3
		}
		// lifo kills tasks at every tick: the requeue path under the same checks.
		for _, p := range []Policy{&FIFO{}, &Fair{}, &Fair{Delay: 3, RackDelay: 2}, &Sequential{}, &lifo{interval: 3}} {
			v := newInvariants(t, w, set)
			set.Trace = v
			r := mustRun(t, w, p, &set)
			kills += v.kills
			if len(v.ended) != w.Tasks() {
				t.Fatalf("case %d, %s: %d of %d tasks ran", i, p.Name(), len(v.ended), w.Tasks())
			}
			for j, jr := range r.Jobs {
				if jr.Start < jr.Submit || jr.Finish <= jr.Start {
					t.Errorf("case %d, %s: job %d submit %v start %v finish %v", i, p.Name(), j, jr.Submit, jr.Start, jr.Finish)
				}
			}
		}
	}
	if kills == 0 {
		t.Error("lifo killed no task: the requeue path went untested")
	}
	t.Logf("%d tasks killed and run again", kills)
}
