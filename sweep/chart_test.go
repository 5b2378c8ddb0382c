package sweep

import (
	"math"
	"reflect"
	"testing"
)

// simLine is a simulate point's line with makespan and p95 slowdown set.
func simLine(workload, policy string, nodes int, seed uint64, makespan, p95 float64, failed bool) Line {
	l := Line{Run: Simulate, Workload: workload, Nodes: &nodes, Policy: policy, Seed: seed, Options: "now"}
	if failed {
		l.Error = "stalled"
		return l
	}
	l.Simulate = &SimMetrics{ClusterNodes: nodes, Makespan: Num(makespan), P95Slowdown: Num(p95), MeanSlowdown: Num(math.NaN())}
	return l
}

// TestChartHandWorked: a panel per workload; a line per policy in
// every panel, in the sweep's order; at each size the mean, least and
// greatest over the seeds, worked by hand; failed runs left out and
// counted in the legend; a slowdown over no jobs left out; minutes for
// a panel whose makespans reach 3 minutes, seconds in one whose do not.
func TestChartHandWorked(t *testing.T) {
	res := &Results{Run: Simulate, Lines: []Line{
		simLine("W1", "fifo", 20, 1, 600, 3, false), simLine("W1", "fifo", 20, 2, 660, 4, false), simLine("W1", "fifo", 20, 3, 900, 5, false),
		simLine("W1", "fair", 20, 1, 540, 2, false), simLine("W1", "fair", 20, 2, 0, 0, true), simLine("W1", "fair", 20, 3, 540, 2, false),
		simLine("W1", "fifo", 10, 1, 1200, 6, false), simLine("W1", "fifo", 10, 2, 1200, 6, false), simLine("W1", "fifo", 10, 3, 1200, 6, false),
		simLine("W1", "fair", 10, 1, 0, 0, true), simLine("W1", "fair", 10, 2, 0, 0, true), simLine("W1", "fair", 10, 3, 0, 0, true),
		simLine("W3", "fifo", 10, 1, 120, 1, false), simLine("W3", "fifo", 10, 2, 120, 1, false), simLine("W3", "fifo", 10, 3, 120, 1, false),
	}}
	panels, cols, err := res.Chart("makespan")
	if err != nil {
		t.Fatal(err)
	}
	const y = "makespan (min), mean of 3 seeds"
	want := []ChartPanel{
		{Title: "W1", XLabel: "cluster nodes", YLabel: y, Lines: []ChartLine{
			{Name: "fifo", Points: []ChartPoint{{X: 10, Mean: 20, Min: 20, Max: 20, Runs: 3}, {X: 20, Mean: 12, Min: 10, Max: 15, Runs: 3}}},
			{Name: "fair (4 of 6 runs failed)", Points: []ChartPoint{{X: 20, Mean: 9, Min: 9, Max: 9, Runs: 2}}},
		}},
		{Title: "W3", XLabel: "cluster nodes", YLabel: "makespan (s), mean of 3 seeds", Lines: []ChartLine{
			{Name: "fifo", Points: []ChartPoint{{X: 10, Mean: 120, Min: 120, Max: 120, Runs: 3}}},
			{Name: "fair"},
		}},
	}
	if cols != 3 || !reflect.DeepEqual(panels, want) {
		t.Errorf("makespan: cols %d, panels\n%+v\nwant\n%+v", cols, panels, want)
	}
	// Slowdowns have no unit; the failed runs are those of the makespan.
	panels, _, _ = res.Chart("p95-slowdown")
	if got := panels[0].Lines[0].Points[1]; panels[0].YLabel != "p95 slowdown, mean of 3 seeds" || got != (ChartPoint{X: 20, Mean: 4, Min: 3, Max: 5, Runs: 3}) {
		t.Errorf("p95-slowdown: %q, %+v", panels[0].YLabel, got)
	}
	panels, _, _ = res.Chart("mean-slowdown") // NaN everywhere: no points, all counted
	if l := panels[0].Lines[0]; l.Name != "fifo (6 of 6 runs failed)" || len(l.Points) != 0 {
		t.Errorf("mean-slowdown over no jobs: %+v", l)
	}
	for _, c := range []struct {
		largest float64
		unit    string
	}{{179, " (s)"}, {180, " (min)"}, {3*3600 - 1, " (min)"}, {3 * 3600, " (h)"}} {
		if u, _ := chartUnit(true, c.largest); u != c.unit {
			t.Errorf("largest %v s: unit %q, want %q", c.largest, u, c.unit)
		}
	}
}

// TestChartOptionsAndPlans: with two option sets a panel is a workload's
// option set and a row a workload; a plan sweep draws plan makespan
// against hosts, and refuses any other metric; an unknown metric is an
// error naming the known ones.
func TestChartOptionsAndPlans(t *testing.T) {
	var res Results
	res.Run = Simulate
	for _, w := range []string{"W1", "W3"} {
		for _, o := range []string{"now", "heartbeat3"} {
			l := simLine(w, "fifo", 10, 1, 30, 1, false)
			l.Options = o
			res.Lines = append(res.Lines, l)
		}
	}
	panels, cols, err := res.Chart("makespan")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range panels {
		titles = append(titles, p.Title)
	}
	if want := []string{"W1, options now", "W1, options heartbeat3", "W3, options now", "W3, options heartbeat3"}; cols != 2 || !reflect.DeepEqual(titles, want) {
		t.Errorf("cols %d, titles %q; want 2, %q", cols, titles, want)
	}
	if _, _, err := res.Chart("speed"); err == nil || err.Error() != `unknown metric "speed"; want one of makespan, mean-response, median-response, p95-response, mean-slowdown, median-slowdown, p95-slowdown, v95` {
		t.Errorf("unknown metric: %v", err)
	}
	hosts := []int{4, 9}
	plans := Results{Run: Plan}
	for i, mk := range []float64{7200, 14400} {
		plans.Lines = append(plans.Lines, Line{Run: Plan, Workload: "W5", Hosts: &hosts[i], Algorithm: "pair", Options: "paper",
			Plan: &PlanMetrics{ClusterHosts: hosts[i], Makespan: Num(mk)}})
	}
	plans.Lines = append(plans.Lines, Line{Run: Plan, Workload: "W5", Hosts: &hosts[0], Algorithm: "exact", Options: "paper", Error: "too many jobs"})
	panels, _, err = plans.Chart("makespan")
	want := []ChartPanel{{Title: "W5", XLabel: "hosts", YLabel: "plan makespan (h)", Lines: []ChartLine{
		{Name: "pair", Points: []ChartPoint{{X: 4, Mean: 2, Min: 2, Max: 2, Runs: 1}, {X: 9, Mean: 4, Min: 4, Max: 4, Runs: 1}}},
		{Name: "exact (1 of 1 runs failed)"}}}}
	if err != nil || !reflect.DeepEqual(panels, want) {
		t.Errorf("plans: %v\n%+v\nwant\n%+v", err, panels, want)
	}
	if err := CheckChartMetric(Plan, "v95"); err == nil || err.Error() != `a plan sweep draws makespan only, not "v95"` {
		t.Errorf("plan v95: %v", err)
	}
}
