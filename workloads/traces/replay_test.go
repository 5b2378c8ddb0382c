package traces

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/sim"
)

// TestAloneObservations replays a hand-worked job: 4 maps of 10 s and one
// reduce of 5 s, with 2 map slots per node.
func TestAloneObservations(t *testing.T) {
	j := sim.Job{Name: "j", Arrival: 99, Maps: sim.Tasks{Durations: []float64{10, 10, 10, 10}}, Reduces: sim.Tasks{Durations: []float64{5}},
		Blocks: [][]int{{500}, {501}, {502}, {503}}} // the trace's hosts: dropped, the replay has no such nodes
	real := RealJob{Bytes: 30e6, CPUSeconds: 30}
	obs, err := AloneObservations(j, real, []int{1, 2}, sim.Cluster{MapSlots: 2, ReduceSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	// 1 node: 2 slots, 2 waves of maps = 20 s, then the reduce: 25 s.
	// 2 nodes: 4 slots, one wave = 10 s, then the reduce: 15 s.
	// I/O: 30 MB / 25 s = 1.2 MB/s, / 15 s = 2 MB/s.
	// CPU: 30 s / (25 s × 1 node × 2 slots) = 0.6; 30 / (15 × 2 × 2) = 0.5.
	want := []struct{ n, secs, io, cpu float64 }{{1, 25, 1.2, 0.6}, {2, 15, 2, 0.5}}
	for i, w := range want {
		o := obs[i]
		if float64(o.Nodes) != w.n || !scalar.EqualWithinAbs(o.Seconds, w.secs, 1e-9) ||
			!scalar.EqualWithinAbs(*o.IOMBps, w.io, 1e-9) || !scalar.EqualWithinAbs(*o.CPUUtil, w.cpu, 1e-9) {
			t.Errorf("n = %v: got %d nodes %v s, %v MB/s, CPU %v; want %+v", w.n, o.Nodes, o.Seconds, *o.IOMBps, *o.CPUUtil, w)
		}
	}
	// No CPU counters in the trace: no CPU utilisation, not a made-up one.
	obs, _ = AloneObservations(j, RealJob{Bytes: 1, CPUSeconds: -1}, []int{3}, sim.Cluster{})
	if obs[0].CPUUtil != nil {
		t.Error("CPU utilisation without CPU counters")
	}
	if _, err := AloneObservations(j, real, []int{0}, sim.Cluster{}); err == nil {
		t.Error("0 nodes accepted")
	}
}

// TestInferSlots: host 0 runs maps [0, 10), [5, 15) and [10, 20): at most
// two at once, since the one ending at 10 frees its slot for the one
// starting at 10; host 1 runs three reduces over [0, 30) at once.
func TestInferSlots(t *testing.T) {
	spans := []span{
		{0, sim.Map, 0, 10}, {0, sim.Map, 5, 15}, {0, sim.Map, 10, 20},
		{1, sim.Reduce, 0, 30}, {1, sim.Reduce, 1, 30}, {1, sim.Reduce, 2, 30},
		{1, sim.Map, 40, 50},
	}
	if got := inferSlots(spans); got != [2]int{2, 3} {
		t.Errorf("got %v, want [2 3]", got)
	}
}

// TestRumenOntoOwnCluster moves the 19 real jobs onto 18 nodes: no blocks,
// every map reads none, and the replay runs.
func TestRumenOntoOwnCluster(t *testing.T) {
	im := readTraceFile(t, ReadRumen, rumen19Path, &RumenSettings{Nodes: 18})
	c := im.Workload.Cluster
	if c.Nodes != 18 || c.Racks != 1 || im.Hosts != nil || !strings.Contains(strings.Join(im.Meta.Assumptions, "\n"), "18 nodes in 1 racks (given)") {
		t.Fatalf("cluster %+v, assumptions %v", c, im.Meta.Assumptions)
	}
	for _, j := range im.Workload.Jobs {
		if j.Blocks != nil || !j.NoInput {
			t.Fatalf("job %s keeps the trace's blocks", j.Name)
		}
	}
	if _, err := sim.Run(im.Workload, &sim.FIFO{}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestRumenCounters: bytes are summed over the chosen attempts' four
// counters (−1 means absent), CPU from resourceUsageMetrics where present.
func TestRumenCounters(t *testing.T) {
	rec := `{"jobID":"j","submitTime":1000,"finishTime":9000,"outcome":"SUCCESS","mapTasks":[` +
		`{"attempts":[{"hostName":"/r/a","result":"FAILED","startTime":1000,"finishTime":1500,"hdfsBytesRead":999},` +
		`{"hostName":"/r/a","result":"SUCCESS","startTime":2000,"finishTime":4000,"hdfsBytesRead":100,"hdfsBytesWritten":-1,"fileBytesRead":20,"fileBytesWritten":3,` +
		`"resourceUsageMetrics":{"cumulativeCpuUsage":1500}}]},` +
		`{"attempts":[{"hostName":"/r/b","result":"SUCCESS","startTime":2000,"finishTime":2500,"hdfsBytesRead":4000,"resourceUsageMetrics":{"cumulativeCpuUsage":250}}]}]}`
	im, err := ReadRumen(strings.NewReader(rec), "t.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Bytes: 100 + 20 + 3 (the failed attempt's 999 is not the task's) + 4000 = 4123.
	// CPU: 1.5 s + 0.25 s = 1.75 s. Maps: 2 s and 0.5 s.
	r, j := im.Real[0], im.Workload.Jobs[0]
	if r.Bytes != 4123 || r.CPUSeconds != 1.75 || len(j.Maps.Durations) != 2 || j.Maps.Durations[0] != 2 || j.Maps.Durations[1] != 0.5 {
		t.Errorf("real %+v, maps %v", r, j.Maps.Durations)
	}
}

func TestFitReplays(t *testing.T) {
	// One job of 4 maps of 10 s on nodes of 2 map slots: alone on 1 node it
	// runs 2 waves, 20 s; on 2 nodes one wave, 10 s: F(n) = 20·n^(−1).
	job := sim.Job{Name: "j", User: "ann", NoInput: true, Maps: sim.Tasks{Durations: []float64{10, 10, 10, 10}}}
	im := &Imported{
		Workload: &sim.Workload{Name: "day", Cluster: sim.Cluster{Nodes: 5, Racks: 1, MapSlots: 2, ReduceSlots: 1}, Jobs: []sim.Job{job}},
		Meta:     Metadata{Source: "day.json"},
		Real:     []RealJob{{ID: "j", Submit: 0, Finish: 50, Bytes: 2e8, CPUSeconds: -1}},
	}
	w, res, err := FitReplays(im, []int{1, 2}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "day" || len(res) != 1 || math.Abs(res[0].Fit.A-20) > 1e-9 || math.Abs(res[0].Fit.B+1) > 1e-9 {
		t.Fatalf("workload %q, fit %+v", w.Name, res[0].Fit)
	}
	if got, want := w.Jobs[0].Description, "real job by ann: 4 maps, 0 reduces, 50 s in the trace"; got != want {
		t.Errorf("description %q, want %q", got, want)
	}
	if want := "fitted by packer fit --rumen from day.json: each real job's task durations replayed alone on 1, 2 nodes (2 map, 1 reduce slots each)"; w.Description != want {
		t.Errorf("workload description %q", w.Description)
	}
	// A node count below 1 is the replay's error, not the trace's.
	if _, _, err := FitReplays(im, []int{0, 2}, "x", nil); err == nil || !strings.Contains(err.Error(), "node count must be at least 1") {
		t.Errorf("node count 0: %v", err)
	}
}

// TestCheckReplayNodes: a node count is refused when the simulator would
// refuse its cluster, nodes or nodes × slots, and the replay refuses it
// before replaying anything.
func TestCheckReplayNodes(t *testing.T) {
	c := sim.Cluster{MapSlots: 20, ReduceSlots: 2}
	for _, tc := range []struct {
		nodes []int
		ok    bool
	}{
		{[]int{1, 2, 500_000}, true},
		{[]int{2, 0}, false},
		{[]int{2, sim.MaxNodes + 1}, false},
		{[]int{sim.MaxNodes}, false}, // 20 slots a node: past 10 × MaxNodes slots
	} {
		if err := CheckReplayNodes(tc.nodes, c); (err == nil) != tc.ok {
			t.Errorf("%v: error %v, want ok %v", tc.nodes, err, tc.ok)
		}
	}
	j := sim.Job{Name: "j", Maps: sim.Tasks{Durations: []float64{10}}}
	if _, err := AloneObservations(j, RealJob{}, []int{1, sim.MaxNodes + 1}, c); err == nil {
		t.Error("AloneObservations replayed a node count the simulator refuses")
	}
}
