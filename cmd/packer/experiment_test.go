package main

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestExperimentDirections runs every experiment in its reduced form (smaller
// workloads where the experiment has one, seeds 1–3) and asserts the seeds'
// directions: every check not marked Soft must hold on the medians. Soft
// checks are the seeds' claims this simulator is known not to reproduce
// (README, Experiments).
func TestExperimentDirections(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	for _, e := range experiments() {
		t.Run(e.name, func(t *testing.T) {
			r, err := runExperiment(e, seeds, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Checks) == 0 {
				t.Fatal("no checks")
			}
			for _, c := range r.Checks {
				if !c.Holds && !c.Soft {
					t.Errorf("%s: %s does not hold", e.name, c.Claim)
				}
			}
			for _, row := range r.Rows {
				for i, v := range row.Values {
					if !(v.Min <= v.Median && v.Median <= v.Max) {
						t.Errorf("%s / %s: median %v outside [%v, %v]", row.Label, r.Columns[i], v.Median, v.Min, v.Max)
					}
				}
			}
		})
	}
}

// TestExperimentReproducible: the same seeds give the same numbers whatever
// the number of cores running them.
func TestExperimentReproducible(t *testing.T) {
	var e experiment
	for _, x := range experiments() {
		if x.name == "hybs-exp1" {
			e = x
		}
	}
	prev := runtime.GOMAXPROCS(1)
	one, err := runExperiment(e, []uint64{1, 2, 3}, true)
	runtime.GOMAXPROCS(max(prev, 2))
	if err != nil {
		t.Fatal(err)
	}
	two, err := runExperiment(e, []uint64{1, 2, 3}, true)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, two) {
		t.Errorf("GOMAXPROCS 1 and 2 differ:\n%+v\n%+v", one, two)
	}
}

func TestSummarise(t *testing.T) {
	// Odd count: the middle value; even: the mean of the middle two.
	if v := summarise([]float64{5, 1, 3}); v != (expValue{Median: 3, Min: 1, Max: 5}) {
		t.Errorf("summarise(5, 1, 3) = %+v", v)
	}
	if v := summarise([]float64{4, 1, 3, 10}); v != (expValue{Median: 3.5, Min: 1, Max: 10}) {
		t.Errorf("summarise(4, 1, 3, 10) = %+v", v)
	}
}

func TestExperimentCLI(t *testing.T) {
	code, out, _ := packer(t, "", "experiment", "list")
	if code != 0 {
		t.Fatalf("list: exit %d", code)
	}
	for _, name := range []string{"dp-budget", "dp-shares", "dp-80", "dp-boost", "delay-locality", "hybs-exp1", "hybs-exp2", "tyrex-hvw", "tyrex-mvw", "tyrex-lvw", "tyrex-load90", "tyrex-hvw-no-slowstart", "packing-w1-w6"} {
		if !strings.Contains(out, name) {
			t.Errorf("list does not name %s:\n%s", name, out)
		}
	}
	code, out, _ = packer(t, "", "experiment", "run", "--seeds", "1", "--format", "json", "hybs-exp2")
	if code != 0 {
		t.Fatalf("run hybs-exp2: exit %d", code)
	}
	var rs []expResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 || rs[0].Name != "hybs-exp2" || len(rs[0].Rows) != 4 {
		t.Fatalf("json: %v, %d results:\n%s", err, len(rs), out)
	}
	code, out, _ = packer(t, "", "experiment", "run", "--seeds", "1", "hybs-exp2")
	if code != 0 || !strings.Contains(out, "hybs(1,-1,-1)") || !strings.Contains(out, "2.1× faster than fair") {
		t.Errorf("table: exit %d:\n%s", code, out)
	}
	for _, args := range [][]string{
		{"experiment", "run", "no-such"},
		{"experiment", "run", "--seeds", "0", "hybs-exp1"},
		{"experiment", "run", "--format", "csv", "hybs-exp1"},
		{"experiment", "run", "hybs-exp1", "--seeds", "2"},
		{"experiment", "list", "extra"},
	} {
		code, out, errOut := packer(t, "", args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, one line", args, code, out, errOut)
		}
	}
}
