package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/internal/progress"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/pso"
)

var sizeCommand = &cli.Command{
	Name:  "size",
	Usage: "the fewest hosts whose plan meets a deadline, and the proof that one fewer cannot",
	Description: "Finds the fewest hosts P (at most --max-hosts) whose plan finishes the workload within\n" +
		"--deadline (4h, 90m, 3600s, or seconds), and proves that P - 1 cannot: its lower bound is\n" +
		"above the deadline. Where the bounds cannot settle it, it says so: \"between P_lo and P\".\n" +
		"The search bisects on the cheap lower bound (it never rises with hosts) and plans only a\n" +
		"few host counts (optimize.Size); the table is the cost curve of the counts it examined:\n" +
		"hosts, the plan's makespan (where it planned) and the proven lower bound. Up to 16 jobs\n" +
		"every plan is the exact optimum, so the answer is always exact. --time-limit bounds each plan.",
	Flags: append([]cli.Flag{
		workloadFlag,
		&cli.StringFlag{Name: "deadline", Aliases: []string{"d"}, Usage: "finish the workload within `D` (4h, 90m, 3600s, or seconds)"},
		&cli.IntFlag{Name: "max-hosts", Value: optimize.DefaultMaxHosts, Usage: "consider at most `P` hosts"},
		&cli.StringFlag{Name: "algorithm", Aliases: []string{"a"}, Value: "auto", Usage: "plan each host count with " + optimize.MethodList()},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "pso: random seed"},
		&cli.DurationFlag{Name: "time-limit", DefaultText: "2s per plan up to 200 jobs, a fifth of plan's default beyond",
			Usage: "stop each plan after `D` with its best plan and bound (0: no limit)"},
		chartFlag,
		formatFlag,
	}, sizeClusterFlags()...),
	Action: sizeAction,
}

// sizeClusterFlags are the cluster flags but --hosts, which size finds.
func sizeClusterFlags() []cli.Flag {
	var fs []cli.Flag
	for _, f := range clusterFlags {
		if f.Names()[0] != "hosts" {
			fs = append(fs, f)
		}
	}
	return fs
}

func sizeAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("size takes no arguments, got %q", c.Args().First())
	}
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if err := checkChart(c); err != nil {
		return err
	}
	if !c.IsSet("deadline") {
		return badUsage("size: --deadline is required (e.g. --deadline 4h)")
	}
	deadline, err := parseDeadline(c.String("deadline"))
	if err != nil {
		return err
	}
	method, err := optimize.ParseMethod(c.String("algorithm"))
	if err != nil {
		return badUsage("--algorithm: %v", err)
	}
	w, err := loadWorkload(c)
	if err != nil {
		return err
	}
	cl, err := sizeCluster(c)
	if err != nil {
		return err
	}
	set := sizeSettings(c, method, len(w.Jobs))
	line := progress.New(c.App.ErrWriter)
	set.Progress = func(pt optimize.SizePoint) { line.Report(false, "size: %s", pointProgress(pt)) }
	set.Solve.Progress = func(inc, lb float64) { line.Report(false, "size: %s", optimize.FormatProgress(inc, lb)) }
	res, err := optimize.Size(w, cl, deadline, set)
	line.Done()
	switch {
	case errors.Is(err, optimize.ErrBadDeadline):
		return badUsage("--deadline %s: %v", c.String("deadline"), err)
	case errors.Is(err, optimize.ErrJobTooLong), errors.Is(err, optimize.ErrUnreachable):
		return badInput(fmt.Errorf("size: %s: %w", c.String("workload"), err))
	case err != nil:
		return settingUsage(c, err)
	}
	report := newSizeReport(w, res, c.IsSet("disks"), set.Solve.TimeLimit, method)
	if err := writeSizeChart(c, res); err != nil {
		return err
	}
	if format == "json" {
		return printJSON(c.App.Writer, report)
	}
	return report.print(c.App.Writer)
}

// sizeSettings are Size's settings from the flags: each plan's time limit
// defaults to a fifth of plan's, so that the few plans a search makes end
// within about plan's time.
func sizeSettings(c *cli.Context, method optimize.Method, jobs int) *optimize.SizeSettings {
	limit := c.Duration("time-limit")
	if !c.IsSet("time-limit") {
		limit = optimize.DefaultTimeLimit(jobs) / 5
	}
	return &optimize.SizeSettings{MaxHosts: c.Int("max-hosts"), Method: method,
		Solve: &optimize.Settings{Swarm: &pso.Settings{Seed: c.Uint64("seed")}, TimeLimit: limit}}
}

// sizeCluster is the cluster the flags give, its host count left to Size.
func sizeCluster(c *cli.Context) (model.Cluster, error) {
	cl := model.Cluster{Hosts: 1, DisksPerHost: c.Int("disks"), ExtraRatio: c.Int("ratio"), Alpha: c.Float64("alpha"),
		CoresPerHost: c.Int("cores"), MemoryMiBPerHost: c.Int("memory")}
	if !c.IsSet("ratio") && cl.ExtraRatio > cl.DisksPerHost {
		cl.ExtraRatio = cl.DisksPerHost // as plan: one disk, one extra per primary VM
	}
	if err := cl.Validate(); err != nil {
		for field, flag := range map[string]string{"disks_per_host": "--disks", "extra_ratio": "--ratio",
			"overcommit_penalty": "--alpha", "cores_per_host": "--cores", "memory_mib_per_host": "--memory"} {
			if strings.HasPrefix(err.Error(), "cluster: "+field+" ") {
				return cl, badInput(fmt.Errorf("%s: %w", flag, err))
			}
		}
		return cl, badInput(err)
	}
	return cl, nil
}

// parseDeadline reads --deadline: a Go duration (4h, 90m, 3600s, 1h30m) or
// a number of seconds. Whether it is positive is Size's to say.
func parseDeadline(s string) (float64, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d.Seconds(), nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) {
		return v, nil
	}
	return 0, badUsage("--deadline: %q is not a duration (4h, 90m, 3600s) or a number of seconds", s)
}

// pointProgress is a progress line for one host count examined.
func pointProgress(pt optimize.SizePoint) string {
	if pt.Planned {
		return fmt.Sprintf("%d hosts: plan %s, bound %s", pt.Hosts, seconds(pt.Makespan), seconds(pt.Bound))
	}
	return fmt.Sprintf("%d hosts: bound %s", pt.Hosts, seconds(pt.Bound))
}

// sizeReport is what size prints, and its JSON document.
type sizeReport struct {
	Workload     string  `json:"workload"`
	Jobs         int     `json:"jobs"`
	Deadline     float64 `json:"deadline_seconds"`
	DisksPerHost int     `json:"disks_per_host"`
	DisksGiven   bool    `json:"disks_given"`
	ExtraRatio   int     `json:"extra_ratio"`
	Alpha        float64 `json:"overcommit_penalty"`
	Algorithm    string  `json:"algorithm"`
	PlanLimit    float64 `json:"plan_time_limit_seconds"`
	// Hosts is the answer; Lo the fewest hosts not proven impossible.
	Hosts    int       `json:"hosts"`
	Lo       int       `json:"hosts_lo"`
	Exact    bool      `json:"exact"`
	Proof    float64   `json:"proof_bound_seconds,omitempty"`
	Makespan float64   `json:"makespan_seconds"`
	Answer   string    `json:"answer"`
	Curve    []sizeRow `json:"curve"`
}

// sizeRow is one host count examined: the plan's makespan only where
// Size planned.
type sizeRow struct {
	Hosts    int      `json:"hosts"`
	Makespan *float64 `json:"makespan_seconds,omitempty"`
	Bound    float64  `json:"lower_bound_seconds"`
	Optimal  bool     `json:"optimal,omitempty"`
}

func newSizeReport(w *model.Workload, res *optimize.SizeResult, disksGiven bool, limit time.Duration, method optimize.Method) *sizeReport {
	r := &sizeReport{Workload: w.Name, Jobs: len(w.Jobs), Deadline: res.Deadline, DisksPerHost: res.Cluster.DisksPerHost, DisksGiven: disksGiven,
		ExtraRatio: res.Cluster.ExtraRatio, Alpha: res.Cluster.Alpha, Algorithm: string(method), PlanLimit: limit.Seconds(),
		Hosts: res.Hosts, Lo: res.Lo, Exact: res.Exact, Proof: res.Proof, Makespan: res.Makespan, Answer: res.String()}
	for _, pt := range res.Curve {
		row := sizeRow{Hosts: pt.Hosts, Bound: pt.Bound, Optimal: pt.Optimal}
		if pt.Planned {
			m := pt.Makespan
			row.Makespan = &m
		}
		r.Curve = append(r.Curve, row)
	}
	return r
}

// print renders the report for people: the settings, the cost curve, the
// answer.
func (r *sizeReport) print(w io.Writer) error {
	disks := "the default; --disks to change"
	if r.DisksGiven {
		disks = "--disks"
	}
	fmt.Fprintf(w, "Sizing %s (%d jobs) for a deadline of %s\n", r.Workload, r.Jobs, seconds(r.Deadline))
	fmt.Fprintf(w, "Cluster: %d disks per host (%s), r = %d, alpha = %g; algorithm %s, %s per plan\n",
		r.DisksPerHost, disks, r.ExtraRatio, r.Alpha, r.Algorithm, time.Duration(r.PlanLimit*float64(time.Second)))
	t := newTable(w, "hosts", "plan makespan", "lower bound", "deadline")
	for _, row := range r.Curve {
		plan, verdict := "-", "ruled out"
		if row.Bound <= r.Deadline*(1+1e-9) {
			verdict = "not ruled out"
		}
		if row.Makespan != nil {
			plan = seconds(*row.Makespan)
			if row.Optimal {
				plan += " (optimal)"
			}
			if *row.Makespan <= r.Deadline*(1+1e-9) {
				verdict = "met"
			}
		}
		t.Append([]string{strconv.Itoa(row.Hosts), plan, seconds(row.Bound), verdict})
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Answer: %s\n", r.Answer)
	return nil
}

// planDeadlineFlag asks plan whether its plan meets a deadline.
var planDeadlineFlag = &cli.StringFlag{Name: "deadline", Usage: "say whether the plan finishes within `D` (4h, 90m, 3600s, or seconds), and by how much"}

// planDeadline reads plan's --deadline: 0 when not given; a usage error
// when not a positive duration.
func planDeadline(c *cli.Context) (float64, error) {
	if !c.IsSet("deadline") {
		return 0, nil
	}
	d, err := parseDeadline(c.String("deadline"))
	if err == nil && !(d > 0) {
		err = badUsage("--deadline: must be positive, got %s", c.String("deadline"))
	}
	return d, err
}

// printDeadline says in one line whether a makespan meets the deadline
// (seconds; 0: none asked) and by how much.
func printDeadline(w io.Writer, makespan, deadline float64) {
	switch {
	case deadline <= 0:
	case makespan <= deadline:
		fmt.Fprintf(w, "Deadline %s: met, %s to spare (%.1f %%)\n", seconds(deadline), seconds(deadline-makespan), 100*(deadline-makespan)/deadline)
	default:
		fmt.Fprintf(w, "Deadline %s: missed by %s (%.1f %%); `packer size --deadline` finds the hosts that meet it\n", seconds(deadline), seconds(makespan-deadline), 100*(makespan-deadline)/deadline)
	}
}

// writeSizeChart draws the cost curve to --chart, if given: the counts up
// to twice the answer, where the far probes of the search would squash it.
func writeSizeChart(c *cli.Context, res *optimize.SizeResult) error {
	if c.String("chart") == "" {
		return nil
	}
	var pts []chart.SizePoint
	for _, pt := range res.Curve {
		if pt.Hosts <= 2*res.Hosts+2 {
			pts = append(pts, chart.SizePoint{Hosts: pt.Hosts, Bound: pt.Bound, Planned: pt.Planned, Makespan: pt.Makespan})
		}
	}
	g, err := chart.SizeCurve(pts, res.Deadline, res.Hosts)
	if err != nil {
		return err
	}
	return writeChart(c, g)
}
