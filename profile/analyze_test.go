package profile

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/model"
)

func ptr(v float64) *float64 { return &v }

// obs is a successful observation with CPU and I/O.
func obs(n int, s, cpu, io float64) model.Observation {
	return model.Observation{Nodes: n, Seconds: s, CPUUtil: ptr(cpu), IOMBps: ptr(io)}
}

// A job measured at 2, 4 and 8 nodes, three repeats at 2, runtimes on
// 100/n except the repeats' spread. The reference size 6 was not measured, so
// the class comes from interpolating between 4 and 8 in log space:
// t = ln(6/4)/ln(8/4) = log₂1.5, and a value going from v₄ to v₈ becomes
// v₄·(v₈/v₄)^t. With I/O 50 → 200 MB/s: 50·4^(log₂1.5) = 50·1.5² = 112.5 MB/s
// > 100, I/O-intensive. With CPU 0.8 → 0.2: 0.8·(1/4)^(log₂1.5) = 0.8/2.25 =
// 0.3556 < 0.6, not CPU-intensive.
func TestAnalyzeHandWorked(t *testing.T) {
	in := []model.Observation{
		obs(2, 48, 0.9, 20), obs(2, 50, 0.9, 20), obs(2, 53, 0.9, 20),
		obs(4, 25, 0.8, 50),
		obs(8, 12.5, 0.2, 200),
		{Nodes: 8, Failed: true, Error: "exit status 1"},
	}
	r, err := Analyze("sort", in, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Job.Profile
	if !scalar.EqualWithinAbsOrRel(*p.IOMBps, 112.5, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(*p.CPUUtil, 0.8/2.25, 1e-9, 1e-9) {
		t.Errorf("at 6 nodes: io %v, cpu %v; want 112.5, 0.35556", *p.IOMBps, *p.CPUUtil)
	}
	if r.Job.Class() != "io" || p.ReferenceMeasured {
		t.Errorf("class %q, reference measured %v; want io, false", r.Job.Class(), p.ReferenceMeasured)
	}
	// Medians and spread per node count; the failed run is counted, not fitted.
	want := []NodeSummary{
		{Nodes: 2, Runs: 3, Median: 50, Min: 48, Max: 53, CPUUtil: ptr(0.9), IOMBps: ptr(20)},
		{Nodes: 4, Runs: 1, Median: 25, Min: 25, Max: 25, CPUUtil: ptr(0.8), IOMBps: ptr(50)},
		{Nodes: 8, Runs: 1, Failed: 1, Median: 12.5, Min: 12.5, Max: 12.5, CPUUtil: ptr(0.2), IOMBps: ptr(200)},
	}
	if !reflect.DeepEqual(want, r.Nodes) {
		t.Errorf("summary:\n got %s\nwant %s", jsonOf(r.Nodes), jsonOf(want))
	}
	if r.Fit.Points != 5 || *r.Job.Range != (model.NodeRange{Min: 2, Max: 8}) || len(p.Observations) != 6 {
		t.Errorf("fitted %d points over %+v with %d observations kept; want 5, 2–8, 6", r.Fit.Points, *r.Job.Range, len(p.Observations))
	}
	// All points fitted: the slope is near −1 but not exactly, as the repeats
	// at 2 nodes have a geometric mean of (48·50·53)^(1/3) = 50.313, not 50.
	if math.Abs(r.Fit.B+1) > 0.01 || r.Fit.B == -1 {
		t.Errorf("b = %v, want within 0.01 of −1 but not exactly", r.Fit.B)
	}
	if p.AInterval == nil || p.IntervalLevel != 0.95 || !(p.BInterval[0] < r.Fit.B && r.Fit.B < p.BInterval[1]) {
		t.Errorf("intervals %v %v at %v, want 95 %% intervals around the estimates", p.AInterval, p.BInterval, p.IntervalLevel)
	}
	wantWarn := []string{"1 of 6 runs failed", "reference size 6 nodes not measured"}
	if got := strings.Join(r.Warnings, "\n"); !strings.Contains(got, wantWarn[0]) || !strings.Contains(got, wantWarn[1]) || len(r.Warnings) != 2 {
		t.Errorf("warnings:\n%s\nwant exactly: %q", got, wantWarn)
	}
}

// The warnings the issue asks for, each on its own.
func TestAnalyzeWarnings(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []model.Observation
		want string
	}{
		// Two node counts: a line through two points, R² = 1 whatever.
		{"two node counts", []model.Observation{obs(6, 100, 0.5, 10), obs(12, 60, 0.5, 10)}, "only 2 distinct node counts"},
		// 10, 20, 40 s on 2, 4, 8 nodes: b = +1 exactly.
		{"slower with more nodes", []model.Observation{obs(2, 10, 0.5, 10), obs(4, 20, 0.5, 10), obs(6, 30, 0.5, 10), obs(8, 40, 0.5, 10)}, "b = 1.000 is positive"},
		// 10, 30, 10, 30 s: no trend, R² ≈ 0.
		{"poor fit", []model.Observation{obs(2, 10, 0.5, 10), obs(4, 30, 0.5, 10), obs(6, 10, 0.5, 10), obs(8, 30, 0.5, 10)}, "below 0.9"},
		// Measured at 1 and 2 nodes only: 6 is outside.
		{"reference outside", []model.Observation{obs(1, 10, 0.5, 10), obs(2, 6, 0.5, 10), obs(3, 4, 0.5, 10)}, "outside the measured range 1–3"},
		{"no cpu", []model.Observation{{Nodes: 2, Seconds: 10}, {Nodes: 6, Seconds: 5}, {Nodes: 8, Seconds: 4}}, "no CPU utilisation measured"},
		// C3O's sort r4.2xlarge 9530 medians: 112 s at 6 nodes after 96 s
		// at 4, and 110 s at 10 after 78 s at 8, before the fastest, 72 s
		// at 12.
		{"zigzag", []model.Observation{obs(2, 194, 0.5, 10), obs(4, 96, 0.5, 10), obs(6, 112, 0.5, 10), obs(8, 78, 0.5, 10), obs(10, 110, 0.5, 10), obs(12, 72, 0.5, 10)},
			"the table's medians zigzag: slower at 6 nodes (112 s) than at 4 (96 s), and 1 more node count like it"},
		// Past the fastest count: 60 s at 8 after 50 s at 6, 55 s at 10.
		{"zigzag past the fastest", []model.Observation{obs(2, 100, 0.5, 10), obs(4, 60, 0.5, 10), obs(6, 50, 0.5, 10), obs(8, 60, 0.5, 10), obs(10, 55, 0.5, 10)},
			"slower at 8 nodes (60 s) than at 10 (55 s);"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := &Settings{}
			if strings.HasPrefix(tc.name, "zigzag") {
				set.Form = model.KindTable
			}
			r, err := Analyze("j", tc.in, set)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(r.Warnings, "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("warnings:\n%s\nwant one containing %q", got, tc.want)
			}
		})
	}
	// A clean profile has no warnings, as a table too (falling, then
	// rising past the fastest count: a valley).
	for _, form := range []model.Kind{"", model.KindTable} {
		r, err := Analyze("j", []model.Observation{obs(2, 50, 0.7, 120), obs(4, 25, 0.7, 120), obs(6, 50.0/3, 0.7, 120), obs(8, 17, 0.7, 120)}, &Settings{Form: form})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Warnings) != 0 || r.Job.Class() != "cpu+io" || !r.Job.Profile.ReferenceMeasured {
			t.Errorf("form %q: warnings %q, class %q; want none, cpu+io", form, r.Warnings, r.Job.Class())
		}
	}
}

// A zero on either side cannot be interpolated in ln value: it falls back to
// linear in ln n. From 0 at 4 nodes to 10 at 8, 6 nodes is log₂1.5 = 0.585 of
// the way: 5.85 MB/s.
func TestAtReferenceZero(t *testing.T) {
	sum := []NodeSummary{{Nodes: 4, IOMBps: ptr(0)}, {Nodes: 8, IOMBps: ptr(10)}}
	v, exact, ok := atReference(sum, 6, func(n NodeSummary) *float64 { return n.IOMBps })
	if !ok || exact || !scalar.EqualWithinAbsOrRel(v, 10*math.Log2(1.5), 1e-12, 1e-12) {
		t.Errorf("got %v exact=%v ok=%v, want %v", v, exact, ok, 10*math.Log2(1.5))
	}
}

func TestAnalyzeRejects(t *testing.T) {
	if _, err := Analyze("j", []model.Observation{obs(2, 10, 0.5, 1), obs(2, 11, 0.5, 1)}, nil); !errors.Is(err, ErrTooFewNodeCounts) {
		t.Errorf("one node count: %v", err)
	}
	if _, err := Analyze("j", []model.Observation{obs(2, 10, 0.5, 1), obs(0, 11, 0.5, 1)}, nil); err == nil || !strings.Contains(err.Error(), "observation 2: nodes") {
		t.Errorf("zero nodes: %v", err)
	}
	if _, err := Analyze("j", []model.Observation{obs(2, 10, 0.5, 1), obs(3, 11, 0.5, 1)}, &Settings{Thresholds: model.Thresholds{CPUUtil: 2}}); err == nil {
		t.Error("cpu threshold 2 accepted")
	}
}

// Analyze is a pure function: same input, same output, also concurrently.
func TestAnalyzeDeterministic(t *testing.T) {
	in := []model.Observation{obs(2, 48, 0.9, 20), obs(4, 26, 0.8, 50), obs(8, 12, 0.2, 200)}
	first, err := Analyze("j", in, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Result, 4)
	for range 4 {
		go func() { r, _ := Analyze("j", in, nil); done <- r }()
	}
	for range 4 {
		if got := <-done; !reflect.DeepEqual(first, got) {
			t.Errorf("concurrent run differs:\n got %s\nwant %s", jsonOf(got), jsonOf(first))
		}
	}
}

// jsonOf renders a value for a failure message, pointers followed.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The acceptance check on what a profile reports: for 200 seeded jobs with
// multiplicative log-normal noise (σ = 0.1) on 3 repeats at 2, 4, 6 and 8
// nodes, the true a and b lie inside the profile's 95 % intervals in at least
// 90 % of the trials (≈ 95 % expected: 190 ± 3).
func TestAnalyzeIntervalsCoverTruth(t *testing.T) {
	const trueA, trueB, trials = 1500.0, -0.55, 200
	rng := rand.New(rand.NewPCG(2009, 3))
	inA, inB := 0, 0
	for range trials {
		var in []model.Observation
		for rep := 1; rep <= 3; rep++ {
			for _, n := range []int{2, 4, 6, 8} {
				s := trueA * math.Pow(float64(n), trueB) * math.Exp(0.1*rng.NormFloat64())
				in = append(in, model.Observation{Nodes: n, Repeat: rep, Seconds: s})
			}
		}
		r, err := Analyze("s-srt", in, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := r.Job.Profile.AInterval, r.Job.Profile.BInterval
		if a[0] <= trueA && trueA <= a[1] {
			inA++
		}
		if b[0] <= trueB && trueB <= b[1] {
			inB++
		}
	}
	t.Logf("true a inside in %d of %d trials, true b in %d", inA, trials, inB)
	if inA < trials*9/10 || inB < trials*9/10 {
		t.Errorf("coverage a %d, b %d of %d; want ≥ %d each", inA, inB, trials, trials*9/10)
	}
}
