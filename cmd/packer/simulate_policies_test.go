package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	// Every policy of issue 6 runs through the CLI on W1.
	code, out, errOut := packer(t, "", "simulate", "-p", strings.Join(extraPolicies, ","), "--spending", "s-srt=2", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range extraPolicies {
		if !strings.Contains(out, "\n"+p) {
			t.Errorf("no row for %s:\n%s", p, out)
		}
	}
	for _, args := range [][]string{
		{"simulate", "-p", "dp", "--spending", "a=0"},
		{"simulate", "-p", "dp", "--spending", "a"},
		{"simulate", "-p", "tyrex-static", "--tyrex-timer", "-1"},
		{"simulate", "-p", "hybs", "--arff", "/no/such/dir/x.arff"},
	} {
		code, out, errOut := packer(t, "", args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, one line", args, code, out, errOut)
		}
	}
}
