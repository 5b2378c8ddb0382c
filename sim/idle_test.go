package sim_test

import (
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim"
)

// TestIdleNote: on 3000 nodes with map slots at most 9.8 % and reduce slots
// 12.4 % busy (FB-2010's day), the note suggests ⌈3000 × 0.124 ÷ 0.7⌉ =
// ⌈531.4⌉ = 532 nodes; one run 30 % busy silences it.
func TestIdleNote(t *testing.T) {
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 3000}}
	idle := []*sim.Result{
		{Policy: "fifo", Utilisation: [2]float64{0.098, 0.124}, BusySlotSeconds: [2]float64{5e7, 3e7}},
		{Policy: "fair", Utilisation: [2]float64{0.097, 0.120}, BusySlotSeconds: [2]float64{5e7, 3e7}},
	}
	n := sim.IdleNote(w, idle)
	if n == nil {
		t.Fatal("no note at 12 % busy")
	}
	if n.SuggestedNodes != 532 || n.Nodes != 3000 || n.Utilisation != [2]float64{0.098, 0.124} {
		t.Errorf("got %+v, want 532 nodes suggested for 3000 at (0.098, 0.124)", n)
	}
	for _, want := range []string{"map slots 10 %, reduce slots 12 % busy", "makespans cannot differ much", "try --nodes 532"} {
		if !strings.Contains(n.Note, want) {
			t.Errorf("note %q lacks %q", n.Note, want)
		}
	}
	busy := append(idle, &sim.Result{Policy: "tyrex", Utilisation: [2]float64{0.30, 0.1}})
	if n := sim.IdleNote(w, busy); n != nil {
		t.Errorf("a run 30 %% busy: want no note, got %q", n.Note)
	}
	if n := sim.IdleNote(w, nil); n != nil {
		t.Errorf("no runs: want no note, got %q", n.Note)
	}
}

// TestIdleNoteMapsOnly: a map-only workload on the default 18 nodes, maps
// 7 % busy: ⌈18 × 0.07 ÷ 0.7⌉ = 2 nodes, and reduces go unnamed.
func TestIdleNoteMapsOnly(t *testing.T) {
	n := sim.IdleNote(&sim.Workload{}, []*sim.Result{{Policy: "fifo", Utilisation: [2]float64{0.07, 0}, BusySlotSeconds: [2]float64{100, 0}}})
	if n == nil || n.SuggestedNodes != 2 || n.Nodes != 18 {
		t.Fatalf("got %+v, want 2 of 18 nodes", n)
	}
	if want := "map slots 7 % busy: makespans cannot differ much; try --nodes 2"; !strings.HasPrefix(n.Note, want) {
		t.Errorf("note %q, want it to start %q", n.Note, want)
	}
}

// TestIdleNoteSaysRule: the note shows its arithmetic, 3000 × 12.4 % ÷ 70 %.
func TestIdleNoteSaysRule(t *testing.T) {
	n := sim.IdleNote(&sim.Workload{Cluster: sim.Cluster{Nodes: 3000}},
		[]*sim.Result{{Utilisation: [2]float64{0.098, 0.124}, BusySlotSeconds: [2]float64{1, 1}}})
	if want := "try --nodes 532 (3000 × 12.4 % ÷ 70 %: reduce slots about 70 % busy)"; n == nil || !strings.HasSuffix(n.Note, want) {
		t.Errorf("note %+v, want it to end %q", n, want)
	}
}
