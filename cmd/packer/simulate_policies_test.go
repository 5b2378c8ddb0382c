package main

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim"
)

func TestSimulateARFF(t *testing.T) {
	// One node, one map slot. A: 2 maps × 10 s; B: 1 map × 5 s; both at 0.
	// FIFO: A 0–20, B waits 20 s and runs 20–25: expansion (5 + 20)/5 = 5.
	// Means over the jobs: 1.5 tasks, 7.5 s per task, so A (2 tasks of 10 s)
	// is large and long, LL, and B small and short, SS.
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.json")
	if err := os.WriteFile(wl, []byte(`{"cluster": {"nodes": 1, "map_slots": 1, "replication": 1},
	 "jobs": [{"name": "A", "no_input": true, "maps": {"count": 2, "mean": 10}},
	          {"name": "B", "no_input": true, "maps": {"count": 1, "mean": 5}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	arff := filepath.Join(dir, "out.arff")
	code, _, errOut := packer(t, "", "simulate", "-w", wl, "-p", "fifo", "--arff", arff)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(arff)
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	for _, want := range []string{"@attribute expansion_factor numeric\n", "@data\n",
		"'fifo','A',2,10,0,1,20,20,1,LL\n", "'fifo','B',1,5,20,1,5,25,5,SS\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("ARFF lacks %q:\n%s", want, got)
		}
	}
}

func TestSimulateNewPolicies(t *testing.T) {
	// Every registered policy but the plan replays runs through the CLI on W1.
	var names []string
	for _, p := range sim.BuiltinPolicies {
		if !p.Replay {
			names = append(names, p.Name)
		}
	}
	code, out, errOut := packer(t, "", "simulate", "-p", strings.Join(names, ","), "--spending", "s-srt=2", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range names {
		if !strings.Contains(out, "\n"+p) {
			t.Errorf("no row for %s:\n%s", p, out)
		}
	}
	for _, args := range [][]string{
		{"simulate", "-p", "dp", "--spending", "a=0"},
		{"simulate", "-p", "dp", "--spending", "a"},
		{"simulate", "-p", "dp", "--spending", "a=NaN,a=2"},
		{"simulate", "-p", "tyrex-static", "--tyrex-timer", "-1"},
		{"simulate", "-p", "fifo", "--slowstart", "1.5"},
		{"simulate", "-p", "hybs", "--arff", "/no/such/dir/x.arff"},
	} {
		code, out, errOut := packer(t, "", args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, one line", args, code, out, errOut)
		}
	}
}

// FuzzParseSpending: any --spending value either parses into rates for
// non-empty users, which sim takes when positive and finite, or is a usage
// error (exit 2); never a panic.
func FuzzParseSpending(f *testing.F) {
	for _, s := range []string{"", "a=1", "a=2,b=0.5", " a = 3 ", "a", "=1", "a=0", "a=-1", "a=NaN", "a=Inf", "a=1,,b=2", "a=1e308,b=1e-300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rates, err := parseSpending(s)
		if err != nil {
			if exitCode(err) != 2 {
				t.Errorf("%q: error %v exits %d, want 2", s, err, exitCode(err))
			}
			return
		}
		bad := false
		for u, r := range rates {
			if u == "" {
				t.Errorf("%q: an empty user", s)
			}
			bad = bad || !(r > 0) || math.IsInf(r, 0)
		}
		if err := (&sim.PolicyOptions{Spending: rates}).Validate(); (err != nil) != bad {
			t.Errorf("%q: rates %v, sim says %v", s, rates, err)
		}
	})
}

func TestSimulateSlowstart(t *testing.T) {
	// The hand case of sim's slow-start test through the CLI: A (4 maps ×
	// 10 s, a 5 s reduce after a 2 s shuffle) holds the only reduce slot from
	// 10 with --slowstart 0.25, so B's reduce (submitted at 20) runs 47–50
	// instead of 20–23.
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.json")
	if err := os.WriteFile(wl, []byte(`{"cluster": {"nodes": 1, "map_slots": 1, "reduce_slots": 1, "replication": 1},
	 "jobs": [{"name": "A", "no_input": true, "maps": {"count": 4, "mean": 10}, "reduces": {"count": 1, "mean": 5}, "shuffle": 2},
	          {"name": "B", "arrival": 20, "reduces": {"count": 1, "mean": 3}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		slowstart string
		finishB   float64
	}{{"0", 23}, {"0.25", 50}} {
		r := simulateJSON(t, "-w", wl, "-p", "fifo", "--slowstart", c.slowstart)
		if len(r.Policies) != 1 || len(r.Policies[0].Jobs) != 2 {
			t.Fatalf("json: %+v", r)
		}
		if got := r.Policies[0].Jobs[1].Finish; got != c.finishB {
			t.Errorf("--slowstart %s: B finishes at %v, want %v", c.slowstart, got, c.finishB)
		}
	}
}

func TestSimulateHybSJobs(t *testing.T) {
	// The HybS paper's format: A has 4 tasks of 10 s, no wait, service level 0.5;
	// B 2 tasks of 10 s, 30 s already waited, level 1. One node, 4 slots,
	// hybs-fcfs (α = 1). With --hybs-jobs, B's t_d is 1 + 30 = 31 against
	// A's 1, so B leads and takes 2 slots 0–10; A may hold ⌈4 · 0.5⌉ = 2:
	// 0–10, then ⌈2 · 0.5⌉ = 1 at a time, 10–20 and 20–30. Without it both
	// waits are 1, the tie goes to A, which takes all 4 slots 0–10, and B
	// runs 10–20.
	dir := t.TempDir()
	hybs := filepath.Join(dir, "jobs.txt")
	if err := os.WriteFile(hybs, []byte("A 4 10 0 0.5\nB 2 10 30 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(dir, "w.json")
	if code, _, errOut := packer(t, "", "workloads", "import", "--format", "hybs", "--nodes", "1", "--map-slots", "4", "-o", wl, hybs); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	finish := func(args ...string) map[string][2]float64 {
		t.Helper()
		r := simulateJSON(t, append([]string{"-w", wl, "-p", "hybs-fcfs"}, args...)...)
		if len(r.Policies) != 1 {
			t.Fatalf("json: %+v", r)
		}
		m := map[string][2]float64{}
		for _, j := range r.Policies[0].Jobs {
			m[j.Name] = [2]float64{j.Start, j.Finish}
		}
		return m
	}
	if got, want := finish("--hybs-jobs", hybs), map[string][2]float64{"A": {0, 30}, "B": {0, 10}}; !reflect.DeepEqual(got, want) {
		t.Errorf("with --hybs-jobs: %v, want %v", got, want)
	}
	if got, want := finish(), map[string][2]float64{"A": {0, 10}, "B": {10, 20}}; !reflect.DeepEqual(got, want) {
		t.Errorf("without: %v, want %v", got, want)
	}
	// The ARFF summary carries the file's service levels: A's 0.5, wait 0,
	// run 30, response 30; B's 1.
	arff := filepath.Join(dir, "out.arff")
	if code, _, errOut := packer(t, "", "simulate", "-w", wl, "-p", "hybs-fcfs", "--hybs-jobs", hybs, "--arff", arff); code != 0 {
		t.Fatalf("arff: exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(arff)
	for _, want := range []string{"'hybs-fcfs','A',4,10,0,0.5,30,30,1,LS\n", "'hybs-fcfs','B',2,10,0,1,10,10,1,SS\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("ARFF lacks %q:\n%s", want, data)
		}
	}
	if code, out, _ := packer(t, "", "simulate", "-w", wl, "-p", "hybs", "--hybs-jobs", filepath.Join(dir, "none.txt")); code != 2 || out != "" {
		t.Errorf("missing --hybs-jobs file: exit %d, stdout %q; want 2 and nothing", code, out)
	}
}
