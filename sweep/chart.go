package sweep

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/packer-sched/packer/sim"
)

// ChartPanel is one workload's (and option set's) part of a sweep's
// chart: a line per policy or algorithm against cluster size.
type ChartPanel struct {
	Title, XLabel, YLabel string
	Lines                 []ChartLine
}

// ChartLine is one policy's or algorithm's points, in increasing X; Name
// counts the runs that failed or had no value, if any.
type ChartLine struct {
	Name   string
	Points []ChartPoint
}

// ChartPoint is one cluster size of a line: the metric's mean over the
// runs there (seeds), their least and greatest, and how many they are.
type ChartPoint struct {
	X              float64
	Mean, Min, Max float64
	Runs           int
}

// simChartMetrics are the simulate numbers a chart draws, by
// sim.RankMetrics' names.
var simChartMetrics = map[string]func(*SimMetrics) Num{
	"makespan":        func(m *SimMetrics) Num { return m.Makespan },
	"mean-response":   func(m *SimMetrics) Num { return m.MeanResponse },
	"median-response": func(m *SimMetrics) Num { return m.MedianResponse },
	"p95-response":    func(m *SimMetrics) Num { return m.P95Response },
	"mean-slowdown":   func(m *SimMetrics) Num { return m.MeanSlowdown },
	"median-slowdown": func(m *SimMetrics) Num { return m.MedianSlowdown },
	"p95-slowdown":    func(m *SimMetrics) Num { return m.P95Slowdown },
	"v95":             func(m *SimMetrics) Num { return m.V95 },
}

// chartMetric is what a chart draws of a line: the cluster size the point
// ran on, its value, and whether it has them (not a failed point, not a
// slowdown over no jobs).
type chartMetric struct {
	label   string
	seconds bool
	of      func(l *Line) (x, v float64, ok bool)
}

// lookupChartMetric finds a metric a sweep of run draws: a simulate sweep
// any of sim.RankMetrics, a plan sweep its makespan.
func lookupChartMetric(run, name string) (chartMetric, error) {
	if run == Plan {
		if name != "makespan" {
			return chartMetric{}, fmt.Errorf("a plan sweep draws makespan only, not %q", name)
		}
		return chartMetric{label: "plan makespan", seconds: true, of: func(l *Line) (float64, float64, bool) {
			if l.Plan == nil || l.Error != "" {
				return 0, 0, false
			}
			return float64(l.Plan.ClusterHosts), float64(l.Plan.Makespan), finite(float64(l.Plan.Makespan))
		}}, nil
	}
	m, err := sim.LookupRankMetric(name)
	if err != nil {
		return chartMetric{}, err
	}
	field := simChartMetrics[m.Name]
	return chartMetric{label: m.Label, seconds: m.Seconds, of: func(l *Line) (float64, float64, bool) {
		if l.Simulate == nil || l.Error != "" {
			return 0, 0, false
		}
		v := float64(field(l.Simulate))
		return float64(l.Simulate.ClusterNodes), v, finite(v)
	}}, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// CheckChartMetric is nil if a sweep of run (Simulate or Plan) can draw
// the metric, else says why not.
func CheckChartMetric(run, metric string) error {
	_, err := lookupChartMetric(run, metric)
	return err
}

// chartKey is a panel's: a workload and an option set.
type chartKey struct{ workload, options string }

// chartRuns gathers the results by panel, line and cluster size.
type chartRuns struct {
	keys              []chartKey
	policies, options []string
	seeds             map[uint64]bool
	values            map[chartKey]map[string]map[float64][]float64 // panel → policy → x → values
	failed, total     map[chartKey]map[string]int
	largest           map[chartKey]float64
}

func gatherChart(r *Results, m chartMetric) *chartRuns {
	g := &chartRuns{seeds: map[uint64]bool{}, values: map[chartKey]map[string]map[float64][]float64{},
		failed: map[chartKey]map[string]int{}, total: map[chartKey]map[string]int{}, largest: map[chartKey]float64{}}
	for i := range r.Lines {
		l := &r.Lines[i]
		k, pol := chartKey{l.Workload, l.Options}, l.Policy+l.Algorithm
		if g.values[k] == nil {
			g.keys = append(g.keys, k)
			g.values[k], g.failed[k], g.total[k] = map[string]map[float64][]float64{}, map[string]int{}, map[string]int{}
		}
		if !slices.Contains(g.policies, pol) {
			g.policies = append(g.policies, pol)
		}
		if !slices.Contains(g.options, l.Options) {
			g.options = append(g.options, l.Options)
		}
		g.seeds[l.Seed] = true
		g.total[k][pol]++
		x, v, ok := m.of(l)
		if !ok {
			g.failed[k][pol]++
			continue
		}
		if g.values[k][pol] == nil {
			g.values[k][pol] = map[float64][]float64{}
		}
		g.values[k][pol][x] = append(g.values[k][pol][x], v)
		g.largest[k] = max(g.largest[k], v)
	}
	return g
}

// Chart maps the results to a chart of the metric (a name of
// sim.RankMetrics for a simulate sweep, makespan for a plan sweep)
// against cluster size: a panel per workload and option set, in the
// sweep's order; in each, a line per policy or algorithm, in the same
// order in every panel, through the metric's mean over the seeds at each
// size, with the least and greatest. A line's runs that failed or have no
// value are left out, and its name counts them. Times are in the unit
// that suits the panel's largest: seconds, minutes or hours. cols is the
// panels a row: the option sets, when there are 2 to 4, so that a row is
// a workload; else 3. The chart depends on the lines alone, so that a
// merged sweep's is the unsharded run's.
func (r *Results) Chart(metric string) (panels []ChartPanel, cols int, err error) {
	m, err := lookupChartMetric(r.Run, metric)
	if err != nil {
		return nil, 0, err
	}
	g := gatherChart(r, m)
	mean := ""
	if len(g.seeds) > 1 {
		mean = fmt.Sprintf(", mean of %d seeds", len(g.seeds))
	}
	xlabel := map[string]string{Simulate: "cluster nodes", Plan: "hosts"}[r.Run]
	panels = make([]ChartPanel, len(g.keys))
	for i, k := range g.keys {
		unit, per := chartUnit(m.seconds, g.largest[k])
		panels[i] = ChartPanel{Title: k.workload, XLabel: xlabel, YLabel: m.label + unit + mean}
		if len(g.options) > 1 {
			panels[i].Title += ", options " + k.options
		}
		for _, pol := range g.policies {
			ln := ChartLine{Name: pol, Points: chartPoints(g.values[k][pol], per)}
			if n := g.failed[k][pol]; n > 0 {
				ln.Name += fmt.Sprintf(" (%d of %d runs failed)", n, g.total[k][pol])
			}
			panels[i].Lines = append(panels[i].Lines, ln)
		}
	}
	if cols = 3; len(g.options) >= 2 && len(g.options) <= 4 {
		cols = len(g.options)
	}
	return panels, cols, nil
}

// chartPoints are the mean, least and greatest of each x's values, in
// increasing x, each divided by per.
func chartPoints(byX map[float64][]float64, per float64) []ChartPoint {
	if len(byX) == 0 {
		return nil
	}
	xs := make([]float64, 0, len(byX))
	for x := range byX {
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	out := make([]ChartPoint, len(xs))
	for i, x := range xs {
		vs, sum := byX[x], 0.0
		for _, v := range vs {
			sum += v
		}
		lo, hi := slices.Min(vs), slices.Max(vs)
		mean := min(max(sum/float64(len(vs)), lo), hi) // rounding must not put the mean outside its range
		out[i] = ChartPoint{X: x, Mean: mean / per, Min: lo / per, Max: hi / per, Runs: len(vs)}
	}
	return out
}

// chartUnit is the axis label's unit and its seconds for a metric whose
// largest value is largest: hours from 3 hours, minutes from 3 minutes.
func chartUnit(seconds bool, largest float64) (string, float64) {
	switch {
	case !seconds:
		return "", 1
	case largest >= 3*3600:
		return " (h)", 3600
	case largest >= 180:
		return " (min)", 60
	}
	return " (s)", 1
}
