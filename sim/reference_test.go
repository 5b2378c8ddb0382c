package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim/internal/engine"
	"github.com/packer-sched/packer/workloads"
)

// runReference is Run on the reference engine (engine.CompileReference).
func runReference(w *Workload, p Policy, set *Settings) (*Result, error) {
	st, err := checked(w, set)
	if err != nil {
		return nil, err
	}
	s := &State{w: w}
	s.e = engine.CompileReference(input(w), config(&st, p))
	if err := s.e.Run(hooks(s, p)); err != nil {
		return nil, err
	}
	return s.result(p, st.Seed), nil
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
	compareEnginesWith(t, label, w, set, ps, engine.DefaultOptions())
}

// compareEnginesWith is compareEngines with the fast engine's switches.
func compareEnginesWith(t *testing.T, label string, w *Workload, set *Settings, ps []Policy, opts engine.Options) (kills int) {
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
	switches := map[string]func(*engine.Options){
		"default":      func(*engine.Options) {},
		"prefetch":     func(o *engine.Options) { o.PrefetchFrom = 0 },
		"rack filters": func(o *engine.Options) { o.FinestFilter = engine.FilterRacks },
		"no filters":   func(o *engine.Options) { o.FinestFilter = engine.FilterNone },
		"eager sweeps": func(o *engine.Options) { o.EagerSweeps = true },
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
			opts := engine.DefaultOptions()
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
