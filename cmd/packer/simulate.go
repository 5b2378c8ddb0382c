package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads"
)

// simPolicies are the policy names --policies accepts.
var simPolicies = []string{"fifo", "fair", "sequential", "plan", "plan-no-barrier"}

var simulateCommand = &cli.Command{
	Name:  "simulate",
	Usage: "compare scheduling policies on a task-level simulation of a Hadoop cluster",
	Description: "Simulates the workload's jobs, task by task, on a Hadoop-1 cluster (racks of nodes with map\n" +
		"and reduce slots, HDFS blocks replicated R times) under each policy and prints one row per\n" +
		"policy: makespan, response times, slowdowns (response ÷ the job's time alone on the empty\n" +
		"cluster), slowdown variability V95 = p95 ÷ median, map locality and slot utilisation.\n\n" +
		"Policies: fifo (priority, then submit time), fair (max-min fair sharing; --delay D > 0 adds\n" +
		"delay scheduling, seed 001; fair:D and fair:D+R name a delay, and rack delay, per entry), sequential (one job at a time on the whole cluster), plan and\n" +
		"plan-no-barrier (replay --plan: each job on the plan's VMs, phases one after another, or each\n" +
		"job as soon as its VMs are free).\n\n" +
		"--workload is a simulation workload file (JSON with a cluster and jobs made of tasks), a\n" +
		"packer workload file, or a built-in name; packer jobs become waves·n·S map tasks of F(n)/waves\n" +
		"seconds (see the README). Same seed, same output, byte for byte.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "workload", Aliases: []string{"w"}, Usage: "simulation or packer workload `FILE`, or built-in NAME (default W1, or the plan's jobs with --plan)"},
		&cli.StringFlag{Name: "policies", Aliases: []string{"p"}, Value: "fifo,fair", Usage: "comma-separated: " + strings.Join(simPolicies, ", ") + ", " + strings.Join(extraPolicies, ", ") + ", fair:D, fair:D+R"},
		&cli.StringFlag{Name: "plan", Usage: "plan document `FILE` to replay (packer plan --output)"},
		&cli.BoolFlag{Name: "barrier", Value: true, Usage: "policy plan runs the plan's phases one after another (--barrier=false is --no-barrier)"},
		&cli.BoolFlag{Name: "no-barrier", Usage: "policy plan starts each job as soon as its VMs are free (same as plan-no-barrier)"},
		&cli.IntFlag{Name: "nodes", Usage: "nodes (default: the workload's, 18, or the plan's primary VMs)"},
		&cli.IntFlag{Name: "racks", Usage: "racks (default: the workload's, or 1)"},
		&cli.IntFlag{Name: "map-slots", Usage: "map slots per node (default: the workload's, or 2)"},
		&cli.IntFlag{Name: "reduce-slots", Usage: "reduce slots per node (default: the workload's, or 1)"},
		&cli.IntFlag{Name: "replication", Usage: "HDFS replication R (default: the workload's, or 3)"},
		&cli.IntFlag{Name: "delay", Usage: "fair: delay scheduling skip count D (0: naive fair sharing)"},
		&cli.IntFlag{Name: "rack-delay", Usage: "fair: further skips before off-rack tasks are allowed"},
		&cli.Float64Flag{Name: "heartbeat", Usage: "offer slots on heartbeats every `SECONDS` (0: at once on every task end)"},
		&cli.Float64Flag{Name: "rack-factor", Value: 1.2, Usage: "rack-local map tasks run this many times longer"},
		&cli.Float64Flag{Name: "remote-factor", Value: 2, Usage: "off-rack map tasks run this many times longer"},
		&cli.IntFlag{Name: "waves", Value: 4, Usage: "packer jobs: waves of map tasks on the nodes a job is sized for"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "master seed (block placement)"},
		&cli.StringFlag{Name: "format", Value: "table", Usage: "output format: table, json or csv"},
		&cli.StringFlag{Name: "jobs-csv", Usage: "write per-job results to `FILE` (CSV)"},
		&cli.StringFlag{Name: "trace", Usage: "write every event to `FILE` (CSV)"},
		chartFlag,
		spendingFlag, timerFlag, arffFlag, slowstartFlag, hybsLevelsFlag,
	},
	Action: simulateAction,
}

// simRun is one policy's run with what produced it.
type simRun struct {
	result   *sim.Result
	workload *sim.Workload
}

func simulateAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("simulate takes no arguments, got %q", c.Args().First())
	}
	format, err := checkFormat(c, "table", "json", "csv")
	if err != nil {
		return err
	}
	if err := checkOutputs(c, "jobs-csv", "trace"); err != nil {
		return err
	}
	if err := checkChart(c); err != nil {
		return err
	}
	if err := checkPolicyFlags(c); err != nil {
		return err
	}
	names, err := parsePolicies(c)
	if err != nil {
		return err
	}
	var pl *plan.Plan
	if path := c.String("plan"); path != "" {
		if pl, err = plan.ReadFile(path); err != nil {
			return badInput(err)
		}
	} else if slices.Contains(names, "plan") || slices.Contains(names, "plan-no-barrier") {
		return badUsage("--policies: plan needs --plan FILE (write one with packer plan --output)")
	}
	for _, f := range []string{"nodes", "racks", "map-slots", "reduce-slots", "replication"} {
		if c.IsSet(f) && c.Int(f) < 1 {
			return badUsage("--%s must be at least 1, got %d", f, c.Int(f))
		}
	}
	if c.Int("delay") < 0 || c.Int("rack-delay") < 0 {
		return badUsage("--delay and --rack-delay must not be negative, got %d and %d", c.Int("delay"), c.Int("rack-delay"))
	}
	if h := c.Float64("heartbeat"); h != 0 && !(h >= sim.MinTick && h <= sim.MaxTick) {
		return badUsage("--heartbeat must be 0 (offer slots on every task end) or between %g and %g seconds, got %v", sim.MinTick, sim.MaxTick, h)
	}
	set := sim.Settings{Seed: c.Uint64("seed"), Heartbeat: c.Float64("heartbeat"),
		RackFactor: c.Float64("rack-factor"), RemoteFactor: c.Float64("remote-factor"), ReduceSlowstart: c.Float64("slowstart")}
	if set.RackFactor == 0 || set.RemoteFactor == 0 {
		return badUsage("--rack-factor and --remote-factor must be at least 1")
	}

	base, jobs, err := simWorkload(c, pl)
	if err != nil {
		return err
	}
	// The trace streams to a temporary file beside its target (a million
	// tasks make hundreds of megabytes), renamed into place once all is done.
	traceCSV := csv.NewWriter(io.Discard)
	var traceFile *safefile.File
	var traceBuf *bufio.Writer
	if path := c.String("trace"); path != "" {
		if traceFile, err = safefile.Create(path, 0o644); err != nil {
			return err
		}
		defer traceFile.Abort()
		traceBuf = bufio.NewWriterSize(traceFile, 1<<20)
		traceCSV = csv.NewWriter(traceBuf)
		_ = traceCSV.Write([]string{"policy", "time", "event", "job", "task", "node", "locality"})
	}
	var planBase *sim.Workload
	if pl != nil {
		if planBase, err = planWorkload(c, base, jobs, pl); err != nil {
			return err
		}
	}
	alone := map[string][]float64{}
	labels := map[string]string{} // policy label → the --policies entry that made it
	var runs []simRun
	for _, name := range names {
		w, p, key := base, sim.Policy(nil), "base"
		switch name {
		case "fifo":
			p = &sim.FIFO{}
		case "fair":
			p = &sim.Fair{Delay: c.Int("delay"), RackDelay: c.Int("rack-delay")}
		case "sequential":
			p = &sim.Sequential{}
		default:
			if p = extraPolicy(c, name); p != nil {
				break
			}
			if d, r, ok := fairDelays(name); ok {
				p = &sim.Fair{Delay: d, RackDelay: r}
				break
			}
			key = "plan" // both replays run the same tasks
			if w, p, err = sim.ReplayPlan(pl, planBase, name == "plan"); err != nil {
				return badInput(fmt.Errorf("--plan %s: %w", c.String("plan"), err))
			}
		}
		if prev, dup := labels[p.Name()]; dup {
			return badUsage("--policies: %q and %q are the same policy (%s)", prev, name, p.Name())
		}
		labels[p.Name()] = name
		st := set
		if c.String("trace") != "" {
			st.Trace = &csvTrace{w: traceCSV, policy: p.Name(), wl: w}
		}
		r, err := sim.Run(w, p, &st)
		if errors.Is(err, sim.ErrStalled) {
			return err
		} else if err != nil {
			return badInput(err)
		}
		if alone[key] == nil {
			if alone[key], err = sim.Alone(w, &set); err != nil {
				return err
			}
		}
		r.Summarize(alone[key])
		runs = append(runs, simRun{result: r, workload: w})
	}

	// Everything is computed; now write, files first, so that a failure
	// leaves nothing half-done on stdout.
	if traceFile != nil {
		traceCSV.Flush()
		err := traceCSV.Error()
		if err == nil {
			err = traceBuf.Flush()
		}
		if err != nil {
			return fmt.Errorf("--trace %s: %w", c.String("trace"), err)
		}
		if err := traceFile.Commit(); err != nil {
			return err
		}
	}
	if path := c.String("jobs-csv"); path != "" {
		if err := safefile.WriteFile(path, jobsCSV(runs), 0o644); err != nil {
			return err
		}
	}
	if path := c.String("arff"); path != "" {
		if err := writeARFF(c, path, runs); err != nil {
			return err
		}
	}
	if c.String("chart") != "" {
		if err := simulationChart(c, names, runs); err != nil {
			return err
		}
	}
	out := c.App.Writer
	switch format {
	case "json":
		return writeSimJSON(out, base, set.Seed, runs)
	case "csv":
		_, err := out.Write(summaryCSV(runs))
		return err
	}
	return printSimulation(out, base, set, runs)
}

// fairDelays reads a policy name "fair:D" or "fair:D+R": fair sharing with
// delay D and rack delay R, so one table can compare several delays.
func fairDelays(name string) (d, r int, ok bool) {
	spec, found := strings.CutPrefix(name, "fair:")
	if !found {
		return 0, 0, false
	}
	ds, rs, hasRack := strings.Cut(spec, "+")
	d, err := strconv.Atoi(ds)
	if err != nil || d < 0 {
		return 0, 0, false
	}
	if hasRack {
		if r, err = strconv.Atoi(rs); err != nil || r < 0 {
			return 0, 0, false
		}
	}
	return d, r, true
}

func parsePolicies(c *cli.Context) ([]string, error) {
	var names []string
	for _, n := range strings.Split(c.String("policies"), ",") {
		n = strings.TrimSpace(n)
		if n == "plan" && (c.Bool("no-barrier") || !c.Bool("barrier")) {
			n = "plan-no-barrier"
		}
		if _, _, ok := fairDelays(n); !ok && !slices.Contains(simPolicies, n) && !slices.Contains(extraPolicies, n) {
			return nil, badUsage("--policies: unknown policy %q (want %s, %s, or fair:D or fair:D+R for delay scheduling)", n, strings.Join(simPolicies, ", "), strings.Join(extraPolicies, ", "))
		}
		if slices.Contains(names, n) {
			return nil, badUsage("--policies: %q is listed twice", n)
		}
		names = append(names, n)
	}
	return names, nil
}

// simWorkload reads --workload: a simulation workload file is used as it is;
// a packer workload file or built-in name (or, with --plan and no
// --workload, the plan's jobs) is converted with FromModel. It returns the
// simulation workload and, for packer workloads, the job models.
func simWorkload(c *cli.Context, plan *plan.Plan) (*sim.Workload, *model.Workload, error) {
	name := c.String("workload")
	var mw *model.Workload
	var w *sim.Workload
	switch {
	case name == "" && plan != nil:
		mw = &model.Workload{Name: plan.Workload, Jobs: plan.Jobs}
	case name == "":
		name = workloads.Default
		fallthrough
	default:
		isFile := name == "-" || strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".json")
		if _, err := os.Stat(name); err == nil {
			isFile = true
		}
		if !isFile {
			got, err := workloads.Get(name)
			if err != nil {
				return nil, nil, badInput(fmt.Errorf("--workload: %w; or give a workload file path", err))
			}
			mw = got
			break
		}
		var data []byte
		var err error
		if name == "-" {
			name = "<stdin>"
			data, err = io.ReadAll(c.App.Reader)
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return nil, nil, badInput(&model.InputError{File: name, Err: err})
		}
		if sim.IsModelWorkload(data) {
			if mw, err = model.ParseWorkload(data, name); err != nil {
				return nil, nil, badInput(err)
			}
			break
		}
		if w, err = sim.ParseWorkload(data, name); err != nil {
			return nil, nil, badInput(err)
		}
	}
	if w == nil {
		cl := sim.Cluster{}
		if plan != nil {
			cl.Nodes = plan.Cluster.PrimaryVMs
		}
		var err error
		if w, err = sim.FromModel(mw, clusterOverrides(c, cl), c.Int("waves")); err != nil {
			return nil, nil, badInput(fmt.Errorf("%s%s: %w", c.String("workload"), overrideNote(c), err))
		}
		return w, mw, nil
	}
	w.Cluster = clusterOverrides(c, w.Cluster)
	if err := w.Validate(); err != nil {
		return nil, nil, badInput(fmt.Errorf("%s%s: %w", c.String("workload"), overrideNote(c), err))
	}
	return w, nil, nil
}

// overrideNote names the cluster flags given, for errors that may come from
// them rather than from the file.
func overrideNote(c *cli.Context) string {
	var set []string
	for _, f := range []string{"nodes", "racks", "map-slots", "reduce-slots", "replication"} {
		if c.IsSet(f) {
			set = append(set, fmt.Sprintf("--%s %d", f, c.Int(f)))
		}
	}
	if len(set) == 0 {
		return ""
	}
	return " with " + strings.Join(set, ", ")
}

// clusterOverrides applies the cluster flags that are set.
func clusterOverrides(c *cli.Context, cl sim.Cluster) sim.Cluster {
	for flag, dst := range map[string]*int{"nodes": &cl.Nodes, "racks": &cl.Racks, "map-slots": &cl.MapSlots,
		"reduce-slots": &cl.ReduceSlots, "replication": &cl.Replication} {
		if c.IsSet(flag) {
			*dst = c.Int(flag)
		}
	}
	return cl
}

// planWorkload is what the plan replays run: a simulation workload's own
// tasks, or packer jobs sized by their plan VM counts, whose names must be
// the plan's.
func planWorkload(c *cli.Context, base *sim.Workload, jobs *model.Workload, plan *plan.Plan) (*sim.Workload, error) {
	if jobs == nil {
		return base, nil
	}
	var have, want []string
	for _, j := range jobs.Jobs {
		have = append(have, j.Name)
	}
	for _, j := range plan.Jobs {
		want = append(want, j.Name)
	}
	slices.Sort(have)
	slices.Sort(want)
	if !slices.Equal(have, want) {
		return nil, badInput(fmt.Errorf("--plan %s: %w: its jobs are not workload %s's", c.String("plan"), sim.ErrPlanMismatch, jobs.Name))
	}
	w, err := sim.PlanWorkload(plan, base.Cluster, c.Int("waves"))
	if err != nil {
		return nil, badInput(err)
	}
	return w, nil
}

// csvTrace writes a run's events as CSV rows.
type csvTrace struct {
	w      *csv.Writer
	policy string
	wl     *sim.Workload
	row    [7]string
}

// Event writes one row; job events leave task, node and locality empty.
func (t *csvTrace) Event(e sim.TraceEvent) {
	t.row = [7]string{t.policy, num(e.Time), e.Kind.String(), t.wl.Jobs[e.Job].Name, "", "", ""}
	if e.Task >= 0 {
		t.row[4], t.row[5], t.row[6] = strconv.Itoa(e.Task), strconv.Itoa(e.Node), e.Locality.String()
	}
	_ = t.w.Write(t.row[:])
}

// num renders a float exactly and briefly (shortest round-trip form).
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func jobsCSV(runs []simRun) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"policy", "job", "user", "submit", "start", "finish", "response", "slowdown", "node_local", "rack_local", "remote", "no_input"})
	for _, r := range runs {
		for _, j := range r.result.Jobs {
			l := j.Locality
			_ = w.Write([]string{r.result.Policy, j.Name, j.User, num(j.Submit), num(j.Start), num(j.Finish), num(j.Response), num(j.Slowdown),
				strconv.Itoa(l.Node), strconv.Itoa(l.Rack), strconv.Itoa(l.Remote), strconv.Itoa(l.None)})
		}
	}
	w.Flush()
	return b.Bytes()
}

// summaryColumns are the comparison table's columns, shared by table and CSV.
var summaryColumns = []string{"policy", "makespan", "mean_response", "median_response", "p95_response",
	"mean_slowdown", "median_slowdown", "p95_slowdown", "v95", "node_local", "rack_local", "remote", "map_utilisation", "reduce_utilisation"}

// summaryRow is one policy's row; format renders a number.
func summaryRow(r *sim.Result, seconds func(float64) string, ratio func(float64) string, share func(int, int) string) []string {
	s, l := r.Summary, r.Locality
	n := l.WithInput()
	return []string{r.Policy, seconds(r.Makespan), seconds(s.MeanResponse), seconds(s.MedianResponse), seconds(s.P95Response),
		ratio(s.MeanSlowdown), ratio(s.MedianSlowdown), ratio(s.P95Slowdown), ratio(s.V95),
		share(l.Node, n), share(l.Rack, n), share(l.Remote, n), ratio(r.Utilisation[sim.Map]), ratio(r.Utilisation[sim.Reduce])}
}

func summaryCSV(runs []simRun) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(summaryColumns)
	share := func(k, n int) string {
		if n == 0 {
			return ""
		}
		return num(float64(k) / float64(n))
	}
	for _, r := range runs {
		_ = w.Write(summaryRow(r.result, num, num, share))
	}
	w.Flush()
	return b.Bytes()
}

func writeSimJSON(out io.Writer, w *sim.Workload, seed uint64, runs []simRun) error {
	doc := struct {
		Workload string        `json:"workload"`
		Seed     uint64        `json:"seed"`
		Tasks    int           `json:"tasks"`
		Cluster  sim.Cluster   `json:"cluster"`
		Policies []*sim.Result `json:"policies"`
	}{Workload: w.Name, Seed: seed, Tasks: w.Tasks(), Cluster: w.Cluster}
	for _, r := range runs {
		doc.Policies = append(doc.Policies, r.result)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

func printSimulation(out io.Writer, w *sim.Workload, set sim.Settings, runs []simRun) error {
	cl := w.Cluster
	d := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	fmt.Fprintf(out, "Workload %s: %d jobs, %d tasks; seed %d\n", w.Name, len(w.Jobs), w.Tasks(), set.Seed)
	nodes := d(cl.Nodes, 18)
	racks := "1 rack"
	if r := d(cl.Racks, 1); r > 1 {
		racks = fmt.Sprintf("%d racks", r)
	}
	fmt.Fprintf(out, "Cluster: %d nodes in %s, %d map + %d reduce slots each, replication %d; ",
		nodes, racks, d(cl.MapSlots, 2), d(cl.ReduceSlots, 1), d(cl.Replication, min(3, nodes)))
	if set.Heartbeat > 0 {
		fmt.Fprintf(out, "heartbeats every %g s\n", set.Heartbeat)
	} else {
		fmt.Fprintln(out, "slots offered on every task end")
	}
	t := newTable(out, "policy", "makespan", "response mean", "median", "p95", "slowdown mean", "median", "p95", "V95",
		"node-local", "rack", "remote", "map util", "reduce util")
	secs := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	ratio := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	share := func(k, n int) string {
		if n == 0 {
			return "-"
		}
		return strconv.FormatFloat(100*float64(k)/float64(n), 'f', 1, 64) + " %"
	}
	for _, r := range runs {
		t.Append(summaryRow(r.result, secs, ratio, share))
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range runs {
		if r.workload != w {
			fmt.Fprintf(out, "%s: replays the plan on %d nodes (its extra VMs included); its jobs are sized for their plan VM counts.\n",
				r.result.Policy, d(r.workload.Cluster.Nodes, 18)+len(r.workload.Cluster.Extras))
		}
	}
	fmt.Fprintln(out, "Times in seconds. Slowdown: response ÷ the job's time alone on the empty cluster; V95 = p95 ÷ median slowdown.")
	return nil
}

// simulationChart draws the comparison to --chart: makespan and mean response
// bars and slowdown CDFs per policy, and, when two or more fair policies with
// different delays ran (a delay sweep), node locality against D.
func simulationChart(c *cli.Context, names []string, runs []simRun) error {
	results := make([]*sim.Result, len(runs))
	for i, r := range runs {
		results[i] = r.result
	}
	g, err := chart.Comparison(results)
	if err != nil {
		return err
	}
	var sweep []chart.LocalityPoint
	seen := map[int]bool{}
	for i, name := range names {
		d, ok := c.Int("delay"), name == "fair"
		if !ok {
			d, _, ok = fairDelays(name)
		}
		if ok && !seen[d] {
			seen[d] = true
			sweep = append(sweep, chart.LocalityPoint{D: d, Locality: runs[i].result.Locality.NodeFraction(), Expected: -1})
		}
	}
	if len(sweep) >= 2 {
		slices.SortFunc(sweep, func(a, b chart.LocalityPoint) int { return a.D - b.D })
		s, err := chart.LocalitySweep(sweep)
		if err != nil {
			return err
		}
		g.Plots = append(g.Plots, s.Plots[0])
	}
	return writeChart(c, g)
}
