package profile

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

func TestFitObservations(t *testing.T) {
	// Job a: F(n) = 100·n^(−0.5): 100 s on 1 node, 100·4^(−0.5) = 50 s on 4.
	// Job b: F(n) = 60·n^(−1): 30 s on 2 nodes, 15 s on 4. Two points each:
	// the fits are exact.
	csv := "job,nodes,seconds\na,1,100\nb,2,30\na,4,50\nb,4,15\n"
	fitted, err := FitObservations(strings.NewReader(csv), "runs/day one.csv", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	w, res := fitted.Workload, fitted.Results
	if w.Name != "day one" || w.Description != "fitted by packer fit from runs/day one.csv" || len(w.Jobs) != 2 || len(res) != 2 {
		t.Fatalf("workload %q (%q), %d jobs, %d results", w.Name, w.Description, len(w.Jobs), len(res))
	}
	for i, want := range []struct {
		name string
		a, b float64
	}{{"a", 100, -0.5}, {"b", 60, -1}} {
		f := res[i].Fit
		if w.Jobs[i].Name != want.name || math.Abs(f.A-want.a) > 1e-9*want.a || math.Abs(f.B-want.b) > 1e-9 {
			t.Errorf("job %d: %s a = %v, b = %v, want %s %v, %v", i, w.Jobs[i].Name, f.A, f.B, want.name, want.a, want.b)
		}
	}
	if f, err := FitObservations(strings.NewReader(csv), "x.csv", "given", nil); err != nil || f.Workload.Name != "given" {
		t.Errorf("named: %v, %v", f, err)
	}
	// Settings Analyze rejects fail on the first job, named by its line.
	_, err = FitObservations(strings.NewReader(csv), "x.csv", "", &Settings{IntervalLevel: 2})
	var in *model.InputError
	if !errors.As(err, &in) || !strings.HasPrefix(err.Error(), "x.csv: line 2: profile: IntervalLevel") {
		t.Errorf("bad settings: %v", err)
	}
}

// TestFitSkipsWhatCannotBeFitted: a history with a job measured at one node
// count, and one at three where Ernest is forced (it needs four), fits the
// rest and names those two with their lines; Strict refuses the file at the
// first; a file of only such jobs is refused with the first one's error.
func TestFitSkipsWhatCannotBeFitted(t *testing.T) {
	csv := "job,nodes,seconds\n" +
		"once,8,50\nonce,8,52\n" + // lines 2-3
		"three,2,40\nthree,4,22\nthree,8,13\n" + // lines 4-6
		"four,1,80\nfour,2,41\nfour,4,22\nfour,8,12\n" // lines 7-10
	f, err := FitObservations(strings.NewReader(csv), "h.csv", "", &Settings{Form: model.KindErnest})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Results) != 1 || f.Workload.Jobs[0].Name != "four" {
		t.Fatalf("fitted %d jobs: %+v", len(f.Results), f.Workload.Jobs)
	}
	want := []string{
		"h.csv:2: job once: measured at a single node count (8): a model needs at least two",
		"h.csv:4: job three: the ernest form cannot be fitted: too few distinct node counts for this form: ernest needs 4, got 3",
	}
	if len(f.Skipped) != len(want) {
		t.Fatalf("skipped %v", f.Skipped)
	}
	for i, w := range want {
		if got := f.Skipped[i].String(); got != w {
			t.Errorf("skipped %d: %q\nwant %q", i, got, w)
		}
	}
	// Under auto, three is fitted too (the power law needs two counts).
	if f, err := FitObservations(strings.NewReader(csv), "h.csv", "", nil); err != nil || len(f.Results) != 2 || len(f.Skipped) != 1 {
		t.Errorf("auto: %+v, %v", f, err)
	}
	_, err = FitObservations(strings.NewReader(csv), "h.csv", "", &Settings{Strict: true})
	if err == nil || err.Error() != `h.csv: line 2, column 2 (nodes): job "once" is measured at a single node count (8); a power law needs at least two` {
		t.Errorf("strict: %v", err)
	}
	_, err = FitObservations(strings.NewReader("job,nodes,seconds\nonce,8,50\n"), "h.csv", "", nil)
	if err == nil || !strings.Contains(err.Error(), `job "once" is measured at a single node count (8)`) {
		t.Errorf("nothing to fit: %v", err)
	}
}

func TestFitMeasured(t *testing.T) {
	ok := func(n int, s float64) model.Observation { return model.Observation{Nodes: n, Seconds: s} }
	failed := func(n int, msg string) model.Observation {
		return model.Observation{Nodes: n, Failed: true, Error: msg}
	}
	w, res, err := FitMeasured("sort", []string{"./sort.sh", "{nodes}"}, []model.Observation{ok(2, 40), ok(4, 20)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "sort" || w.Description != "profiled by packer profile: ./sort.sh {nodes}" || len(w.Jobs) != 1 || w.Jobs[0].Name != res.Job.Name {
		t.Errorf("workload %+v", w)
	}
	// One success, two failures: 1 of 3 runs, and the last failure quoted.
	_, _, err = FitMeasured("sort", nil, []model.Observation{failed(2, "first"), ok(2, 40), failed(4, "disk full")}, nil)
	want := "profile sort: 1 of 3 runs succeeded, at fewer than two distinct node counts: nothing to fit, nothing written; the last failed run (4 nodes): disk full"
	if err == nil || err.Error() != want {
		t.Errorf("too few runs: %v\nwant %s", err, want)
	}
}

func TestReferenceSource(t *testing.T) {
	// The default reference size is 6 nodes; runs with an I/O rate at the
	// listed node counts put it among, between or outside them.
	for _, c := range []struct {
		nodes []int
		want  string
	}{{[]int{4, 6, 8}, "measured"}, {[]int{4, 8}, "interpolated"}, {[]int{2, 4}, "nearest measured"}} {
		var obs []model.Observation
		for _, n := range c.nodes {
			io := 50.0
			obs = append(obs, model.Observation{Nodes: n, Seconds: 100 / float64(n), IOMBps: &io})
		}
		res, err := Analyze("j", obs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.ReferenceSource(); got != c.want {
			t.Errorf("runs at %v: %q, want %q", c.nodes, got, c.want)
		}
	}
}
