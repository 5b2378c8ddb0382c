package experiments

import (
	"errors"
	"reflect"
	"runtime"
	"testing"
)

// TestEachExperiment runs every experiment on its own in its reduced form
// (smaller workloads where the experiment has one, seeds 1–3) and compares
// every check with what was measured on those runs: notHolding lists the
// papers' directions that were measured not to hold; every other one must.
// A change that makes one of them hold, or breaks another, fails here and
// the list is updated from the new measurement.
// notHolding is what TestEachExperiment measured not to hold, by
// "experiment: claim". HybS's α = 1 against α = 0, Tyrex against the fair
// policies on MVW and LVW, at 90 % load and without slow-start, and
// tyrex-dynamic's against them on HVW, are the paper's claims this simulator
// does not reproduce on the reduced runs (docs/experiments.md says why).
var notHolding = map[string]bool{
	"hybs-exp1: hybs(1,-1,-1) has a lower mean response time than hybs(0,-1,-1)":                         true,
	"tyrex-hvw: tyrex-dynamic: p95 slowdown below the Tyrex paper's FAIR's (fair-by-tasks)":              true,
	"tyrex-hvw: tyrex-dynamic: V95 at most 3/4 of fair-by-tasks'":                                        true,
	"tyrex-hvw: tyrex-dynamic: p95 slowdown below max-min fair's":                                        true,
	"tyrex-mvw: tyrex-static: V95 within 25 % of fair-by-tasks', median below":                           true,
	"tyrex-mvw: tyrex-dynamic: p95 slowdown below the Tyrex paper's FAIR's (fair-by-tasks)":              true,
	"tyrex-mvw: tyrex-dynamic: V95 within 25 % of fair-by-tasks', median below":                          true,
	"tyrex-mvw: tyrex-dynamic: p95 slowdown below max-min fair's":                                        true,
	"tyrex-lvw: tyrex-static: p95 slowdown below the Tyrex paper's FAIR's (fair-by-tasks)":               true,
	"tyrex-lvw: tyrex-static: V95 within 25 % of fair-by-tasks', median below":                           true,
	"tyrex-lvw: tyrex-static: p95 slowdown below max-min fair's":                                         true,
	"tyrex-lvw: tyrex-dynamic: p95 slowdown below the Tyrex paper's FAIR's (fair-by-tasks)":              true,
	"tyrex-lvw: tyrex-dynamic: V95 within 25 % of fair-by-tasks', median below":                          true,
	"tyrex-lvw: tyrex-dynamic: p95 slowdown below max-min fair's":                                        true,
	"tyrex-load90: tyrex-static: no job slowdown above 10":                                               true,
	"tyrex-load90: tyrex-dynamic: V95 at most 3/4 of FIFO's":                                             true,
	"tyrex-load90: tyrex-dynamic: p95 slowdown below the Tyrex paper's FAIR's (fair-by-tasks)":           true,
	"tyrex-load90: tyrex-dynamic: V95 at most 3/4 of fair-by-tasks'":                                     true,
	"tyrex-load90: tyrex-dynamic: p95 slowdown below max-min fair's":                                     true,
	"tyrex-load90: tyrex-dynamic: no job slowdown above 10":                                              true,
	"tyrex-hvw-no-slowstart: tyrex-static: V95 at most 3/4 of fair-by-tasks'":                            true,
	"tyrex-hvw-no-slowstart: tyrex-static: p95 slowdown below max-min fair's":                            true,
	"tyrex-hvw-no-slowstart: tyrex-dynamic: p95 slowdown below the Tyrex paper's FAIR's (fair-by-tasks)": true,
	"tyrex-hvw-no-slowstart: tyrex-dynamic: V95 at most 3/4 of fair-by-tasks'":                           true,
	"tyrex-hvw-no-slowstart: tyrex-dynamic: p95 slowdown below max-min fair's":                           true,
}

func TestEachExperiment(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			r, err := Evaluate(e, seeds, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Checks) == 0 {
				t.Fatal("no checks")
			}
			for _, c := range r.Checks {
				if want := !notHolding[e.Name+": "+c.Claim]; c.Holds != want {
					t.Errorf("%s: %s: holds %v, measured %v before", e.Name, c.Claim, c.Holds, want)
				}
			}
			if len(r.Rows) != len(e.Rows) || !reflect.DeepEqual(r.Seeds, seeds) || r.Paper.Name != e.Paper.Name {
				t.Errorf("%d rows (want %d), seeds %v, paper %q (want %q)", len(r.Rows), len(e.Rows), r.Seeds, r.Paper, e.Paper)
			}
			for _, row := range r.Rows {
				if len(row.Values) != len(e.Columns) {
					t.Errorf("%s: %d values, want %d", row.Label, len(row.Values), len(e.Columns))
				}
				for i, v := range row.Values {
					if !(v.Min <= v.Median && v.Median <= v.Max) {
						t.Errorf("%s / %s: median %v outside [%v, %v]", row.Label, r.Columns[i], v.Median, v.Min, v.Max)
					}
				}
			}
		})
	}
}

// TestReproducible: the same seeds give the same numbers whatever the number
// of cores running them, and a second run gives the first one's numbers.
func TestReproducible(t *testing.T) {
	es, err := Select([]string{"hybs-exp1"})
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	one, err := Evaluate(es[0], []uint64{1, 2, 3}, true)
	runtime.GOMAXPROCS(max(prev, 2))
	if err != nil {
		t.Fatal(err)
	}
	two, err := Evaluate(es[0], []uint64{1, 2, 3}, true)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, two) {
		t.Errorf("GOMAXPROCS 1 and 2 differ:\n%+v\n%+v", one, two)
	}
}

// TestRegistry: names are unique, every experiment names a registered paper
// and every paper has an experiment; Select keeps the order named and
// rejects unknown names with ErrUnknown.
func TestRegistry(t *testing.T) {
	all := All()
	if len(all) != 13 {
		t.Errorf("%d experiments, want 13", len(all))
	}
	seen := map[string]bool{}
	perPaper := map[string]int{}
	for _, e := range all {
		if seen[e.Name] {
			t.Errorf("experiment %s listed twice", e.Name)
		}
		seen[e.Name] = true
		p, err := PaperNamed(e.Paper.Name)
		if err != nil || !reflect.DeepEqual(p, e.Paper) {
			t.Errorf("%s: paper %+v not in the registry: %v", e.Name, e.Paper, err)
		}
		perPaper[e.Paper.Name]++
		if e.Run == nil || e.Check == nil || e.Title == "" || len(e.Rows) == 0 || len(e.Columns) == 0 || len(e.Reported) > len(e.Rows) {
			t.Errorf("%s: incomplete definition", e.Name)
		}
	}
	for _, p := range Papers() {
		if perPaper[p.Name] == 0 {
			t.Errorf("paper %s has no experiment", p.Name)
		}
	}
	for _, names := range [][]string{nil, {"all"}} {
		if es, err := Select(names); err != nil || len(es) != len(all) {
			t.Errorf("Select(%q): %d experiments, %v; want all %d", names, len(es), err, len(all))
		}
	}
	es, err := Select([]string{"tyrex-lvw", "dp-80"})
	if err != nil || len(es) != 2 || es[0].Name != "tyrex-lvw" || es[1].Name != "dp-80" {
		t.Errorf("Select(tyrex-lvw, dp-80) = %d experiments, %v", len(es), err)
	}
	for _, names := range [][]string{{"no-such"}, {"dp-80", "all"}} {
		if _, err := Select(names); !errors.Is(err, ErrUnknown) {
			t.Errorf("Select(%q): %v, want ErrUnknown", names, err)
		}
	}
}
