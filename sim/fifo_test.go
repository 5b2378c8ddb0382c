package sim

import (
	"slices"
	"testing"
)

// TestFIFOPriorityByHand: one node with one map slot, maps of 10 s that
// read no input. A (priority 0, t = 0, two maps) starts at once; C (0,
// t = 1), D (1, t = 5) and B (1, t = 5, after D in the workload) wait. At
// t = 10 the higher priority goes first, and of D and B, submitted
// together, the earlier in the workload: D 10–20, B 20–30; then A's second
// map (submitted before C) 30–40, and C 40–50.
func TestFIFOPriorityByHand(t *testing.T) {
	job := func(name string, prio int, at float64, maps int) Job {
		d := make([]float64, maps)
		for i := range d {
			d[i] = 10
		}
		return Job{Name: name, Priority: prio, Arrival: at, Maps: Tasks{Durations: d}, NoInput: true}
	}
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1, ReduceSlots: 1},
		Jobs: []Job{job("A", 0, 0, 2), job("C", 0, 1, 1), job("D", 1, 5, 1), job("B", 1, 5, 1)}}
	r := mustRun(t, w, &FIFO{}, nil)
	var got []float64
	for _, j := range r.Jobs {
		got = append(got, j.Finish)
	}
	if want := []float64{40, 50, 20, 30}; !slices.Equal(got, want) {
		t.Fatalf("finish times (A, C, D, B) %v, want %v", got, want)
	}
}
