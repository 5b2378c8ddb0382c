package sim_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/packer-sched/packer/sim"
)

// tracerFunc counts a run's events.
type tracerFunc func(sim.TraceEvent)

func (f tracerFunc) Event(e sim.TraceEvent) { f(e) }

// TestCompare: the example's workload (one node, two map slots; A 4 maps ×
// 10 s, B 2 maps × 5 s) under fifo, fair and a stand-in replay. FIFO: A 0–20,
// B 20–25; fair: B 0–10, A 0–30. Alone A takes 20 s and B 5 s, so FIFO's
// slowdowns are 1 and 5, fair's 1.5 and 2.
func TestCompare(t *testing.T) {
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 1, MapSlots: 2}, Jobs: []sim.Job{
		{Name: "A", Maps: sim.Tasks{Count: 4, Mean: 10}},
		{Name: "B", Maps: sim.Tasks{Count: 2, Mean: 5}},
	}}
	es, err := sim.ParsePolicies([]string{"fifo", "fair", "plan-no-barrier"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The replay's workload: B alone, so its alone times (5 s) are its own.
	replayW := &sim.Workload{Cluster: w.Cluster, Jobs: w.Jobs[1:]}
	var barriers []bool
	events := map[string]int{}
	c := &sim.Comparison{Workload: w, Entries: es, Settings: sim.Settings{IgnoreLocality: true},
		Replay: func(barrier bool) (*sim.Workload, sim.Policy, error) {
			barriers = append(barriers, barrier)
			return replayW, &sim.Sequential{}, nil
		},
		Trace: func(policy string, _ *sim.Workload) sim.Tracer {
			return tracerFunc(func(sim.TraceEvent) { events[policy]++ })
		}}
	out, err := sim.Compare(c)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		policy         string
		finish, slowdn []float64
	}
	want := []row{{"fifo", []float64{20, 25}, []float64{1, 5}}, {"fair", []float64{30, 10}, []float64{1.5, 2}}, {"sequential", []float64{5}, []float64{1}}}
	if len(out) != len(want) {
		t.Fatalf("%d outcomes, want %d", len(out), len(want))
	}
	for i, o := range out {
		if o.Result.Policy != want[i].policy || o.Entry.Name != es[i].Name {
			t.Errorf("outcome %d: policy %s entry %s", i, o.Result.Policy, o.Entry.Name)
		}
		for j, jr := range o.Result.Jobs {
			if jr.Finish != want[i].finish[j] || jr.Slowdown != want[i].slowdn[j] {
				t.Errorf("%s job %s: finish %v slowdown %v, want %v and %v", o.Result.Policy, jr.Name, jr.Finish, jr.Slowdown, want[i].finish[j], want[i].slowdn[j])
			}
		}
	}
	if out[0].Workload != w || out[2].Workload != replayW || len(barriers) != 1 || barriers[0] {
		t.Errorf("workloads or replay calls wrong: barriers %v", barriers)
	}
	// Per run: every task starts and ends, every job arrives and finishes:
	// 2·6 + 2·2 = 16 events, and 2·2 + 2·1 = 6 for the replay's one job.
	if events["fifo"] != 16 || events["fair"] != 16 || events["sequential"] != 6 {
		t.Errorf("trace events %v", events)
	}

	c.Replay = nil
	if _, err := sim.Compare(c); !errors.Is(err, sim.ErrNeedsPlan) {
		t.Errorf("no Replay: error %v, want ErrNeedsPlan", err)
	}
	bad := errors.New("no such plan")
	c.Replay = func(bool) (*sim.Workload, sim.Policy, error) { return nil, nil, bad }
	if _, err := sim.Compare(c); err != bad {
		t.Errorf("Replay's error came back as %v", err)
	}
}

// TestARFF: one node, one map slot; A 2 maps × 10 s, B 1 map × 5 s, both at
// 0, under FIFO: A 0–20, B waits 20 s and runs 20–25, expansion (5 + 20) ÷ 5
// = 5. Means over the jobs are 1.5 tasks and 7.5 s per task, so A is large
// and long (LL) and B small and short (SS); B's level comes from levels.
func TestARFF(t *testing.T) {
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 1, MapSlots: 1, Replication: 1}, Jobs: []sim.Job{
		{Name: "A", NoInput: true, Maps: sim.Tasks{Count: 2, Mean: 10}},
		{Name: "B", NoInput: true, Maps: sim.Tasks{Count: 1, Mean: 5}},
	}}
	es, _ := sim.ParsePolicies([]string{"fifo"}, nil)
	out, err := sim.Compare(&sim.Comparison{Workload: w, Entries: es})
	if err != nil {
		t.Fatal(err)
	}
	got := string(sim.ARFF(out, map[string]float64{"B": 0.25}))
	for _, want := range []string{"@relation packer-simulate\n", "@attribute class {SS,SL,LS,LL}\n",
		"@data\n'fifo','A',2,10,0,1,20,20,1,LL\n'fifo','B',1,5,20,0.25,5,25,5,SS\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("ARFF lacks %q:\n%s", want, got)
		}
	}
}

// TestCompareSideBySide: the same comparison one run at a time and four at
// once gives the same outcomes (each run is its own, seeded alike), alone
// times included; run with -race it also checks that runs share nothing.
func TestCompareSideBySide(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 12, Racks: 3, MapSlots: 2, ReduceSlots: 1}}
	var at float64
	for j := range 40 {
		d := make([]float64, 1+rng.IntN(30))
		for i := range d {
			d[i] = 1 + 20*rng.Float64()
		}
		w.Jobs = append(w.Jobs, sim.Job{Name: fmt.Sprint("j", j), User: fmt.Sprint("u", j%3), Arrival: at,
			Maps: sim.Tasks{Durations: d}, Reduces: sim.Tasks{Count: rng.IntN(4), Mean: 5}})
		at += 10 * rng.ExpFloat64()
	}
	names := []string{"fifo", "fair", "fair:3", "dp", "hybs", "tyrex-static", "tyrex-dynamic", "fair-by-tasks", "plan", "plan-no-barrier"}
	// The replays share one workload of their own (its first ten jobs), as
	// the plan's replays do.
	replayW := &sim.Workload{Cluster: w.Cluster, Jobs: w.Jobs[:10]}
	run := func(parallel int) []sim.Outcome {
		es, err := sim.ParsePolicies(names, nil)
		if err != nil {
			t.Fatal(err)
		}
		var reports atomic.Int64
		out, err := sim.Compare(&sim.Comparison{Workload: w, Entries: es, Parallel: parallel,
			Replay:   func(bool) (*sim.Workload, sim.Policy, error) { return replayW, &sim.Sequential{}, nil },
			Settings: sim.Settings{Seed: 3, Heartbeat: 1, Progress: func(sim.Progress) { reports.Add(1) }}})
		if err != nil {
			t.Fatal(err)
		}
		if reports.Load() < int64(len(names)) {
			t.Errorf("parallel %d: %d progress reports, want one at least per run", parallel, reports.Load())
		}
		return out
	}
	one, four := run(1), run(4)
	for i := range one {
		if !reflect.DeepEqual(one[i].Result, four[i].Result) {
			t.Errorf("%s: one at a time and four at once differ:\n%+v\n%+v", names[i], one[i].Result, four[i].Result)
		}
	}
	// Alone runs its jobs side by side too: its times must be the
	// denominators of the slowdowns the one-at-a-time comparison computed.
	a, err := sim.Alone(w, &sim.Settings{Seed: 3, Heartbeat: 1})
	if err != nil {
		t.Fatal(err)
	}
	for j, jr := range one[0].Result.Jobs {
		if jr.Response/a[j] != jr.Slowdown {
			t.Errorf("job %s: response %v, slowdown %v, but Alone gives %v", jr.Name, jr.Response, jr.Slowdown, a[j])
		}
	}
}
