package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim"
)

func TestSummarise(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want Value
	}{
		{[]float64{7}, Value{Median: 7, Min: 7, Max: 7}},
		// Odd count: the middle of 1, 3, 5.
		{[]float64{5, 1, 3}, Value{Median: 3, Min: 1, Max: 5}},
		// Even count: the mean of the middle two of 1, 3, 4, 10 = 3.5.
		{[]float64{4, 1, 3, 10}, Value{Median: 3.5, Min: 1, Max: 10}},
		{[]float64{-2, -2, 6, 6}, Value{Median: 2, Min: -2, Max: 6}},
	} {
		xs := append([]float64(nil), c.xs...)
		if got := Summarise(c.xs); got != c.want {
			t.Errorf("Summarise(%v) = %+v, want %+v", c.xs, got, c.want)
		}
		if !reflect.DeepEqual(xs, c.xs) {
			t.Errorf("Summarise reordered its argument: %v", c.xs)
		}
	}
}

// fakeExperiment's table for seed s is {{s, 10s}, {100 − s, 7}}: known
// medians and ranges whatever the seeds.
func fakeExperiment() Experiment {
	return Experiment{
		Name: "fake", Paper: DPPaper, Title: "fake",
		Columns: []string{"a", "b"}, Rows: []string{"r1", "r2"}, Reported: []string{"about 1"},
		Run: func(seed uint64, small bool) (Table, error) {
			s := float64(seed)
			return Table{{s, 10 * s}, {100 - s, 7}}, nil
		},
		Check: func(med Table) []Check {
			return []Check{{Claim: "r1 a below 3", Holds: med[0][0] < 3}}
		},
	}
}

func TestEvaluateArithmetic(t *testing.T) {
	// Seeds 3, 1, 2, 10: r1/a is 1, 2, 3, 10 sorted, median (2 + 3)/2 = 2.5;
	// r1/b is ten times that: 25 in [10, 100]; r2/a is 97, 99, 98, 90 → 90,
	// 97, 98, 99, median 97.5; r2/b is 7 throughout.
	r, err := Evaluate(fakeExperiment(), []uint64{3, 1, 2, 10}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := &Result{Name: "fake", Paper: DPPaper, Title: "fake", Seeds: []uint64{3, 1, 2, 10}, Columns: []string{"a", "b"},
		Rows: []Row{
			{Label: "r1", Paper: "about 1", Values: []Value{{2.5, 1, 10}, {25, 10, 100}}},
			{Label: "r2", Values: []Value{{97.5, 90, 99}, {7, 7, 7}}},
		},
		// The check sees the medians: 2.5 < 3.
		Checks: []Check{{Claim: "r1 a below 3", Holds: true}},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Evaluate:\n got %+v\nwant %+v", r, want)
	}
	// Seeds 4, 5, 6: median 5, not below 3.
	if r, err = Evaluate(fakeExperiment(), []uint64{4, 5, 6}, false); err != nil || r.Checks[0].Holds {
		t.Errorf("seeds 4–6: %+v, %v; want the check not to hold", r, err)
	}
}

func TestEvaluateErrors(t *testing.T) {
	e := fakeExperiment()
	e.Run = func(seed uint64, small bool) (Table, error) {
		if seed == 2 {
			return nil, errors.New("boom")
		}
		return Table{{1, 2}, {3, 4}}, nil
	}
	if _, err := Evaluate(e, []uint64{1, 2, 3}, false); err == nil || !strings.Contains(err.Error(), "fake, seed 2: boom") {
		t.Errorf("failing seed: %v", err)
	}
	e.Run = func(seed uint64, small bool) (Table, error) { return Table{{1, 2}}, nil }
	if _, err := Evaluate(e, []uint64{1}, false); err == nil {
		t.Error("a table with too few rows was accepted")
	}
	e.Run = func(seed uint64, small bool) (Table, error) { return Table{{1, 2}, {3}}, nil }
	if _, err := Evaluate(e, []uint64{1}, false); err == nil {
		t.Error("a row with too few values was accepted")
	}
	if _, err := Evaluate(fakeExperiment(), nil, false); err == nil {
		t.Error("no seeds accepted")
	}
}

func TestSettings(t *testing.T) {
	var s Settings
	if err := s.validate(); err != nil || s.Seeds != DefaultSeeds {
		t.Errorf("zero settings: %+v, %v; want %d seeds", s, err, DefaultSeeds)
	}
	for _, n := range []int{-1, MaxSeeds + 1} {
		s := Settings{Seeds: n}
		if err := s.validate(); err == nil || !strings.Contains(err.Error(), "Seeds") {
			t.Errorf("Seeds %d: %v, want an error naming Seeds", n, err)
		}
		if _, err := Run([]string{"hybs-exp2"}, &s); err == nil {
			t.Errorf("Run with Seeds %d accepted", n)
		}
	}
	if _, err := Run([]string{"no-such"}, nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("Run(no-such): %v, want ErrUnknown", err)
	}
	rs, err := Run([]string{"hybs-exp2"}, &Settings{Seeds: 2, Small: true})
	if err != nil || len(rs) != 1 || !reflect.DeepEqual(rs[0].Seeds, []uint64{1, 2}) {
		t.Errorf("Run(hybs-exp2, 2 seeds): %v, %+v", err, rs)
	}
}

func TestValueFormat(t *testing.T) {
	for _, c := range []struct {
		v     Value
		seeds int
		want  string
	}{
		{Value{Median: 3.14159, Min: 1, Max: 5}, 1, "3.14"},
		{Value{Median: 2, Min: 2, Max: 2}, 5, "2.00"},
		// 0 decimals from 100, 1 from 10, 2 below; negatives by magnitude.
		{Value{Median: 12.34, Min: 9.5, Max: 123.4}, 3, "12.3 [9.50–123]"},
		{Value{Median: -15, Min: -150, Max: 0.5}, 3, "-15.0 [-150–0.50]"},
	} {
		if got := c.v.Format(c.seeds); got != c.want {
			t.Errorf("%+v over %d seeds: %q, want %q", c.v, c.seeds, got, c.want)
		}
	}
}

func TestCheckVerdict(t *testing.T) {
	for c, want := range map[Check]string{
		{Holds: true}: "holds",
		{}:            "does not hold",
	} {
		if got := c.Verdict(); got != want {
			t.Errorf("%+v: %q, want %q", c, got, want)
		}
	}
}

func TestPapers(t *testing.T) {
	if got, want := PackingPaper.Cite(), "Aboulnaga et al., CloudDB 2009"; got != want {
		t.Errorf("Cite: %q, want %q", got, want)
	}
	if got, want := DPPaper.Cite(), "Sandholm & Lai, JSSPP 2010"; got != want {
		t.Errorf("Cite: %q, want %q", got, want)
	}
	if got, want := (Paper{Authors: []string{"Knuth"}, Venue: "CACM 1974"}).Cite(), "Knuth, CACM 1974"; got != want {
		t.Errorf("Cite: %q, want %q", got, want)
	}
	if got, want := TyrexPaper.Citation(), `Ghiț, Epema, "Tyrex: Size-Based Resource Allocation in MapReduce Frameworks", CCGrid 2016`; got != want {
		t.Errorf("Citation: %q, want %q", got, want)
	}
	names := map[string]bool{}
	for _, p := range Papers() {
		if names[p.Name] || p.Name == "" || len(p.Authors) == 0 || p.Title == "" || p.Venue == "" {
			t.Errorf("paper %+v: duplicate or incomplete", p)
		}
		names[p.Name] = true
	}
	// JSON names a paper by its short name and reads it back from the registry.
	b, err := json.Marshal(struct{ P Paper }{HybSPaper})
	if err != nil || string(b) != `{"P":"hybs"}` {
		t.Fatalf("marshal: %s, %v", b, err)
	}
	var back struct{ P Paper }
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.P, HybSPaper) {
		t.Errorf("unmarshal: %+v, %v", back.P, err)
	}
	if err := json.Unmarshal([]byte(`{"P":"000"}`), &back); !errors.Is(err, ErrUnknown) {
		t.Errorf("unmarshal of an unknown paper: %v, want ErrUnknown", err)
	}
}

func TestMapShares(t *testing.T) {
	// q1 starts its last map at 12, q2 at 10, so both compete until 10.
	// q1: [0,10] → 10 s and [2,10] → 8 s; [12,20] starts after. q2: [0,30]
	// cut at 10 → 10 s; [10,40] → 0 s. The reduce is not counted. Total 28 s:
	// q1 18/28 = 64.29 %, q2 10/28 = 35.71 %.
	w := &sim.Workload{Jobs: []sim.Job{{User: "q1"}, {User: "q2"}}}
	spans := []span{
		{0, 10, 0, sim.Map}, {2, 10, 0, sim.Map}, {12, 20, 0, sim.Map},
		{0, 30, 1, sim.Map}, {10, 40, 1, sim.Map}, {0, 5, 1, sim.Reduce},
	}
	got := mapShares(w, spans, 2)
	for q, want := range []float64{100 * 18.0 / 28, 100 * 10.0 / 28} {
		if math.Abs(got[q]-want) > 1e-9 {
			t.Errorf("q%d: %v %%, want %v", q+1, got[q], want)
		}
	}
}

func TestCheckPacking(t *testing.T) {
	// Columns: plan sequential, pair, pso, exact; their replays; fifo, fair.
	good := []float64{100, 80, 75, 70, 101, 81, 76, 71, 90, 95}
	for i, c := range []struct {
		row  []float64
		want [3]bool
	}{
		{good, [3]bool{true, true, true}},
		// exact (78) above pso (75): order fails.
		{[]float64{100, 80, 75, 78, 101, 81, 76, 79, 90, 95}, [3]bool{false, true, true}},
		// The exact replay 10 % over its plan (77 vs 70): tracking fails.
		{[]float64{100, 80, 75, 70, 101, 81, 76, 77, 90, 95}, [3]bool{true, false, true}},
		// Fair (65) beats the exact replay (71).
		{[]float64{100, 80, 75, 70, 101, 81, 76, 71, 90, 65}, [3]bool{true, true, false}},
	} {
		cs := checkPacking(Table{good, c.row})
		for k := range cs {
			if cs[k].Holds != c.want[k] {
				t.Errorf("case %d, %q: holds %v, want %v", i, cs[k].Claim, cs[k].Holds, c.want[k])
			}
		}
	}
}

func TestEvaluateTicksOncePerSeed(t *testing.T) {
	// Seeds run concurrently; tick must see each finished run exactly once,
	// one call at a time (the race detector checks the "one at a time").
	n := 0
	if _, err := evaluate(fakeExperiment(), []uint64{1, 2, 3, 4, 5, 6, 7}, false, func() { n++ }); err != nil {
		t.Fatal(err)
	}
	if n != 7 {
		t.Errorf("tick called %d times for 7 seeds", n)
	}
}

func TestRunReportsProgress(t *testing.T) {
	var got []string
	set := &Settings{Seeds: 2, Small: true, Progress: func(done, total int, name string) {
		got = append(got, fmt.Sprintf("%d/%d %s", done, total, name))
	}}
	names := []string{All()[0].Name, All()[1].Name}
	if _, err := Run(names, set); err != nil {
		t.Fatal(err)
	}
	want := []string{"1/4 " + names[0], "2/4 " + names[0], "3/4 " + names[1], "4/4 " + names[1]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("progress calls %q, want %q", got, want)
	}
}

// TestSummaryTalliesByPaper: two dp results with checks (holds, does not)
// and (holds), one delay result with (does not): dp 2 of 3, delay 0 of 1,
// all 2 of 4; papers in the order they first appear.
func TestSummaryTalliesByPaper(t *testing.T) {
	rs := []*Result{
		{Paper: DPPaper, Checks: []Check{{Holds: true}, {Holds: false}}},
		{Paper: DelayPaper, Checks: []Check{{Holds: false}}},
		{Paper: DPPaper, Checks: []Check{{Holds: true}}},
	}
	got := Summary(rs)
	want := []Tally{{DPPaper, 2, 3}, {DelayPaper, 0, 1}, {Paper{}, 2, 4}}
	if len(got) != len(want) {
		t.Fatalf("Summary = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Paper.Name != want[i].Paper.Name || got[i].Holds != want[i].Holds || got[i].Claims != want[i].Claims {
			t.Errorf("Summary[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
