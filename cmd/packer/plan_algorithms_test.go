package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/pso"
)

// planJSON runs packer plan with --format json and decodes and verifies the
// plan it prints.
func planJSON(t *testing.T, stdin string, args ...string) (*plan.Plan, string) {
	t.Helper()
	code, out, errs := packer(t, stdin, append([]string{"plan", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("packer plan %v: exit %d: %s", args, code, errs)
	}
	if errs != "" {
		t.Errorf("stderr is not a terminal, yet something was written to it: %q", errs)
	}
	pl, err := plan.Parse([]byte(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	return pl, out
}

// TestPlanExact: W3's exact plan on 9 hosts saves 30.9 % and records its own
// makespan as the optimum, gap 0.
func TestPlanExact(t *testing.T) {
	pl, _ := planJSON(t, "", "-w", "W3", "--algorithm", "exact")
	if pl.Algorithm != "exact" || pl.Optimum == nil || *pl.Optimum != pl.Makespan || *pl.GapPercent != 0 {
		t.Fatalf("algorithm %q, optimum %v, gap %v, makespan %v", pl.Algorithm, pl.Optimum, pl.GapPercent, pl.Makespan)
	}
	if d := pl.SavingPercent - 30.9; d < -0.05 || d > 0.05 {
		t.Errorf("saving %.2f %%, want 30.9 %%", pl.SavingPercent)
	}
}

// TestPlanPSO: the swarm's plan records its settings, the optimum (M ≤ 16)
// and the gap, and the same seed prints the same document twice.
func TestPlanPSO(t *testing.T) {
	args := []string{"-w", "W2", "--algorithm", "pso", "--particles", "300", "--iterations", "40", "--seed", "5"}
	pl, first := planJSON(t, "", args...)
	if pl.Algorithm != "pso" || pl.Seed == nil || *pl.Seed != 5 || pl.Particles != 300 || pl.Iterations != 40 {
		t.Fatalf("algorithm %q, seed %v, particles %d, iterations %d", pl.Algorithm, pl.Seed, pl.Particles, pl.Iterations)
	}
	if pl.Optimum == nil || pl.GapPercent == nil || *pl.GapPercent < 0 {
		t.Fatalf("optimum %v, gap %v", pl.Optimum, pl.GapPercent)
	}
	if _, again := planJSON(t, "", args...); again != first {
		t.Errorf("the same seed printed two different plans")
	}
}

// TestPlanAutoLarge: auto chooses column generation (seeded with the swarm)
// past 16 jobs and, with no optimum known, records the lower bound and the
// gap to it.
func TestPlanAutoLarge(t *testing.T) {
	w := optimize.RandomWorkload(3, 20)
	data, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := planJSON(t, string(data), "-w", "-", "--algorithm", "auto", "--particles", "50", "--iterations", "10")
	if pl.Algorithm != "columns" || pl.Optimum != nil || pl.LowerBound == nil || *pl.LowerBound > pl.Makespan {
		t.Fatalf("algorithm %q, optimum %v, lower bound %v, makespan %v", pl.Algorithm, pl.Optimum, pl.LowerBound, pl.Makespan)
	}
	if !strings.Contains(strings.Join(pl.Notes, "\n"), "auto chose columns: 20 jobs") {
		t.Errorf("notes do not say what auto chose: %q", pl.Notes)
	}
	// The exact solver refuses 20 jobs with exit code 2 and one line.
	code, _, errs := packer(t, string(data), "plan", "-w", "-", "--algorithm", "exact")
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "exact takes at most 18") {
		t.Errorf("exact on 20 jobs: exit %d, %q", code, errs)
	}
}

// TestPlanBadAlgorithmFlags: bad values exit 2 with one line naming the flag.
func TestPlanBadAlgorithmFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--algorithm", "annealing"},
		{"--algorithm", "pso", "--particles", "0"},
		{"--algorithm", "pso", "--iterations", "-3"},
		{"--algorithm", "pso", "--time-limit", "-1s"},
		{"--export-lp", filepath.Join(t.TempDir(), "no", "such", "dir", "m.lp")},
	} {
		code, out, errs := packer(t, "", append([]string{"plan"}, args...)...)
		flag := args[len(args)-2]
		if code != 2 || out != "" || !strings.Contains(errs, flag) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestExportLPGlpsol: the exported LP of W1 solves, with glpsol, to the exact
// optimum 779.7623 s (the cbc cross-check on more instances is in optimize).
func TestExportLPGlpsol(t *testing.T) {
	dir := t.TempDir()
	lp := filepath.Join(dir, "w1.lp")
	if code, _, errs := packer(t, "", "plan", "-w", "W1", "--export-lp", lp); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(lp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `\ packer phase model`) || !strings.HasSuffix(string(data), "End\n") {
		t.Fatalf("not an LP file:\n%.300s", data)
	}
	if _, err := exec.LookPath("glpsol"); err != nil {
		t.Skip("glpsol not installed (apt-get install glpk-utils; make deps does)")
	}
	sol := filepath.Join(dir, "w1.sol")
	if out, err := exec.Command("glpsol", "--lp", lp, "-o", sol).CombinedOutput(); err != nil {
		t.Fatalf("glpsol: %v\n%s", err, out)
	}
	text, err := os.ReadFile(sol)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Objective:\s+obj = (\S+) \(MINimum\)`).FindSubmatch(text)
	if m == nil {
		t.Fatalf("no optimum in glpsol's report:\n%.500s", text)
	}
	got, _ := strconv.ParseFloat(string(m[1]), 64)
	pl, _ := planJSON(t, "", "-w", "W1", "--algorithm", "exact")
	if !scalar.EqualWithinAbsOrRel(got, pl.Makespan, 1e-6, 1e-6) {
		t.Errorf("glpsol %v, exact %v", got, pl.Makespan)
	}
}

// TestBenchQuick runs `packer bench --quick`, a smoke test of the command
// (the numbers it prints in full are in the README).
func TestBenchQuick(t *testing.T) {
	code, out, errs := packer(t, "", "bench", "--quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"1. Exact solver vs cbc", "2. Swarm", "3. Swarm", "4. Growth of time", "random M=50 seed 1", "5. Column generation", "6. The exported LP", "7. auto as packer plan runs it"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Step 7's quick run plans under work limits: the longer one is no
	// worse on both instances, exactly.
	if _, step7, _ := strings.Cut(out, "7. auto as packer plan runs it"); !strings.Contains(step7, "│ 2 of 2 ") {
		t.Errorf("step 7 lacks its row with 2 of 2 no worse:\n%s", step7)
	}
	if strings.Contains(out, "DIFFERS") {
		t.Errorf("cbc and the exact solver disagree:\n%s", out)
	}
}

// TestBenchStepOutOfRange: a step the bench does not have is bad usage, one
// line naming the flag, the value and the steps there are, before any
// measurement.
func TestBenchStepOutOfRange(t *testing.T) {
	for _, n := range []string{"8", "0"} {
		code, out, errs := packer(t, "", "bench", "--step", "5", "--step", n)
		want := "packer: --step: no step " + n + ", the steps are 1 to 7\n"
		if code != 2 || out != "" || errs != want {
			t.Errorf("--step %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", n, code, out, errs, want)
		}
	}
}

// TestProgressBar: no bar for a file (only terminals get one); the bar's
// line is redrawn in place with the iteration and the best makespan.
func TestProgressBar(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if newProgressBar(f) != nil {
		t.Fatal("a progress bar on a regular file")
	}
	var buf strings.Builder
	b := &progressBar{w: &buf, last: -1}
	b.record(pso.Progress{Iteration: 0, Iterations: 200, Best: 1704.5})
	b.record(pso.Progress{Iteration: 1, Iterations: 200, Best: 1704.5}) // same width: not redrawn
	b.record(pso.Progress{Iteration: 100, Iterations: 200, Best: 1346.4})
	b.done()
	want := "\rpso [..............................] 0/200  best makespan 1704.5 s (28m24s) " +
		"\rpso [###############...............] 100/200  best makespan 1346.4 s (22m26s) " +
		"\r\033[K"
	if buf.String() != want {
		t.Errorf("got %q\nwant %q", buf.String(), want)
	}
}

// The random workloads of the tests and benchmarks are named on the command
// line as they name themselves (random-mM-seedS), so that the docs' numbers
// on them can be rerun; a size out of range is refused.
func TestRandomWorkloadNames(t *testing.T) {
	want, _ := optimize.RandomWorkload(2, 5).MarshalIndent()
	if code, out, errs := packer(t, "", "workloads", "show", "random-m5-seed2"); code != 0 || out != string(want) {
		t.Errorf("show: exit %d, stderr %q, stdout\n%s", code, errs, out)
	}
	if code, out, errs := packer(t, "", "plan", "-w", "random-m5-seed2", "-a", "pair"); code != 0 || !strings.Contains(out, "workload random-m5-seed2 (5 jobs)") {
		t.Errorf("plan: exit %d, stderr %q, stdout\n%s", code, errs, out)
	}
	if code, _, errs := packer(t, "", "plan", "-w", "random-m0-seed1"); code != 2 || !strings.Contains(errs, "0 jobs, want 1 to 100000") {
		t.Errorf("random-m0-seed1: exit %d, stderr %q", code, errs)
	}
}
