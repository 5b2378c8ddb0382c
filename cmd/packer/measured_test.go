package main

import (
	"strings"
	"testing"

	"github.com/packer-sched/packer/plan"
)

// TestPlanWithinMeasured: the README's quick start (examples/planner/jobs.json
// on 6 hosts) gives five jobs VM counts below their measured ranges, each
// named in a note; --within-measured gives none, and says for which model
// its optimum holds.
func TestPlanWithinMeasured(t *testing.T) {
	args := []string{"plan", "-w", "../../examples/planner/jobs.json", "--hosts", "6", "--format", "json"}
	code, out, errs := packer(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	free, err := plan.Parse([]byte(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	if n := extrapolated(free); n == 0 || n != strings.Count(strings.Join(free.Notes, "\n"), "the measured range") {
		t.Errorf("%d jobs extrapolated; notes:\n%s", n, strings.Join(free.Notes, "\n"))
	}
	code, out, errs = packer(t, "", append(args, "--within-measured")...)
	if code != 0 {
		t.Fatalf("--within-measured: exit %d: %s", code, errs)
	}
	kept, err := plan.Parse([]byte(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	if n := extrapolated(kept); n != 0 {
		t.Errorf("--within-measured: %d jobs outside their measured range", n)
	}
	notes := strings.Join(kept.Notes, "\n")
	if !strings.Contains(notes, "holds for this restricted model") || strings.Contains(notes, "extrapolated") {
		t.Errorf("--within-measured notes:\n%s", notes)
	}
	// Kept inside the ranges, the optimum cannot beat the free one.
	if kept.Optimum == nil || free.Optimum == nil || *kept.Optimum < *free.Optimum {
		t.Errorf("optimum %v within ranges, %v free", kept.Optimum, free.Optimum)
	}
}

// TestPlanWithinMeasuredMisfit: on 1 host × 2 disks no phase can give
// pagerank (measured on 4–16 VMs) 4 VMs: one usage error names it.
func TestPlanWithinMeasuredMisfit(t *testing.T) {
	code, out, errs := packer(t, "", "plan", "-w", "../../examples/planner/jobs.json", "--hosts", "1", "--within-measured")
	if code != 2 || out != "" || !strings.Contains(errs, "pagerank (measured on 4–16 VMs)") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q: want exit 2 and one line naming pagerank", code, out, errs)
	}
}

// TestPlanOneDiskSaysRatio: --disks 1 cannot keep the default r = 2; plan
// says it uses r = 1 instead, on stderr, and an explicit --ratio says nothing.
func TestPlanOneDiskSaysRatio(t *testing.T) {
	code, out, errs := packer(t, "", "plan", "-w", "W5", "-a", "sequential", "--disks", "1")
	if code != 0 || !strings.Contains(errs, "--disks 1 cannot carry the default --ratio 2") || !strings.Contains(errs, "using --ratio 1") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "(r = 1)") {
		t.Errorf("the plan's cluster line does not say r = 1:\n%s", out)
	}
	if code, _, errs := packer(t, "", "plan", "-w", "W5", "-a", "sequential", "--disks", "1", "--ratio", "1"); code != 0 || errs != "" {
		t.Errorf("--ratio 1 given: exit %d, stderr %q", code, errs)
	}
}

// extrapolated counts the plan's jobs run outside their measured range.
func extrapolated(pl *plan.Plan) int {
	n := 0
	for _, ph := range pl.Phases {
		for _, j := range ph.Jobs {
			if j.Extrapolated {
				n++
			}
		}
	}
	return n
}
