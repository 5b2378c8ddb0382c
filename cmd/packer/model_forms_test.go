package main

import (
	"encoding/json"
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
	code, out, errs := packer(t, "", "simulate", "--plan", planPath, "-p", "plan", "--format", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	var sim struct {
		Results []struct {
			Makespan float64 `json:"makespan"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &sim); err != nil || len(sim.Results) != 1 {
		t.Fatalf("simulate output %v: %s", err, out)
	}
	if got := sim.Results[0].Makespan; !scalar.EqualWithinAbsOrRel(got, pl.Makespan, 1e-6, 1e-9) {
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
