package sim_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/packer-sched/packer/sim"
)

// rankCase is three jobs, one per size class: s (2 tasks), m (20) and l
// (150), alone 2, 50 and 1000 s, under two policies:
//
//	fifo: responses 10, 100, 1000 s → slowdowns 5, 2, 1; p95 5; makespan 1000
//	fair: responses  4, 120, 1100 s → slowdowns 2, 2.4, 1.1; p95 2.4; makespan 1100
//
// and a third, same, whose jobs are fifo's.
func rankCase() (*sim.Workload, []*sim.Result) {
	w := &sim.Workload{Name: "three", Jobs: []sim.Job{
		{Name: "s", Maps: sim.Tasks{Count: 1, Mean: 2}, Reduces: sim.Tasks{Count: 1, Mean: 1}},
		{Name: "m", Maps: sim.Tasks{Count: 20, Mean: 5}},
		{Name: "l", Maps: sim.Tasks{Count: 150, Mean: 10}},
	}}
	alone := []float64{2, 50, 1000}
	result := func(policy string, resp ...float64) *sim.Result {
		r := &sim.Result{Policy: policy}
		for i, v := range resp {
			r.Jobs = append(r.Jobs, sim.JobResult{Name: w.Jobs[i].Name, Finish: v, Response: v})
			r.Makespan = max(r.Makespan, v)
		}
		r.Summarize(alone)
		return r
	}
	return w, []*sim.Result{result("fifo", 10, 100, 1000), result("fair", 4, 120, 1100), result("same", 10, 100, 1000)}
}

// TestRankP95Slowdown: fair's p95 slowdown 2.4 beats fifo's and same's 5
// (tied, second). Against fair, fifo's small job is 6 s slower (slowdown 5
// against 2), its medium job 20 s and its large job 100 s faster.
func TestRankP95Slowdown(t *testing.T) {
	w, rs := rankCase()
	got, err := sim.Rank(w, rs, "p95-slowdown")
	if err != nil {
		t.Fatal(err)
	}
	fifo := []sim.ClassChange{
		{Class: "small", Jobs: 1, Slower: 1, Value: 5, AgainstValue: 2, ResponseChange: 6},
		{Class: "medium", Jobs: 1, Faster: 1, Value: 2, AgainstValue: 2.4, ResponseChange: -20},
		{Class: "large", Jobs: 1, Faster: 1, Value: 1, AgainstValue: 1.1, ResponseChange: -100},
	}
	want := &sim.Ranking{Metric: "p95-slowdown", Against: "fair", Places: []sim.Place{
		{Rank: 1, Policy: "fair", Value: 2.4},
		{Rank: 2, Policy: "fifo", Value: 5, Classes: fifo},
		{Rank: 2, Policy: "same", Value: 5, Classes: fifo},
	}}
	if g, w := fmt.Sprintf("%+v", got.Places), fmt.Sprintf("%+v", want.Places); g != w || got.Against != want.Against || got.Metric != want.Metric {
		t.Errorf("ranking %s against %s: %s\nwant %s against %s: %s", got.Metric, got.Against, g, want.Metric, want.Against, w)
	}
	lines := strings.Join(got.Lines(), "\n")
	for _, want := range []string{
		"Ranked by p95 slowdown (lower is better):",
		"  1. fair  2.40",
		"  2. fifo  5.00",
		"  2. same  5.00",
		"Why, against fair, by job size:",
		"  policy  size    jobs  p95 slowdown  fair's  faster  slower  mean response",
		"  fifo    small      1          5.00    2.00       0       1         +6.0 s",
		"  fifo    large      1          1.00    1.10       1       0       -100.0 s",
		"Sizes: small ≤ 10 tasks, medium 11–100 tasks, large > 100 tasks.",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("lines lack %q:\n%s", want, lines)
		}
	}
}

// TestRankMakespan: fifo's makespan 1000 s beats fair's 1100 s; fair's small
// job is 6 s faster, its medium and large jobs 20 and 100 s slower.
func TestRankMakespan(t *testing.T) {
	w, rs := rankCase()
	got, err := sim.Rank(w, rs[:2], "makespan")
	if err != nil {
		t.Fatal(err)
	}
	if got.Against != "fifo" || got.Places[1].Policy != "fair" || got.Places[1].Value != 1100 {
		t.Fatalf("got %+v, want fifo then fair at 1100", got)
	}
	want := []sim.ClassChange{
		{Class: "small", Jobs: 1, Faster: 1, Value: 4, AgainstValue: 10, ResponseChange: -6},
		{Class: "medium", Jobs: 1, Slower: 1, Value: 120, AgainstValue: 100, ResponseChange: 20},
		{Class: "large", Jobs: 1, Slower: 1, Value: 1100, AgainstValue: 1000, ResponseChange: 100},
	}
	if !reflect.DeepEqual(want, got.Places[1].Classes) {
		t.Errorf("fair against fifo:\ngot  %+v\nwant %+v", got.Places[1].Classes, want)
	}
	if l := got.Lines(); !strings.Contains(strings.Join(l, "\n"), "  2. fair  1100.0 s") {
		t.Errorf("lines:\n%s", strings.Join(l, "\n"))
	}
}

func TestRankErrors(t *testing.T) {
	w, rs := rankCase()
	if _, err := sim.Rank(w, rs, "fastest"); !errors.Is(err, sim.ErrUnknownMetric) || !strings.Contains(err.Error(), "p95-slowdown") {
		t.Errorf("unknown metric: %v", err)
	}
	short := *rs[0]
	short.Jobs = short.Jobs[:2]
	if _, err := sim.Rank(w, []*sim.Result{rs[1], &short}, "v95"); !errors.Is(err, sim.ErrRankJobs) {
		t.Errorf("a result with two of three jobs: %v", err)
	}
	for _, m := range sim.RankMetricNames() {
		if _, err := sim.Rank(w, rs, m); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestSameAs: same's jobs are fifo's; fair's are not. A job moved by half
// the tolerance is still the same; by twice it, not.
func TestSameAs(t *testing.T) {
	_, rs := rankCase()
	if got := sim.SameAs(rs); !reflect.DeepEqual(got, []int{-1, -1, 0}) {
		t.Errorf("SameAs = %v, want [-1 -1 0]", got)
	}
	near := *rs[0]
	near.Jobs = slices.Clone(near.Jobs)
	near.Jobs[1].Finish += sim.RankTolerance / 2
	far := near
	far.Jobs = slices.Clone(near.Jobs)
	far.Jobs[1].Finish += 2 * sim.RankTolerance
	if got := sim.SameAs([]*sim.Result{rs[0], &near, &far}); !reflect.DeepEqual(got, []int{-1, 0, -1}) {
		t.Errorf("SameAs = %v, want [-1 0 -1]", got)
	}
}

// TestCompareSaysSame: one job alone is scheduled alike by fifo and fair;
// Compare notes that fair's run is fifo's.
func TestCompareSaysSame(t *testing.T) {
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 1, MapSlots: 2}, Jobs: []sim.Job{{Name: "A", Maps: sim.Tasks{Count: 4, Mean: 10}}}}
	es, err := sim.ParsePolicies([]string{"fifo", "fair", "sequential"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sim.Compare(&sim.Comparison{Workload: w, Entries: es})
	if err != nil {
		t.Fatal(err)
	}
	want := "fair: every job starts and finishes as under fifo: their rows and slowdown lines are the same"
	if got := strings.Join(sim.NoteLines(out), "\n"); !strings.Contains(got, want) || !strings.Contains(got, "sequential: every job starts and finishes as under fifo") {
		t.Errorf("notes %q lack %q and sequential's", got, want)
	}
}

// TestRankLinesWidth: with the longest built-in policy names and response
// times in seconds, every line of the ranking fits sim.RankWidth columns.
func TestRankLinesWidth(t *testing.T) {
	w, rs := rankCase()
	for i, name := range []string{"tyrex-dynamic", "fair-by-tasks", "tyrex-static"} {
		r := *rs[i]
		r.Policy = name
		rs[i] = &r
	}
	for _, metric := range sim.RankMetricNames() {
		rk, err := sim.Rank(w, rs, metric)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range rk.Lines() {
			if n := utf8.RuneCountInString(l); n > sim.RankWidth {
				t.Errorf("%s: line of %d columns: %q", metric, n, l)
			}
		}
	}
}
