package sim

import "testing"

func TestReduceSlowstartHoldsSlots(t *testing.T) {
	// One node, one map and one reduce slot. A: 4 maps × 10 s, one reduce of
	// 5 s, shuffle 2 s. B: no maps, one reduce of 3 s, submitted at 20.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1, ReduceSlots: 1}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 4, Mean: 10}, Reduces: Tasks{Count: 1, Mean: 5}, Shuffle: 2},
		{Name: "B", Arrival: 20, Reduces: Tasks{Count: 1, Mean: 3}},
	}}
	// Without slow-start: A's maps 0–40, shuffle to 42, reduce 42–47; B's
	// reduce finds the slot free at 20: 20–23.
	r := mustRun(t, w, &FIFO{}, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 47}, "B": {20, 23}})
	// Slow-start 0.25: after ⌈0.25 · 4⌉ = 1 map (t = 10) A's reduce takes the
	// reduce slot and holds it, copying, until the maps are done and shuffled
	// (42), then runs its 5 s: 10–47. B waits for the slot: 47–50. The reduce
	// slot was busy 37 + 3 = 40 s.
	r = mustRun(t, w, &FIFO{}, &Settings{IgnoreLocality: true, ReduceSlowstart: 0.25})
	checkTimes(t, r, map[string][2]float64{"A": {0, 47}, "B": {47, 50}})
	if r.BusySlotSeconds[Reduce] != 40 {
		t.Errorf("reduce slot-seconds %v, want 40", r.BusySlotSeconds[Reduce])
	}
	if _, err := Run(w, &FIFO{}, &Settings{ReduceSlowstart: 1.5}); err == nil {
		t.Error("ReduceSlowstart 1.5 accepted")
	}
}
