package sim

import (
	"fmt"
	"strings"
	"testing"
)

// recorder keeps a run's trace as text lines, one per event.
type recorder struct{ lines []string }

func (r *recorder) Event(e TraceEvent) {
	r.lines = append(r.lines, fmt.Sprintf("%g %s job=%d task=%d node=%d %s", e.Time, e.Kind, e.Job, e.Task, e.Node, e.Locality))
}

// times returns each job's start and finish, by name.
func times(r *Result) map[string][2]float64 {
	m := map[string][2]float64{}
	for _, j := range r.Jobs {
		m[j.Name] = [2]float64{j.Start, j.Finish}
	}
	return m
}

func mustRun(t *testing.T, w *Workload, p Policy, s *Settings) *Result {
	t.Helper()
	r, err := Run(w, p, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func checkTimes(t *testing.T, r *Result, want map[string][2]float64) {
	t.Helper()
	got := times(r)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: job %s (start, finish) = %v, want %v", r.Policy, name, got[name], w)
		}
	}
}

// The example: one node with 2 map slots, job A (4 maps × 10 s) and
// job B (2 maps × 5 s) both submitted at t = 0, locality off.
func abWorkload() *Workload {
	return &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 4, Mean: 10}},
		{Name: "B", Maps: Tasks{Count: 2, Mean: 5}},
	}}
}

func TestHandTraceFIFO(t *testing.T) {
	// FIFO: A takes both slots at 0; its 4 maps on 2 slots are 2 waves:
	// 0–10, 10–20, so A finishes at 20. B starts at 20 on both slots, one wave
	// of 5 s: 20 + 5 = 25. Makespan 25; busy 4·10 + 2·5 = 50 of 2·25 = 50
	// slot-seconds: utilisation 1.
	r := mustRun(t, abWorkload(), &FIFO{}, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 20}, "B": {20, 25}})
	if r.Makespan != 25 || r.Utilisation[Map] != 1 {
		t.Errorf("makespan %v, map utilisation %v; want 25 and 1", r.Makespan, r.Utilisation[Map])
	}
	// Responses 20 and 25: mean 22.5, empirical median the lower, 20.
	if s := r.Summary; s.MeanResponse != 22.5 || s.MedianResponse != 20 || s.P95Response != 25 {
		t.Errorf("summary %+v, want mean 22.5, median 20, p95 25", s)
	}
}

func TestHandTraceFair(t *testing.T) {
	// Fair: at 0 both jobs have 0 running maps; A (earlier) takes slot 1, then
	// B has fewer running (0 < 1) and takes slot 2. At 5 B's map ends; B (0
	// running) beats A (1) and runs its second map 5–10. At 10 A's first map and
	// B's second end together; B is done (finishes at 10), A takes both slots:
	// maps 2 and 3 run 10–20, map 4 runs 20–30. A finishes at 30.
	r := mustRun(t, abWorkload(), &Fair{}, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 30}, "B": {0, 10}})
	// Slot-seconds 50 of 2·30 = 60.
	if r.Makespan != 30 || r.Utilisation[Map] != 50.0/60 {
		t.Errorf("makespan %v, utilisation %v; want 30 and 5/6", r.Makespan, r.Utilisation[Map])
	}
}

func TestHandTraceHeartbeat(t *testing.T) {
	// Heartbeats every 3 s, node 0's at 0, 3, 6, ... FIFO: A's first wave runs
	// 0–10; the slots free at 10 are offered at the heartbeat at 12, so A's
	// second wave runs 12–22. B is offered at 24: 24–29.
	r := mustRun(t, abWorkload(), &FIFO{}, &Settings{IgnoreLocality: true, Heartbeat: 3})
	checkTimes(t, r, map[string][2]float64{"A": {0, 22}, "B": {24, 29}})
}

func TestHandTraceReduces(t *testing.T) {
	// One node, 2 map slots and 1 reduce slot. Job J: 3 maps × 4 s, 2 reduces
	// of 6 s and 2 s, shuffle 1 s. Maps: 0–4, 0–4, 4–8 (two waves); reduces
	// ready at 8 + 1 = 9, one reduce slot: 9–15 and 15–17. J finishes at 17.
	// Job K arrives at 2 with 1 map × 3 s: under FIFO it waits for J's maps to
	// leave a slot free: map slot 2 is free at 4 (J's third map took slot 1), so
	// K runs 4–7.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2, ReduceSlots: 1}, Jobs: []Job{
		{Name: "J", Maps: Tasks{Count: 3, Mean: 4}, Reduces: Tasks{Durations: []float64{6, 2}}, Shuffle: 1},
		{Name: "K", Arrival: 2, Maps: Tasks{Count: 1, Mean: 3}},
	}}
	r := mustRun(t, w, &FIFO{}, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"J": {0, 17}, "K": {4, 7}})
	// K's response is 7 − 2 = 5.
	if got := r.Jobs[1].Response; got != 5 {
		t.Errorf("K's response %v, want 5", got)
	}
	// Map slot-seconds 3·4 + 3 = 15 of 2·17; reduce 8 of 17.
	if r.Utilisation != [2]float64{15.0 / 34, 8.0 / 17} {
		t.Errorf("utilisation %v, want [15/34 8/17]", r.Utilisation)
	}
}

// Four nodes in two racks ({0,1} and {2,3}), one map slot each; job L has
// three maps of 10 s whose blocks are all on node 0 only.
func localityWorkload() *Workload {
	return &Workload{Cluster: Cluster{Nodes: 4, Racks: 2, MapSlots: 1, Replication: 1}, Jobs: []Job{
		{Name: "L", Maps: Tasks{Count: 3, Mean: 10}, Blocks: [][]int{{0}, {0}, {0}}},
	}}
}

func TestHandTraceLocality(t *testing.T) {
	// FIFO offers nodes 0..3 in turn at 0: node 0 runs a map node-local (10 s),
	// node 1 rack-local (10·1.5 = 15 s), node 2 off-rack (10·2 = 20 s); node 3
	// finds nothing left. L finishes at 20 with one map of each locality.
	r := mustRun(t, localityWorkload(), &FIFO{}, &Settings{RackFactor: 1.5, RemoteFactor: 2})
	checkTimes(t, r, map[string][2]float64{"L": {0, 20}})
	if want := (LocalityCounts{Node: 1, Rack: 1, Remote: 1}); r.Locality != want {
		t.Errorf("locality %+v, want %+v", r.Locality, want)
	}
}

func TestHandTraceDelay(t *testing.T) {
	// Delay scheduling with D = 2 on the same cluster. At 0 nodes 0..3 are
	// offered: node 0 gets a node-local map (0–10, skip count reset to 0); nodes
	// 1, 2 and 3 have no local task for L, which is skipped three times (count 1,
	// 2, then at 2 ≥ D node 3 launches a map off-rack: 0–20). Node 1 and 2 were
	// answered Later and are offered again at IdleRetry = 1 s: count 2 ≥ D, so
	// node 1 runs the last map rack-local 1–16 (10·1.5); node 2 finds none left.
	// Node 0 becomes free at 10 with nothing left. L finishes at 20.
	rec := &recorder{}
	r := mustRun(t, localityWorkload(), &Fair{Delay: 2}, &Settings{RackFactor: 1.5, RemoteFactor: 2, Trace: rec})
	checkTimes(t, r, map[string][2]float64{"L": {0, 20}})
	want := []string{
		"0 arrive job=0 task=-1 node=-1 none",
		"0 start job=0 task=0 node=0 node",
		"0 start job=0 task=1 node=3 remote",
		"1 start job=0 task=2 node=1 rack",
		"10 end job=0 task=0 node=0 node",
		"16 end job=0 task=2 node=1 rack",
		"20 end job=0 task=1 node=3 remote",
		"20 finish job=0 task=-1 node=-1 none",
	}
	if got := strings.Join(rec.lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestHeartbeatsPauseWhenIdle(t *testing.T) {
	// Heartbeats every 3 s on one node (grid 0, 3, 6, ...). A (1 map × 1 s)
	// runs 0–1; nothing is submitted until B at 10⁶ s. The node's heartbeats
	// pause meanwhile and resume on the grid: B starts at the first multiple of
	// 3 at or after 10⁶, 1000002, and ends at 1000003. Without the pause the
	// run would take over 333 000 heartbeat events; with it, about a dozen.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 1, Mean: 1}},
		{Name: "B", Arrival: 1e6, Maps: Tasks{Count: 1, Mean: 1}},
	}}
	r := mustRun(t, w, &FIFO{}, &Settings{Heartbeat: 3, IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 1}, "B": {1000002, 1000003}})
	if r.Events > 20 {
		t.Errorf("%d events, want at most 20", r.Events)
	}
}
