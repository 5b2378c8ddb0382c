package main

import (
	"strings"
	"testing"
)

// TestPlanSummaryFirst: plan prints its summary (makespan, bound, the
// deadline's verdict) and notes before the phases, and --summary prints
// them alone, the same lines.
func TestPlanSummaryFirst(t *testing.T) {
	code, full, errs := packer(t, "", "plan", "-w", "W3", "--deadline", "2h")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	makespan, phase := strings.Index(full, "\nMakespan:"), strings.Index(full, "\nPhase 1:")
	deadline, note := strings.Index(full, "\nDeadline "), strings.Index(full, "\nNote:")
	if makespan < 0 || phase < 0 || deadline < 0 || note < 0 || !(makespan < deadline && deadline < phase && note < phase) {
		t.Fatalf("summary at %d, deadline at %d, notes at %d, phase 1 at %d:\n%s", makespan, deadline, note, phase, full)
	}
	code, summary, errs := packer(t, "", "plan", "-w", "W3", "--deadline", "2h", "--summary")
	if code != 0 || strings.Contains(summary, "Phase 1:") || !strings.HasPrefix(full, summary) {
		t.Fatalf("--summary: exit %d (%s), not the full output's first lines:\n%s", code, errs, summary)
	}
}
