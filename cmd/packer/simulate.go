package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/internal/progress"
	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
)

var simulateCommand = &cli.Command{
	Name:  "simulate",
	Usage: "compare scheduling policies on a task-level simulation of a Hadoop cluster",
	Description: "Simulates the workload's jobs, task by task, on a Hadoop-1 cluster (racks of nodes with map\n" +
		"and reduce slots, HDFS blocks replicated R times) under each policy and prints one row per\n" +
		"policy: makespan, response times, slowdowns (response ÷ the job's time alone on the empty\n" +
		"cluster), slowdown variability V95 = p95 ÷ median, map locality and slot utilisation.\n\n" +
		"Policies (--delay D and --rack-delay R set plain fair's; --plan FILE feeds the replays):\n" + policyHelp() + "\n" +
		"--workload is a simulation workload file (JSON with a cluster and jobs made of tasks), a\n" +
		"packer workload file, or a built-in name; packer jobs become waves·n·S map tasks of F(n)/waves\n" +
		"seconds (see docs/simulating.md). Same seed, same output, byte for byte.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "workload", Aliases: []string{"w"}, Usage: "simulation or packer workload `FILE`, or built-in NAME (default W1, or the plan's jobs with --plan)"},
		&cli.StringFlag{Name: "policies", Aliases: []string{"p"}, Value: "fifo,fair", Usage: "comma-separated: " + strings.Join(sim.PolicyNames(), ", ")},
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
		zeroIsDefault(&cli.Float64Flag{Name: "rack-factor", Value: sim.DefaultRackFactor, Usage: "rack-local map tasks run this many times longer"}),
		zeroIsDefault(&cli.Float64Flag{Name: "remote-factor", Value: sim.DefaultRemoteFactor, Usage: "off-rack map tasks run this many times longer"}),
		&cli.IntFlag{Name: "waves", Value: 4, Usage: "packer jobs: waves of map tasks on the nodes a job is sized for"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "master seed (block placement)"},
		&cli.Int64Flag{Name: "max-memory", Value: memoryBudget.Bytes >> 20, Usage: "refuse workloads estimated to need more than `MiB`, and run no more policies side by side than it holds (default: the least of half the machine's memory, 3/4 of a cgroup's limit, half of ulimit -v and GOMEMLIMIT; here " + memoryBudget.Source + "; 0: no limit)"},
		&cli.StringFlag{Name: "format", Value: "table", Usage: "output format: table, json or csv"},
		&cli.StringFlag{Name: "rank-by", Usage: "rank the policies by `METRIC` (" + strings.Join(sim.RankMetricNames(), ", ") + ") and say why, by job size"},
		&cli.StringFlag{Name: "jobs-csv", Usage: "write per-job results to `FILE` (CSV)"},
		&cli.StringFlag{Name: "trace", Usage: "write every event to `FILE` (CSV)"},
		chartFlag,
		spendingFlag, timerFlag, arffFlag, slowstartFlag, hybsLevelsFlag,
	},
	Action: simulateAction,
}

func simulateAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("simulate takes no arguments, got %q", c.Args().First())
	}
	format, err := checkFormat(c, "table", "json", "csv")
	if err != nil {
		return err
	}
	for _, check := range simFlagChecks {
		if err := check(c); err != nil {
			return err
		}
	}
	if m := c.String("rank-by"); m != "" {
		if _, err := sim.LookupRankMetric(m); err != nil {
			return badUsage("--rank-by: %v", err)
		}
	}
	opts, err := simPolicyOptions(c)
	if err != nil {
		return err
	}
	entries, err := sim.ParsePolicies(policyList(c), opts)
	if err != nil {
		return badUsage("--policies: %v", err)
	}
	set, err := simSettings(c)
	if err != nil {
		return err
	}
	cmp := &sim.Comparison{Entries: entries, Settings: set}
	report, done := simProgress(c.App.ErrWriter)
	defer done()
	cmp.Settings.Progress = report
	var pl *plan.Plan
	if path := c.String("plan"); path != "" {
		if pl, err = plan.ReadFile(path); err != nil {
			return badInput(err)
		}
	} else if slices.ContainsFunc(entries, sim.Entry.Replays) {
		return badUsage("--policies: plan needs --plan FILE (write one with packer plan --output)")
	}
	base, jobs, err := simWorkload(c, pl)
	if err != nil {
		return err
	}
	cmp.Workload = base
	if pl != nil {
		if cmp.Replay, err = planReplay(c, base, jobs, pl); err != nil {
			return err
		}
	}
	trace, err := openSimTrace(c.String("trace"))
	if err != nil {
		return err
	}
	if trace != nil {
		defer trace.file.Abort()
		cmp.Trace = trace.Tracer
	}
	runs, err := sim.Compare(cmp)
	done() // the line goes before anything is printed
	if errors.Is(err, sim.ErrStalled) {
		return err
	} else if errors.Is(err, sim.ErrTooBig) && !c.IsSet("max-memory") {
		return badInput(fmt.Errorf("%w (the default limit: %s)", err, memoryBudget.Source))
	} else if err != nil {
		return badInput(err)
	}

	// Everything is computed; now write, files first, so that a failure
	// leaves nothing half-done on stdout.
	if err := trace.commit(); err != nil {
		return err
	}
	if path := c.String("jobs-csv"); path != "" {
		if err := safefile.WriteFile(path, sim.JobsCSV(runs), 0o644); err != nil {
			return err
		}
	}
	if path := c.String("arff"); path != "" {
		if err := safefile.WriteFile(path, sim.ARFF(runs, opts.HybSLevels), 0o644); err != nil {
			return err
		}
	}
	if c.String("chart") != "" {
		if err := simulationChart(c, runs); err != nil {
			return err
		}
	}
	for _, n := range sim.NoteLines(runs) {
		if format != "table" { // the table carries the notes itself
			fmt.Fprintln(c.App.ErrWriter, "packer: note:", n)
		}
	}
	// The idle-cluster note goes to stderr whatever the format (JSON also
	// carries it): it is advice about the command, not a result.
	if idle := sim.IdleNote(base, sim.Results(runs, base)); idle != nil {
		fmt.Fprintln(c.App.ErrWriter, "packer: note:", idle.Note)
	}
	ranking, err := simRanking(c, base, runs)
	if err != nil {
		return err
	}
	out := c.App.Writer
	switch format {
	case "json":
		return sim.WriteJSON(out, base, cmp.Settings.Seed, runs, ranking)
	case "csv":
		if ranking != nil { // stdout is the CSV's
			fmt.Fprintln(c.App.ErrWriter, strings.Join(ranking.Lines(), "\n"))
		}
		_, err := out.Write(sim.SummaryCSV(runs))
		return err
	}
	if err := printSimulation(out, base, cmp.Settings, runs); err != nil {
		return err
	}
	if ranking != nil {
		fmt.Fprintln(out, strings.Join(ranking.Lines(), "\n"))
	}
	return nil
}

// simRanking is --rank-by's ranking of the runs on the workload (sim.Rank;
// plan replays run jobs of their own and are left out, said on stderr), or
// nil without the flag.
func simRanking(c *cli.Context, base *sim.Workload, runs []sim.Outcome) (*sim.Ranking, error) {
	metric := c.String("rank-by")
	if metric == "" {
		return nil, nil
	}
	results := sim.Results(runs, base)
	if len(results) < len(runs) {
		fmt.Fprintf(c.App.ErrWriter, "packer: note: --rank-by ranks the %d policies run on the workload; plan replays run their own jobs and are left out\n", len(results))
	}
	if len(results) == 0 {
		return nil, nil
	}
	rk, err := sim.Rank(base, results, metric)
	if err != nil {
		return nil, badInput(err)
	}
	return rk, nil
}

// simTrace streams --trace to a temporary file beside its target (a million
// tasks make hundreds of megabytes), renamed into place once all is done.
type simTrace struct {
	path string
	file *safefile.File
	*sim.TraceCSV
}

// openSimTrace starts the trace file; no path, no trace.
func openSimTrace(path string) (*simTrace, error) {
	if path == "" {
		return nil, nil
	}
	f, err := safefile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	return &simTrace{path: path, file: f, TraceCSV: sim.NewTraceCSV(f)}, nil
}

// commit flushes the trace and renames it into place; a nil trace is none.
func (t *simTrace) commit() error {
	if t == nil {
		return nil
	}
	if err := t.Flush(); err != nil {
		return fmt.Errorf("--trace %s: %w", t.path, err)
	}
	return t.file.Commit()
}

func printSimulation(out io.Writer, w *sim.Workload, set sim.Settings, runs []sim.Outcome) error {
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
	for _, r := range runs {
		t.Append(sim.SummaryRow(r.Result, secs, ratio, sim.Share))
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range runs {
		if r.Workload != w {
			fmt.Fprintf(out, "%s: replays the plan on %d nodes (its extra VMs included); its jobs are sized for their plan VM counts.\n",
				r.Result.Policy, d(r.Workload.Cluster.Nodes, 18)+len(r.Workload.Cluster.Extras))
		}
	}
	for _, n := range sim.NoteLines(runs) {
		fmt.Fprintln(out, "Note:", n)
	}
	fmt.Fprintln(out, "Times in seconds. Slowdown: response ÷ the job's time alone on the empty cluster, every map node-local; V95 = p95 ÷ median slowdown.")
	return nil
}

// simulationChart draws the comparison to --chart: makespan and mean response
// bars and slowdown CDFs per policy, and, when two or more fair policies with
// different delays ran (a delay sweep), node locality against D.
func simulationChart(c *cli.Context, runs []sim.Outcome) error {
	g, err := chart.Comparison(sim.Results(runs, nil))
	if err != nil {
		return err
	}
	var sweep []chart.LocalityPoint
	seen := map[int]bool{}
	for _, r := range runs {
		// A run whose maps read no block has no locality to plot (sim.LocalityCounts.NodeShare).
		if f, ok := r.Entry.Policy.(*sim.Fair); ok && !seen[f.Delay] && r.Result.Locality.WithInput() > 0 {
			seen[f.Delay] = true
			sweep = append(sweep, chart.LocalityPoint{D: f.Delay, Locality: r.Result.Locality.NodeFraction(), Expected: -1})
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

// simProgress draws on one line of a terminal how far each run under way
// has come (runs go side by side), and done clears it; off a terminal both
// do nothing.
func simProgress(w io.Writer) (report func(sim.Progress), done func()) {
	line := progress.NewTerminal(w)
	if line == nil {
		return nil, func() {}
	}
	var order []string // the runs under way, in the order they first reported
	latest := map[string]sim.Progress{}
	return func(p sim.Progress) {
		if _, ok := latest[p.Policy]; !ok {
			order = append(order, p.Policy)
		}
		latest[p.Policy] = p
		if p.TasksDone == p.Tasks {
			delete(latest, p.Policy)
			order = slices.DeleteFunc(order, func(n string) bool { return n == p.Policy })
		}
		if len(order) == 0 {
			line.Done() // nothing under way: no stale state left on screen
			return
		}
		parts := make([]string, len(order))
		for i, n := range order {
			q := latest[n]
			parts[i] = fmt.Sprintf("%s %.0f %%", n, 100*float64(q.TasksDone)/float64(max(1, q.Tasks)))
			if q.Time > 0 && len(order) == 1 { // one run: room for its clock
				parts[i] += fmt.Sprintf(" (simulated %.0f s)", q.Time)
			}
		}
		line.Report(false, "%s", strings.Join(parts, ", "))
	}, line.Done
}

// simSettings are the run's settings from the flags, checked by sim up
// front, before any file is opened, with the flag named in a usage error.
func simSettings(c *cli.Context) (sim.Settings, error) {
	maxMemory, err := maxMemoryBytes(c)
	if err != nil {
		return sim.Settings{}, err
	}
	set := sim.Settings{Seed: c.Uint64("seed"), Heartbeat: c.Float64("heartbeat"),
		RackFactor: c.Float64("rack-factor"), RemoteFactor: c.Float64("remote-factor"), ReduceSlowstart: c.Float64("slowstart"),
		MaxMemory: maxMemory}
	return set, settingUsage(c, set.Validate())
}
