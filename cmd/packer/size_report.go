package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
)

// sizeReport is what size prints, and its JSON document: the answer for
// the best disks per host (the only one without --disks-options), and a
// line per option with it.
type sizeReport struct {
	Workload     string  `json:"workload"`
	Jobs         int     `json:"jobs"`
	Deadline     float64 `json:"deadline_seconds"`
	DisksPerHost int     `json:"disks_per_host"`
	DisksGiven   bool    `json:"disks_given"`
	ExtraRatio   int     `json:"extra_ratio"`
	Alpha        float64 `json:"overcommit_penalty"`
	Algorithm    string  `json:"algorithm"`
	// Budget is the time the plans of one search share (0: none, each plan
	// its own limit); Exact whether the plans were all exact, so timeless.
	Budget      float64 `json:"time_limit_seconds"`
	ExactPlans  bool    `json:"exact_plans"`
	Plans       int     `json:"plans"`
	PlansBudget float64 `json:"plans_time_limits_seconds"`
	// Hosts is the answer; Lo the fewest hosts not proven impossible.
	Hosts    int          `json:"hosts"`
	Lo       int          `json:"hosts_lo"`
	Exact    bool         `json:"exact"`
	Proof    float64      `json:"proof_bound_seconds,omitempty"`
	Makespan float64      `json:"makespan_seconds"`
	Answer   string       `json:"answer"`
	Curve    []sizeRow    `json:"curve"`
	Options  []sizeOption `json:"disks_options,omitempty"`
}

// sizeRow is one host count examined: the plan's makespan and its bound
// only where Size planned; the area bound always; Bound the best of them.
type sizeRow struct {
	Hosts     int      `json:"hosts"`
	Makespan  *float64 `json:"makespan_seconds,omitempty"`
	Optimal   bool     `json:"optimal,omitempty"`
	PlanBound *float64 `json:"plan_bound_seconds,omitempty"`
	Area      float64  `json:"area_bound_seconds"`
	Bound     float64  `json:"lower_bound_seconds"`
	Verdict   string   `json:"verdict"`
}

// sizeOption is one --disks-options value's answer, or why it has none.
type sizeOption struct {
	Disks    int     `json:"disks_per_host"`
	Ratio    int     `json:"extra_ratio"`
	Hosts    int     `json:"hosts,omitempty"`
	Lo       int     `json:"hosts_lo,omitempty"`
	Exact    bool    `json:"exact"`
	Makespan float64 `json:"makespan_seconds,omitempty"`
	Best     bool    `json:"best,omitempty"`
	Error    string  `json:"error,omitempty"`
}

func newSizeReport(w *model.Workload, choice *optimize.SizeChoice, c *cli.Context, set *optimize.SizeSettings, method optimize.Method) *sizeReport {
	res := choice.Options[choice.Best].Result
	r := &sizeReport{Workload: w.Name, Jobs: len(w.Jobs), Deadline: res.Deadline, DisksPerHost: res.Cluster.DisksPerHost,
		DisksGiven: c.IsSet("disks"), ExtraRatio: res.Cluster.ExtraRatio, Alpha: res.Cluster.Alpha, Algorithm: string(method),
		Budget: set.Budget.Seconds(), Hosts: res.Hosts, Lo: res.Lo, Exact: res.Exact, Proof: res.Proof, Makespan: res.Makespan, Answer: res.String()}
	r.ExactPlans = true
	for _, o := range choice.Options {
		if o.Result != nil {
			r.Plans += o.Result.Plans
			r.PlansBudget += o.Result.Spent.Seconds()
			for _, pt := range o.Result.Curve {
				r.ExactPlans = r.ExactPlans && (!pt.Planned || pt.Optimal)
			}
		}
	}
	for _, pt := range res.Curve {
		row := sizeRow{Hosts: pt.Hosts, Optimal: pt.Optimal, Area: pt.Area, Bound: pt.Bound}
		if pt.Planned {
			m := pt.Makespan
			row.Makespan = &m
		}
		if pt.PlanBound > 0 {
			b := pt.PlanBound
			row.PlanBound = &b
		}
		row.Verdict = verdict(pt, res)
		r.Curve = append(r.Curve, row)
	}
	if len(choice.Options) > 1 {
		for i, o := range choice.Options {
			opt := sizeOption{Disks: o.Cluster.DisksPerHost, Ratio: o.Cluster.ExtraRatio, Best: i == choice.Best}
			if o.Err != nil {
				opt.Error = o.Err.Error()
			} else {
				opt.Hosts, opt.Lo, opt.Exact, opt.Makespan = o.Result.Hosts, o.Result.Lo, o.Result.Exact, o.Result.Makespan
			}
			r.Options = append(r.Options, opt)
		}
	}
	return r
}

// verdict says what is known of one host count: met (by its own plan, or
// by the answer's, which holds on more hosts), ruled out (by which bound),
// or not settled.
func verdict(pt optimize.SizePoint, res *optimize.SizeResult) string {
	d := res.Deadline * (1 + 1e-9)
	switch {
	case pt.Planned && pt.Makespan <= d:
		return "met"
	case pt.Hosts > res.Hosts:
		return fmt.Sprintf("met by the plan for %d", res.Hosts)
	case pt.Bound > d && pt.Optimal && pt.PlanBound >= pt.Area:
		return "ruled out by the optimum"
	case pt.Bound > d && pt.PlanBound > pt.Area:
		return "ruled out by the plan's bound"
	case pt.Bound > d:
		return "ruled out by the area bound"
	case pt.Hosts < res.Lo:
		return fmt.Sprintf("ruled out by the bound at %d", res.Lo-1)
	case pt.Planned:
		return "plan missed; not settled"
	}
	return "not settled"
}

// print renders the report for people: the settings, the options compared,
// the cost curve, the answer.
func (r *sizeReport) print(w io.Writer) error {
	disks := "the default; --disks or --disks-options 1,2,4 to change"
	switch {
	case r.DisksGiven:
		disks = "--disks"
	case len(r.Options) > 0:
		disks = "the best of --disks-options"
	}
	limit := "exact plans, no time limit"
	switch {
	case !r.ExactPlans && r.Budget > 0:
		limit = fmt.Sprintf("%d plans shared %s of time limits (--time-limit %s)", r.Plans, time.Duration(r.PlansBudget*float64(time.Second)), time.Duration(r.Budget*float64(time.Second)))
	case !r.ExactPlans:
		limit = "no time limit"
	}
	fmt.Fprintf(w, "Sizing %s (%d jobs) for a deadline of %s\n", r.Workload, r.Jobs, seconds(r.Deadline))
	if err := r.printOptions(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "Cluster: %d disks per host (%s), r = %d, alpha = %g; algorithm %s, %s\n",
		r.DisksPerHost, disks, r.ExtraRatio, r.Alpha, r.Algorithm, limit)
	t := newTable(w, "hosts", "plan makespan", "plan's bound", "area bound", "deadline")
	for _, row := range r.Curve {
		plan, bound := "-", "-"
		if row.Makespan != nil {
			plan = seconds(*row.Makespan)
		}
		switch {
		case row.Optimal:
			bound = "optimal"
		case row.PlanBound != nil:
			bound = seconds(*row.PlanBound)
		}
		t.Append([]string{strconv.Itoa(row.Hosts), plan, bound, seconds(row.Area), row.Verdict})
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Answer: %s\n", r.Answer)
	return nil
}

// printOptions renders the --disks-options table, if any.
func (r *sizeReport) printOptions(w io.Writer) error {
	if len(r.Options) == 0 {
		return nil
	}
	t := newTable(w, "disks per host", "r", "hosts", "disks in all", "answer")
	for _, o := range r.Options {
		hosts, all, answer := "-", "-", "exact"
		switch {
		case o.Error != "":
			answer = "unreachable: " + strings.TrimPrefix(o.Error[strings.LastIndex(o.Error, ": deadline unreachable")+2:], "deadline unreachable: ")
			if strings.Contains(o.Error, optimize.ErrJobTooLong.Error()) {
				answer = "a job is longer than the deadline"
			}
		default:
			hosts, all = strconv.Itoa(o.Hosts), strconv.Itoa(o.Hosts*o.Disks)
			if !o.Exact {
				answer = fmt.Sprintf("between %d and %d", o.Lo, o.Hosts)
			}
		}
		if o.Best {
			answer += " (best: fewest hosts)"
		}
		t.Append([]string{strconv.Itoa(o.Disks), strconv.Itoa(o.Ratio), hosts, all, answer})
	}
	return t.Render()
}

// writeSizeChart draws the cost curve to --chart, if given: the counts up
// to twice the answer, where the far probes of the search would squash it.
func writeSizeChart(c *cli.Context, res *optimize.SizeResult) error {
	if c.String("chart") == "" {
		return nil
	}
	g, err := chart.SizeCurve(sizeChartPoints(res), res.Deadline, res.Hosts, res.Lo)
	if err != nil {
		return err
	}
	return writeChart(c, g)
}

// sizeChartPoints are the curve's points up to twice the answer.
func sizeChartPoints(res *optimize.SizeResult) []chart.SizePoint {
	var pts []chart.SizePoint
	for _, pt := range res.Curve {
		if pt.Hosts <= 2*res.Hosts+2 {
			pts = append(pts, chart.SizePoint{Hosts: pt.Hosts, Bound: pt.Bound, Planned: pt.Planned, Makespan: pt.Makespan})
		}
	}
	return pts
}
