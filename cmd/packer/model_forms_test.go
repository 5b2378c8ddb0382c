package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/plan"
)

// A workload with one job of every model form (Amdahl, Ernest, a table, a
// power law): the exact plan verifies when read back, replays in the
// simulator to its predicted makespan, and its exported LP solves with cbc to
// the same optimum.
func TestPlanFromEveryModelForm(t *testing.T) {
	dir := t.TempDir()
	planPath, lp := filepath.Join(dir, "plan.json"), filepath.Join(dir, "mixed.lp")
	code, _, errs := packer(t, "", "plan", "-w", "testdata/mixed-forms.json", "-a", "exact", "-o", planPath, "--export-lp", lp)
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	pl, err := plan.ReadFile(planPath) // verifies
	if err != nil {
		t.Fatal(err)
	}
	sim := simulateJSON(t, "--plan", planPath, "-p", "plan")
	if len(sim.Policies) != 1 {
		t.Fatalf("simulate output: %+v", sim)
	}
	if got := sim.Policies[0].Makespan; !scalar.EqualWithinAbsOrRel(got, pl.Makespan, 1e-6, 1e-9) {
		t.Errorf("replayed makespan %v, planned %v", got, pl.Makespan)
	}
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc not installed (apt-get install coinor-cbc)")
	}
	res, err := exec.Command("cbc", lp, "solve").CombinedOutput()
	if err != nil {
		t.Fatalf("cbc: %v\n%s", err, res)
	}
	m := regexp.MustCompile(`Objective value:\s+(\S+)`).FindSubmatch(res)
	if m == nil {
		t.Fatalf("cbc found no objective:\n%s", res)
	}
	obj, _ := strconv.ParseFloat(string(m[1]), 64)
	if !scalar.EqualWithinAbsOrRel(obj, pl.Makespan, 1e-6, 1e-7) {
		t.Errorf("cbc optimum %v, exact %v", obj, pl.Makespan)
	}
}
