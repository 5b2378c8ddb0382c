package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/internal/goldenfile"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/workloads"
)

// update is -update: the golden files are rewritten instead of compared.
var update = goldenfile.Update

// packer runs the CLI in-process and returns its exit code, stdout and stderr.
func packer(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"packer"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

func TestPlanDefaultIsW1(t *testing.T) {
	code, out, errs := packer(t, "", "plan")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"workload W1 (5 jobs)", "9 hosts × 2 disks = 18 primary VMs", "Makespan:", "Sequential makespan:", "Saving:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	golden(t, "plan-w1.txt", out)
}

func TestPlanJSON(t *testing.T) {
	code, out, errs := packer(t, "", "plan", "--workload", "W3", "--format", "json")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	pl, err := plan.Parse([]byte(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	if pl.Workload != "W3" || len(pl.Jobs) != 7 || pl.Cluster.Hosts != 9 || pl.Makespan >= pl.SequentialMakespan {
		t.Errorf("plan %s: %d jobs on %d hosts, makespan %v vs %v", pl.Workload, len(pl.Jobs), pl.Cluster.Hosts, pl.Makespan, pl.SequentialMakespan)
	}
	golden(t, "plan-w3.json", out)
}

func TestPlanOutputFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.json")
	code, out, errs := packer(t, "", "plan", "-w", "W5", "--hosts", "10", "--alpha", "1.5", "--algorithm", "sequential", "--output", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "algorithm sequential") {
		t.Errorf("table output expected on stdout:\n%s", out)
	}
	pl, err := plan.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Cluster.Hosts != 10 || pl.Cluster.Alpha != 1.5 || len(pl.Phases) != 5 || pl.SavingPercent != 0 {
		t.Errorf("sequential plan on 10 hosts: %+v, %d phases, saving %v", pl.Cluster, len(pl.Phases), pl.SavingPercent)
	}
	// One disk per host: r follows k unless given.
	if code, _, errs := packer(t, "", "plan", "--disks", "1"); code != 0 {
		t.Errorf("--disks 1: exit %d: %s", code, errs)
	}
}

func TestPlanWorkloadFile(t *testing.T) {
	dir := t.TempDir()
	w := &model.Workload{Name: "mine", Jobs: []model.Job{
		{Name: "etl", Model: model.PowerLaw{A: 1500, B: -0.55}, IOIntensive: true, Range: &model.NodeRange{Min: 2, Max: 6}},
		{Name: "train", Model: model.PowerLaw{A: 3000, B: -0.8}, CPUIntensive: true},
	}}
	b, _ := w.MarshalIndent()
	path := filepath.Join(dir, "mine.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := packer(t, "", "plan", "--workload", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "workload mine (2 jobs)") {
		t.Errorf("output:\n%s", out)
	}
	// etl was measured on 2–6 VMs; any plan on 18 VMs gives it more than 6 or
	// overcommits, and the table must flag counts outside the range.
	if !strings.Contains(out, " *") || !strings.Contains(out, "extrapolation") {
		t.Errorf("extrapolated VM counts not marked:\n%s", out)
	}
	// The same file through stdin.
	if code, out, _ := packer(t, string(b), "plan", "--workload", "-", "--format", "json"); code != 0 || !strings.Contains(out, `"extrapolated": true`) {
		t.Errorf("stdin: exit %d", code)
	}
}

func TestPlanBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing file", []string{"--workload", filepath.Join(dir, "nope.json")}, []string{"nope.json", "no such file"}},
		{"malformed", []string{"--workload", write("bad.json", "{\"jobs\": [\n{]}")}, []string{"bad.json", "line 2", "malformed"}},
		{"unknown built-in", []string{"--workload", "W9"}, []string{`"W9"`, "W1, W2"}},
		{"zero jobs", []string{"--workload", write("empty.json", `{"jobs": []}`)}, []string{"empty.json", "no jobs"}},
		{"duplicate names", []string{"--workload", write("dup.json", `{"jobs": [{"name": "a", "model": {"a": 1, "b": -1}}, {"name": "a", "model": {"a": 1, "b": -1}}]}`)}, []string{"dup.json", `"a"`, "already used"}},
		{"non-positive a", []string{"--workload", write("a.json", `{"jobs": [{"name": "sort", "model": {"a": -5, "b": -1}}]}`)}, []string{"a.json", `job "sort"`, "model.a", "-5"}},
		{"non-finite b", []string{"--workload", write("b.json", `{"jobs": [{"name": "sort", "model": {"a": 5, "b": 1e400}}]}`)}, []string{"b.json", "b"}},
		{"overflowing model", []string{"--workload", write("huge.json", `{"jobs": [{"name": "huge", "model": {"a": 1e308, "b": 5}}]}`)}, []string{"huge.json", `job "huge"`, "model.a", "1e+308"}},
		{"hosts", []string{"--hosts", "0"}, []string{"--hosts", "got 0"}},
		{"disks", []string{"--disks", "-1"}, []string{"--disks"}},
		{"ratio", []string{"--ratio", "0"}, []string{"--ratio"}},
		{"alpha", []string{"--alpha", "0.9"}, []string{"--alpha", "0.9"}},
		{"algorithm", []string{"--algorithm", "magic"}, []string{"magic"}},
		{"format", []string{"--format", "xml"}, []string{"xml"}},
		{"flag", []string{"--nonsense"}, []string{"nonsense"}},
		{"argument", []string{"W2"}, []string{"W2", "--workload"}},
		{"lp beside a bad output", []string{"--export-lp", filepath.Join(dir, "x.lp"), "--output", filepath.Join(dir, "no", "p.json")}, []string{"--output", "does not exist"}},
		{"output is a directory", []string{"--output", dir}, []string{"--output", "is a directory"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-")+".json")
			code, stdout, errs := packer(t, "", append([]string{"plan", "--output", out}, c.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, errs)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "packer: ") {
				t.Errorf("want one line starting with packer:, got %q", errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("output file %s left behind", out)
			}
		})
	}
	// No temporary files either.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWorkloadsCommands(t *testing.T) {
	code, out, _ := packer(t, "", "workloads")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, n := range workloads.Names() {
		if !strings.Contains(out, n) {
			t.Errorf("list lacks %s", n)
		}
	}
	code, out, _ = packer(t, "", "workloads", "show", "W2")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	w, err := model.ParseWorkload([]byte(out), "show")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := workloads.Get("W2")
	if len(w.Jobs) != len(want.Jobs) || w.Jobs[4].Model != want.Jobs[4].Model {
		t.Errorf("show W2 differs from the built-in")
	}
	if code, _, errs := packer(t, "", "workloads", "show", "W0"); code != 2 || !strings.Contains(errs, "W0") {
		t.Errorf("show W0: exit %d, %q", code, errs)
	}
}
