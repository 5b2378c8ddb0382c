package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/optimize"
)

func TestSimulateTable(t *testing.T) {
	code, out, errs := packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "-p", "fifo,fair,sequential", "--delay", "5", "--seed", "3")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"Workload small: 5 jobs, 76 tasks; seed 3", "8 nodes in 2 racks", "fair D=5", "sequential"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	golden(t, "simulate-small.txt", out)
}

// TestSimulateByteIdentical: the same seed gives the same JSON, CSV, per-job
// CSV and trace, byte for byte.
func TestSimulateByteIdentical(t *testing.T) {
	dir := t.TempDir()
	outputs := func(i int) []string {
		jobs, trace := filepath.Join(dir, "jobs"+string(rune('0'+i))), filepath.Join(dir, "trace"+string(rune('0'+i)))
		var got []string
		for _, format := range []string{"json", "csv"} {
			code, out, errs := packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "-p", "fifo,fair", "--delay", "3",
				"--heartbeat", "2", "--format", format, "--jobs-csv", jobs, "--trace", trace, "--seed", "11")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			got = append(got, out)
		}
		for _, f := range []string{jobs, trace} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
		return got
	}
	a, b := outputs(1), outputs(2)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("output %d differs between two runs with the same seed", i)
		}
	}
	// 76 tasks start and end, 5 jobs arrive and finish, per policy, plus the header.
	if n := strings.Count(a[3], "\n"); n != 2*(2*76+2*5)+1 {
		t.Errorf("trace has %d lines, want %d", n, 2*(2*76+2*5)+1)
	}
	if !strings.HasPrefix(a[2], "policy,job,user,submit,start,finish,response,slowdown,") || strings.Count(a[2], "\n") != 11 {
		t.Errorf("jobs CSV:\n%s", a[2])
	}
}

// TestSimulatePlanReplay: replaying a plan made by packer plan reproduces its
// makespan with the barrier and is never slower without.
func TestSimulatePlanReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w6.json")
	if code, _, errs := packer(t, "", "plan", "-w", "W6", "--output", path); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	pl, err := optimize.ReadPlanFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := packer(t, "", "simulate", "--plan", path, "-p", "sequential,plan,plan-no-barrier", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Policies []struct {
			Policy   string  `json:"policy"`
			Makespan float64 `json:"makespan"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	seq, barrier, free := doc.Policies[0].Makespan, doc.Policies[1].Makespan, doc.Policies[2].Makespan
	if math.Abs(seq-pl.SequentialMakespan) > 1e-6 || math.Abs(barrier-pl.Makespan) > 1e-6 || free > barrier {
		t.Errorf("sequential %v (plan says %v), plan %v (plan says %v), no barrier %v", seq, pl.SequentialMakespan, barrier, pl.Makespan, free)
	}
	// --no-barrier and --barrier=false turn policy plan into plan-no-barrier.
	for _, flag := range []string{"--no-barrier", "--barrier=false"} {
		code, out, errs := packer(t, "", "simulate", "--plan", path, "-p", "plan", flag, "--format", "csv")
		if code != 0 || !strings.Contains(out, "\nplan no-barrier,"+num(free)+",") {
			t.Errorf("%s: exit %d, stderr %q, output:\n%s", flag, code, errs, out)
		}
	}
}

// TestSimulateBadInput: each kind of bad input is one line on stderr, exit
// code 2, and no file written.
func TestSimulateBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"jobs": [{"name": "a", "arrival": -5, "maps": {"count": 1, "mean": 1}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.json")
	if code, _, errs := packer(t, "", "plan", "-w", "W1", "--output", plan); code != 0 {
		t.Fatalf("plan: %s", errs)
	}
	trace := filepath.Join(dir, "trace.csv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "fifo,lottery"}, `unknown policy "lottery"`},
		{[]string{"--map-slots", "0"}, "--map-slots must be at least 1, got 0"},
		{[]string{"-w", bad}, `bad.json: invalid simulation workload: jobs[0] ("a"): arrival must be finite, not negative`},
		{[]string{"-p", "plan"}, "plan needs --plan FILE"},
		{[]string{"--plan", plan, "--nodes", "10", "-p", "plan"}, "plan does not fit the simulation: plan"},
		{[]string{"-w", "W2", "--plan", plan, "-p", "plan"}, "its jobs are not workload W2's"},
		{[]string{"--heartbeat", "-1"}, "Heartbeat must be finite and not negative, got -1"},
		{[]string{"--trace", filepath.Join(dir, "missing", "t.csv")}, "directory"},
		{[]string{"-w", "W9"}, "--workload"},
	} {
		code, out, errs := packer(t, "", append([]string{"simulate", "--trace", trace}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", c.args, code, out, errs, c.want)
		}
		if _, err := os.Stat(trace); err == nil {
			t.Errorf("%v: the trace file was written", c.args)
			os.Remove(trace)
		}
	}
}
