package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/internal/progress"
	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/internal/table"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/pso"
)

// plan catches SIGINT and SIGTERM itself (planSignals).
func init() {
	i, _ := slices.BinarySearch(ownSignals, "plan")
	ownSignals = slices.Insert(ownSignals, i, "plan")
}

var planCommand = &cli.Command{
	Name:  "plan",
	Usage: "plan a workload onto the cluster: phases, VM counts, roles, hosts and disks",
	Description: "Plans the workload (default: the built-in W1) onto P hosts with k disks each and prints\n" +
		"each phase's jobs and placement, the makespan, the sequential makespan and the saving.\n" +
		"The model is that of Aboulnaga et al., \"Packing the Most Onto Your Cloud\" (CloudDB 2009).\n" +
		"Algorithms: pair (the paper's pair scheduler, exact pairing), sequential (every job alone\n" +
		"on all N VMs), exact (the optimum of the paper's phase model, any number of jobs per phase,\n" +
		"up to 18 jobs), pso (particle swarm over the same model, any size, seeded), columns (column\n" +
		"generation: a plan and a proven lower bound) and auto, the default (exact up to 16 jobs, else\n" +
		"columns seeded with a short pso run up to 100 jobs, below 40 primary VMs or if --iterations\n" +
		"is given, and never worse than that run). The search's course is fixed; --time-limit (wall\n" +
		"clock) and --work-limit (work units, the same on any machine) only say where it ends,\n" +
		"whichever comes first: a longer limit never gives a worse plan or bound, and --work-limit\n" +
		"alone gives the same plan every time. The notes say which limit ended it.\n" +
		"Ctrl-C or SIGTERM ends the search the same way: the best plan so far is checked, written\n" +
		"and marked interrupted, and plan exits 130 (143 for SIGTERM). --max-memory refuses, before\n" +
		"allocating, what the chosen algorithm is estimated to need beyond it.\n" +
		"exact, pso, columns and auto order the phases for the least mean job\n" +
		"completion time (Smith's rule; the makespan is unchanged) and record the optimum, or a\n" +
		"lower bound, and the gap. --output writes the plan document (JSON) for apply and simulate;\n" +
		"--export-lp writes the phase model as a CPLEX-LP MILP for cbc, glpsol or any MILP solver;\n" +
		"--chart draws the plan as a Gantt chart (SVG or PNG).",
	Flags: append([]cli.Flag{
		workloadFlag,
		&cli.StringFlag{Name: "algorithm", Aliases: []string{"a"}, Value: "auto", Usage: optimize.MethodList()},
		&cli.IntFlag{Name: "particles", Value: 1500, Usage: "pso: swarm size (the packing paper: 1500)"},
		&cli.IntFlag{Name: "iterations", Value: 200, Usage: "pso: iterations (the packing paper: 200; auto's swarm: a fixed budget of evaluations unless given, and given, auto runs a swarm at any size)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "pso: random seed; the same seed gives the same plan unless --time-limit cut the search short"},
		timeLimitFlag,
		workLimitFlag,
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the plan document (JSON) to `FILE`"},
		&cli.StringFlag{Name: "export-lp", Usage: "write the phase model as a CPLEX-LP mixed-integer program to `FILE`"},
		chartFlag,
		formatFlag,
		planDeadlineFlag,
		withinMeasuredFlag,
		&cli.BoolFlag{Name: "strict-shape", Usage: "refuse a plan whose VMs (vCPUs, memory) differ from those a job was measured on (vm_shape)"},
		planMaxMemoryFlag,
		&cli.BoolFlag{Name: "summary", Usage: "print the summary and notes only, not each phase's jobs and placement"},
	}, clusterFlags...),
	Action: planAction,
}

func planAction(c *cli.Context) error {
	sig := catchPlanSignals(c.Context)
	defer sig.stop()
	c.Context = context.WithValue(sig.ctx, planSignalsKey{}, sig)
	if c.NArg() > 0 {
		return badUsage("plan takes no arguments, got %q (did you mean --workload %s?)", c.Args().First(), c.Args().First())
	}
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	algo := c.String("algorithm")
	if _, err := optimize.ParseMethod(algo); err != nil {
		return badUsage("--algorithm: %v", err)
	}
	if err := checkChart(c); err != nil {
		return err
	}
	deadline, err := planDeadline(c)
	if err != nil {
		return err
	}
	if err := checkOutputs(c, "output", "export-lp"); err != nil {
		return err
	}
	if c.Int("particles") < 1 {
		return badUsage("--particles: must be at least 1, got %d", c.Int("particles"))
	}
	if c.Int("iterations") < 1 {
		return badUsage("--iterations: must be at least 1, got %d", c.Int("iterations"))
	}
	w, err := loadWorkload(c)
	if err != nil {
		return err
	}
	cl, err := clusterFromFlags(c)
	if err != nil {
		return err
	}
	p, err := model.NewProblem(w, cl)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", c.String("workload"), err))
	}
	if err := model.CheckShapes(p.Jobs, p.Cluster); err != nil && c.Bool("strict-shape") {
		return badInput(fmt.Errorf("--strict-shape: %s: %w", c.String("workload"), err))
	}
	if err := optimize.Accepts(optimize.Method(algo), p); err != nil {
		return badUsage("--algorithm %s: %v; use --algorithm pso or auto", algo, err)
	}
	if _, err := planSettings(c, len(p.Jobs)); err != nil {
		return err // before --export-lp is written
	}
	if lp := c.String("export-lp"); lp != "" {
		var buf bytes.Buffer
		if err := optimize.WriteLP(&buf, p, w.Name); err != nil {
			return err
		}
		// checkOutputs has checked the path.
		if err := safefile.WriteFile(lp, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	pl, err := makePlan(c, p, w.Name, algo)
	if err != nil {
		return err
	}
	doc, err := pl.MarshalIndent()
	if err != nil {
		return err
	}
	if out := c.String("output"); out != "" {
		if err := writeOutput(out, doc); err != nil {
			return err
		}
	}
	if c.String("chart") != "" { // drawing costs seconds at 5,000 jobs
		if err := writeChart(c, chart.Gantt(pl)); err != nil {
			return err
		}
	}
	if format == "json" {
		_, err = c.App.Writer.Write(doc)
		printDeadline(c.App.ErrWriter, pl.Makespan, deadline) // stdout is the document
	} else {
		err = printPlan(c.App.Writer, pl, c.Bool("summary"), deadline)
	}
	if s := sig.signalled(); s != nil && err == nil {
		return interruptedExit(s, pl, c.String("output"))
	}
	return err
}

// makePlan solves p with the named algorithm (optimize.Solve), the swarm
// configured from the flags, and builds the plan document.
func makePlan(c *cli.Context, p *model.Problem, workload, algo string) (*plan.Plan, error) {
	method, err := optimize.ParseMethod(algo)
	if err != nil {
		return nil, badUsage("%v", err)
	}
	set, err := planSettings(c, len(p.Jobs))
	if err != nil {
		return nil, err
	}
	line := progress.New(c.App.ErrWriter)
	defer line.Done()
	var shown atomic.Bool // a progress line was written
	report := func(msg string) {
		if line.Report(false, "%s", msg) {
			shown.Store(true)
		}
	}
	set.Progress = func(inc, lb float64) { report(optimize.FormatProgress(inc, lb)) }
	if bar := newProgressBar(c.App.ErrWriter); bar != nil {
		set.Swarm.Recorder = bar.record
		defer bar.done()
	} else {
		set.Swarm.Recorder = func(pr pso.Progress) { report(optimize.FormatSwarmProgress(pr)) }
	}
	set.Interrupt = planSignalsOf(c).interrupt()
	set.Reserve = optimize.PlanWriteReserve(p)
	res, err := optimize.Solve(p, method, set)
	if errors.Is(err, optimize.ErrRangeDoesNotFit) {
		return nil, badInput(fmt.Errorf("--within-measured: %w", err))
	} else if err != nil {
		return nil, solveError(err)
	}
	if shown.Load() && res.Method == optimize.MethodColumns && res.LowerBound != nil {
		// The last pricing round's numbers are not the result's: the
		// integer search after it improves the plan and the bound. The
		// progress ends with what the summary prints.
		line.Report(true, "%s", optimize.FormatProgress(p.Makespan(res.Schedule), *res.LowerBound))
	}
	res.Solution.Notes = append(res.Solution.Notes, model.ShapeNotes(p.Jobs, p.Cluster)...)
	pl, err := plan.New(p, workload, res.Solution)
	if err != nil || !res.Interrupted {
		return pl, err
	}
	// Cut short anywhere: checked once more, as any reader will.
	pl.Interrupted = true
	return pl, pl.Verify()
}

// planSettings are the solver settings the flags give for a problem of the
// given number of jobs (the default time limit grows with it), checked by
// optimize with the flag named in a usage error.
func planSettings(c *cli.Context, jobs int) (*optimize.Settings, error) {
	limit, work := c.Duration("time-limit"), c.Int64("work-limit")
	if !c.IsSet("time-limit") && work == 0 {
		limit = optimize.DefaultTimeLimit(jobs) // --work-limit alone: no wall-clock cap
	}
	iterations := 0 // auto's swarm: its fixed budget
	if c.IsSet("iterations") || c.String("algorithm") == string(optimize.MethodSwarm) {
		iterations = c.Int("iterations")
	}
	mem, source, err := planMemory(c)
	if err != nil {
		return nil, err
	}
	set := &optimize.Settings{Swarm: &pso.Settings{Particles: c.Int("particles"), Iterations: iterations, Seed: c.Uint64("seed")},
		TimeLimit: limit, WorkLimit: work, WithinMeasured: c.Bool("within-measured"), MaxMemory: mem, MemorySource: source}
	return set, settingUsage(c, set.Validate())
}

// withinMeasuredFlag keeps VM counts inside the jobs' measured ranges.
var withinMeasuredFlag = &cli.BoolFlag{Name: "within-measured",
	Usage: "give every job only VM counts inside the range it was measured on (measured_range); the optimum or bound then holds for that restricted model"}

// timeLimitFlag bounds the solvers that search (plan, and each plan of compare).
var timeLimitFlag = &cli.DurationFlag{Name: "time-limit", DefaultText: "10s up to 200 jobs, rising to 60s at 1,000 jobs",
	Usage: "pso, columns, auto: stop after `D` with the best plan and bound so far (0: no limit)"}

// workLimitFlag bounds plan's search in work units instead of seconds.
var workLimitFlag = &cli.Int64Flag{Name: "work-limit",
	Usage: "pso, columns, auto: stop after `N` work units, the same on any machine and load: the same plan every time (alone: no --time-limit; with it, whichever comes first; 0: no limit)"}

// progressBar draws the swarm's progress on a terminal: one line, redrawn.
type progressBar struct {
	w    io.Writer
	last int
}

// newProgressBar returns a bar if w is a terminal, else nil: progress never
// goes to a file or pipe, where it would mix with output others parse.
func newProgressBar(w io.Writer) *progressBar {
	if !progress.IsTerminal(w) {
		return nil
	}
	return &progressBar{w: w, last: -1}
}

func (b *progressBar) record(pr pso.Progress) {
	const width = 30
	fill := width * pr.Iteration / max(1, pr.Iterations)
	if fill == b.last && pr.Iteration != pr.Iterations {
		return
	}
	b.last = fill
	fmt.Fprintf(b.w, "\rpso [%s%s] %d/%d  best makespan %s ", strings.Repeat("#", fill), strings.Repeat(".", width-fill), pr.Iteration, pr.Iterations, seconds(pr.Best))
}

// done clears the bar's line, if the swarm drew one (auto may not run it).
func (b *progressBar) done() {
	if b.last >= 0 {
		fmt.Fprint(b.w, "\r\033[K")
	}
}

// printJSON prints v as indented JSON and a newline.
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// newTable starts a table in the house style (internal/table).
func newTable(w io.Writer, header ...string) *table.Table { return table.New(w, header...) }

// seconds renders a duration in seconds as plans' notes do (model.FormatSeconds).
func seconds(s float64) string { return model.FormatSeconds(s) }
