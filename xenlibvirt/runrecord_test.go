package xenlibvirt_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
)

// TestRunRecordByHand: phase 1 runs a (2 VMs, predicted 100 s) and b (1 VM,
// predicted 80 s), phase 2 c (1 VM, predicted 50 s), which failed, and d
// (1 VM), which packer stopped when c failed.
func TestRunRecordByHand(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	at := func(s float64) *time.Time { x := t0.Add(time.Duration(s * float64(time.Second))); return &x }
	exit := func(n int) *int { return &n }
	secs := func(s float64) *float64 { return &s }
	vms := func(job string, n int) []model.VMPlace {
		var out []model.VMPlace
		for i := 0; i < n; i++ {
			out = append(out, model.VMPlace{Job: job, Index: i})
		}
		return out
	}
	pl := &plan.Plan{ID: "w-1", Phases: []plan.Phase{
		{Index: 0, Duration: 100, Jobs: []plan.Job{{Name: "a", VMs: 2, Runtime: 100}, {Name: "b", VMs: 1, Runtime: 80}},
			Hosts: []model.HostPlacement{{Host: 0, VMs: append(vms("a", 2), vms("b", 1)...)}}},
		{Index: 1, Start: 100, Duration: 50, Jobs: []plan.Job{{Name: "c", VMs: 1, Runtime: 50}, {Name: "d", VMs: 1, Runtime: 40}},
			Hosts: []model.HostPlacement{{Host: 0, VMs: append(vms("c", 1), vms("d", 1)...)}}},
	}}
	j := &xenlibvirt.Journal{Plan: "w-1", Status: xenlibvirt.StatusFailed, Phases: []xenlibvirt.PhaseRecord{
		{Index: 0, Status: xenlibvirt.StatusDone, Started: at(0), Ended: at(130)},
		{Index: 1, Status: xenlibvirt.StatusFailed, Started: at(131), Ended: at(150)},
	}, VMs: []xenlibvirt.VMRecord{
		// a: its VMs' commands took 110 and 90 s; the first VM started at
		// 1 s, the last powered off at 125 s.
		{Phase: 0, Job: "a", Index: 0, Started: at(1), Stopped: at(120), Exit: exit(0), Seconds: secs(110), Console: "run/console/a-0.log"},
		{Phase: 0, Job: "a", Index: 1, Started: at(2), Stopped: at(125), Exit: exit(0), Seconds: secs(90), Console: "run/console/a-1.log"},
		// b: an appliance that runs its own job: no status.
		{Phase: 0, Job: "b", Index: 0, Started: at(1), Stopped: at(100)},
		{Phase: 1, Job: "c", Index: 0, Started: at(132), Stopped: at(149), Exit: exit(2), Seconds: secs(12)},
		{Phase: 1, Job: "d", Index: 0, Started: at(132), State: xenlibvirt.StateRemoved},
	}}
	rec := xenlibvirt.NewRunRecord(pl, j)
	// Phase 1: 130 s measured against 100 predicted, 3 VMs of 3.
	p := rec.Phases[0]
	if p.Phase != 1 || p.PlannedVMs != 3 || p.RanVMs != 3 || *p.MeasuredSeconds != 130 || p.Status != "done" {
		t.Errorf("phase 1: %+v (measured %v)", p, *p.MeasuredSeconds)
	}
	if p := rec.Phases[1]; *p.MeasuredSeconds != 19 || p.Status != "failed" {
		t.Errorf("phase 2: %+v", p)
	}
	a, b, c, d := rec.Jobs[0], rec.Jobs[1], rec.Jobs[2], rec.Jobs[3]
	if d.Status != "stopped" || d.WallSeconds != nil || d.RanVMs != 1 {
		t.Errorf("d: %+v", d)
	}
	// a: measured is the longest command, 110 s; wall 1 s → 125 s = 124 s.
	if a.Status != "ok" || *a.MeasuredSeconds != 110 || *a.WallSeconds != 124 || a.RanVMs != 2 || len(a.Consoles) != 2 || a.Consoles[0] != "run/console/a-0.log" {
		t.Errorf("a: %+v", a)
	}
	if b.Status != "done" || b.MeasuredSeconds != nil || *b.WallSeconds != 99 {
		t.Errorf("b: %+v", b)
	}
	if c.Status != "exit 2" || *c.MeasuredSeconds != 12 {
		t.Errorf("c: %+v", c)
	}
	var obs, table bytes.Buffer
	if err := rec.WriteObservations(&obs); err != nil {
		t.Fatal(err)
	}
	// Only a ran to the end with every VM at exit 0.
	if got, want := obs.String(), "job,nodes,seconds\na,2,110.00\n"; got != want {
		t.Errorf("observations %q, want %q", got, want)
	}
	if err := rec.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	// 110 ÷ 100 = 1.10; 130 ÷ 100 = 1.30; 12 ÷ 50 = 0.24; a failed
	// phase has no ratio.
	for _, want := range []string{"1      done    3            3        100.0        130.0   1.30",
		"2      failed  2            2        50.0         19.0    -\n",
		"1      a    ok       2            2        100.0        110.0       1.10   124.0", "2      c    exit 2   1            1        50.0         12.0        0.24   17.0",
		"2      d    stopped  1            1        40.0         -           -      -"} {
		if !bytes.Contains(table.Bytes(), []byte(want)) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}
