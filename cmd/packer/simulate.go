package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
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
	return writeSimulation(c, format, base, cmp.Settings, runs, trace, opts)
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
