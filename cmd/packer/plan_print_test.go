package main

import (
	"strings"
	"testing"
)

// TestPlanPrintLeavesOutHugePlacements: 500 jobs paired on 200 hosts have
// about 250 phases of 200 host rows, past maxPlacementRows: the job tables
// and the summary are printed, the placement tables are not, and a line
// says where they are. W1 on 9 hosts prints its placement tables.
func TestPlanPrintLeavesOutHugePlacements(t *testing.T) {
	code, out, errs := packer(t, "", "plan", "-w", "random-m500-seed1", "--hosts", "200", "-a", "pair")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if strings.Contains(out, "disk 0") || !strings.Contains(out, "host rows over") || !strings.Contains(out, "job-500") || !strings.Contains(out, "Makespan:") {
		t.Errorf("huge plan printed placement tables, or left out the jobs or the summary:\n%.2000s", out)
	}
	code, out, errs = packer(t, "", "plan", "-a", "pair")
	if code != 0 || !strings.Contains(out, "disk 0") || strings.Contains(out, "host rows over") {
		t.Errorf("W1: exit %d, stderr %q, want placement tables:\n%.2000s", code, errs, out)
	}
}

// TestPlanPrintLeavesOutHugePhaseLists: past maxPlacementRows jobs no phase
// is listed: one line says how many there are and where they are.
func TestPlanPrintLeavesOutHugePhaseLists(t *testing.T) {
	code, out, errs := packer(t, "", "plan", "-w", "random-m20001-seed1", "-a", "sequential")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if strings.Contains(out, "Phase 1:") || !strings.Contains(out, "Phases: 20001 with 20001 jobs, too many to list") || !strings.Contains(out, "Makespan:") {
		t.Errorf("20,001 jobs alone: phases listed, or no line saying why not:\n%.2000s", out)
	}
}
