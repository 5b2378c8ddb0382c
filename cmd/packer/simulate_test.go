package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/workloads"
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
	pl, err := plan.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := simulateJSON(t, "--plan", path, "-p", "sequential,plan,plan-no-barrier")
	seq, barrier, free := doc.Policies[0].Makespan, doc.Policies[1].Makespan, doc.Policies[2].Makespan
	if math.Abs(seq-pl.SequentialMakespan) > 1e-6 || math.Abs(barrier-pl.Makespan) > 1e-6 || free > barrier {
		t.Errorf("sequential %v (plan says %v), plan %v (plan says %v), no barrier %v", seq, pl.SequentialMakespan, barrier, pl.Makespan, free)
	}
	// --no-barrier and --barrier=false turn policy plan into plan-no-barrier;
	// the CSV rounds to a microsecond (sim.CSVPrecision).
	for _, flag := range []string{"--no-barrier", "--barrier=false"} {
		code, out, errs := packer(t, "", "simulate", "--plan", path, "-p", "plan", flag, "--format", "csv")
		if code != 0 || !strings.Contains(out, "\nplan no-barrier,"+num(math.Round(free*1e6)/1e6)+",") {
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
		{[]string{"-p", "fair:x"}, `unknown policy "fair:x"`},
		{[]string{"-p", "fair:3,fair:3"}, `"fair:3" is listed twice`},
		{[]string{"-p", "fair:1,fair:01"}, `"fair:1" and "fair:01" are the same policy (fair D=1)`},
		{[]string{"--map-slots", "0"}, "--map-slots must be at least 1, got 0"},
		{[]string{"--heartbeat", "1e-20"}, "--heartbeat must be 0 or between 0.001 and 1e+06 seconds, got 1e-20"},
		{[]string{"-w", bad}, `bad.json: invalid simulation workload: jobs[0] ("a"): arrival must be finite, not negative`},
		{[]string{"-p", "plan"}, "plan needs --plan FILE"},
		{[]string{"--plan", plan, "--nodes", "10", "-p", "plan"}, "plan does not fit the simulation: plan"},
		{[]string{"-w", "W2", "--plan", plan, "-p", "plan"}, "its jobs are not workload W2's"},
		{[]string{"--heartbeat", "-1"}, "--heartbeat must be 0 or between 0.001 and 1e+06 seconds, got -1"},
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

// TestSimulatePackerWorkloadFile: a packer workload file (job models) is
// converted as the README says; alone on the whole cluster every job takes
// exactly its model's F(N), so under sequential the makespan is Σ F_j(N) and
// job i's slowdown Σ_{k ≤ i} F_k(N) ÷ F_i(N).
func TestSimulatePackerWorkloadFile(t *testing.T) {
	code, doc, errs := packer(t, "", "workloads", "show", "W2")
	if code != 0 {
		t.Fatalf("workloads show: %s", errs)
	}
	path := filepath.Join(t.TempDir(), "w2.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := packer(t, "", "simulate", "-w", path, "-p", "sequential", "--nodes", "12", "--waves", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Tasks    int `json:"tasks"`
		Policies []struct {
			Makespan float64 `json:"makespan"`
			Jobs     []struct {
				Slowdown float64 `json:"slowdown"`
			} `json:"jobs"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	p, err := model.NewProblem(mustWorkload(t, "W2"), model.Cluster{Hosts: 6, DisksPerHost: 2}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	// 5 jobs × 2 waves × 12 nodes × 2 slots = 240 tasks.
	if want := p.SequentialMakespan(); res.Tasks != 240 || math.Abs(res.Policies[0].Makespan-want) > 1e-9*want {
		t.Errorf("%d tasks, makespan %v; want 240 and Σ F_j(12) = %v", res.Tasks, res.Policies[0].Makespan, want)
	}
	// Job i finishes at Σ_{k ≤ i} F_k(12) and takes F_i(12) alone.
	var done float64
	for i, j := range res.Policies[0].Jobs {
		f := p.Runtime(i, 12, model.Primary)
		done += f
		if want := done / f; math.Abs(j.Slowdown-want) > 1e-9*want {
			t.Errorf("job %d: slowdown %v under sequential, want %v", i, j.Slowdown, want)
		}
	}
}

func mustWorkload(t *testing.T, name string) *model.Workload {
	t.Helper()
	w, err := workloads.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSimulateFairDelays: fair:D and fair:D+R compare delays in one table.
func TestSimulateFairDelays(t *testing.T) {
	code, out, errs := packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "-p", "fair,fair:5,fair:5+3", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		names = append(names, strings.Split(line, ",")[0])
	}
	if got := strings.Join(names, " | "); got != "fair | fair D=5 | fair D=5+3" {
		t.Errorf("policies %q, want fair | fair D=5 | fair D=5+3", got)
	}
}

// num renders a float as the CSV outputs do (shortest round-trip form).
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// simJSON is what packer simulate --format json prints, as far as the tests
// read it.
type simJSON struct {
	Policies []struct {
		Policy   string  `json:"policy"`
		Makespan float64 `json:"makespan"`
		Jobs     []struct {
			Name   string  `json:"name"`
			Start  float64 `json:"start"`
			Finish float64 `json:"finish"`
		} `json:"jobs"`
	} `json:"policies"`
}

// simulateJSON runs packer simulate with args and --format json and decodes
// what it prints; a failure of either fails the test.
func simulateJSON(t *testing.T, args ...string) simJSON {
	t.Helper()
	code, out, errs := packer(t, "", append(append([]string{"simulate"}, args...), "--format", "json")...)
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	var doc simJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("simulate output %v: %s", err, out)
	}
	return doc
}
