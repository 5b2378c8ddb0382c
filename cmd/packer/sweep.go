package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/progress"
	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/sweep"
)

var sweepCommand = &cli.Command{
	Name:  "sweep",
	Usage: "run a cross product of simulate or plan runs, in shards that Slurm or Kubernetes run",
	Description: "A sweep file (JSON) crosses workloads, cluster sizes, policies or algorithms, seeds and option\n" +
		"sets; each point is one simulate or plan run. `sweep run FILE` runs them all, or with --shard i/N\n" +
		"(or under a Slurm job array or a Kubernetes Indexed Job) the points whose index is i modulo N,\n" +
		"into a results directory; `sweep merge DIR` joins the shards' results, the same bytes as one run\n" +
		"of the whole, or names the shards that have not finished. `sweep emit slurm|k8s FILE` writes the\n" +
		"batch job. See docs/sweeping.md.",
	Subcommands: []*cli.Command{sweepRunCommand, sweepMergeCommand, sweepShowCommand, sweepEmitCommand},
}

// sweepOutputFlags are run's and merge's: the same outputs from the same
// results, whichever made them.
var sweepOutputFlags = []cli.Flag{
	&cli.StringFlag{Name: "format", Value: "table", Usage: "standard output: table, csv or jsonl (a JSON line a point)"},
	&cli.StringFlag{Name: "jsonl", Usage: "also write the results as JSON lines to `FILE`"},
	&cli.StringFlag{Name: "csv", Usage: "also write the results as CSV to `FILE`"},
	&cli.StringFlag{Name: "chart", Usage: "also draw --metric against cluster size to `FILE` (.svg or .png): a panel per workload, a line per policy or algorithm"},
	&cli.StringFlag{Name: "metric", Value: "makespan", Usage: "what --chart draws of a simulate sweep: `NAME`, one of " + strings.Join(sim.RankMetricNames(), ", ") + " (a plan sweep: makespan)"},
}

var sweepRunCommand = &cli.Command{
	Name:      "run",
	Usage:     "run a sweep's points, all or one shard's",
	ArgsUsage: "FILE",
	Description: "Without a shard, runs every point and prints the results. With --shard i/N, or the index a\n" +
		"batch system gives (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN;\n" +
		"Kubernetes' JOB_COMPLETION_INDEX with --shards or PACKER_SWEEP_SHARDS), runs that shard's points\n" +
		"into --out DIR/shard-i-of-N.jsonl, a line added after every point: a rerun goes on where it stopped.",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "shard", Usage: "run shard `i/N` (i from 0)"},
		&cli.IntFlag{Name: "shards", Usage: "the shard count under a batch system (Slurm: then the array's task ids are the shard numbers)"},
		&cli.StringFlag{Name: "out", Usage: "results `DIR` (made if missing); needed with a shard"},
		&cli.Int64Flag{Name: "max-memory", Value: memoryBudget.Bytes >> 20, Usage: "refuse a point's run estimated to need more than `MiB` (default: " + memoryBudget.Source + "; 0: no limit)"},
	}, sweepOutputFlags...),
	Action: sweepRunAction,
}

func sweepRunAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return badUsage("sweep run: want one sweep file, got %d arguments", c.NArg())
	}
	if err := checkSweepOutputs(c); err != nil {
		return err
	}
	sh, from, sharded, err := sweepShard(c)
	if err != nil {
		return err
	}
	dir := c.String("out")
	if sharded && dir == "" {
		return badUsage("sweep run: shard %s (%s) needs --out DIR, where the shards' results meet", sh, from)
	}
	if sharded && c.String("chart") != "" {
		return badUsage("sweep run: --chart draws the whole sweep: give it to sweep merge, not to shard %s", sh)
	}
	s, err := loadSweep(c, c.Args().First(), sh)
	if err != nil {
		return err
	}
	if err := sweep.CheckChartMetric(s.Run, c.String("metric")); err != nil {
		return badUsage("--metric: %v", err)
	}
	if dir != "" {
		if err := checkOutDir(dir, sweep.FileName(sh)); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil { // after the checks: bad input leaves nothing behind
			return badInput(fmt.Errorf("--out: %w", err))
		}
	}
	line := progress.New(c.App.ErrWriter)
	report := func(p sweep.Point, n, of int) {
		line.Report(false, "sweep %s: shard %s, point %d of %d: %s", s.Name, sh, n, of, p.Describe(s.Run))
	}
	switch {
	case sharded:
		ran, err := s.RunShard(dir, sh, report)
		line.Done()
		if err != nil {
			return sweepRunError(c, err, s, sh, dir)
		}
		fmt.Fprintf(c.App.Writer, "shard %s (%s): ran %d points; %d of %d points of sweep %s are in %s\n",
			sh, from, ran, len(sh.Select(s.Points())), len(s.Points()), s.Name, sweep.FileName(sh))
		return nil
	case dir != "":
		_, err = s.RunShard(dir, sweep.All, report)
		line.Done()
		if err != nil {
			return sweepRunError(c, err, s, sweep.All, dir)
		}
		return sweepMergeOutputs(c, dir)
	}
	res, err := s.RunAll(report)
	line.Done()
	if err != nil {
		return sweepRunError(c, err, s, sweep.All, "")
	}
	return writeSweepResults(c, res)
}

// sweepShard is the shard to run: --shard, else a batch system's index
// (sweep.Choose), else none; a bad one exits 2.
func sweepShard(c *cli.Context) (sweep.Shard, string, bool, error) {
	sh, from, ok, err := sweep.Choose(c.String("shard"), c.Int("shards"), os.LookupEnv)
	if err != nil {
		return sh, "", false, badUsage("%v", err)
	}
	return sh, from, ok, nil
}

// loadSweep reads the sweep file with its workloads; bad input exits 2.
func loadSweep(c *cli.Context, path string, sh sweep.Shard) (*sweep.Sweep, error) {
	maxMemory, err := maxMemoryBytes(c)
	if err != nil {
		return nil, err
	}
	s, err := sweep.Load(path, sh)
	if err != nil {
		return nil, badInput(err)
	}
	s.MaxMemory = maxMemory
	return s, nil
}

// sweepRunError words a failed shard: the point it stopped at, and how to
// finish it.
func sweepRunError(c *cli.Context, err error, s *sweep.Sweep, sh sweep.Shard, dir string) error {
	if errors.Is(err, sweep.ErrDirInUse) || errors.Is(err, sweep.ErrBadShards) {
		return badInput(fmt.Errorf("--out: %w", err))
	} else if !errors.Is(err, sweep.ErrPointFailed) {
		return fmt.Errorf("sweep %s, shard %s: %w", s.Name, sh, err)
	}
	limit, hint := "", ""
	if !c.IsSet("max-memory") {
		limit = " (the default limit: " + memoryBudget.Source + ")"
	}
	if dir != "" {
		hint = fmt.Sprintf("; the points before it are kept in %s: rerun shard %s where it fits to finish", dir, sh)
	}
	return fmt.Errorf("sweep %s: %w%s%s", s.Name, err, limit, hint)
}

var sweepMergeCommand = &cli.Command{
	Name:      "merge",
	Usage:     "join the shards' results in a directory",
	ArgsUsage: "DIR",
	Description: "Reads DIR/shard-i-of-N.jsonl for every i and prints the results of all points in order, the\n" +
		"same bytes as an unsharded run. A shard whose file is missing or lacks points fails the merge\n" +
		"(exit 1, incomplete) with one line naming it and its points: rerun that shard alone to finish\n" +
		"the sweep. Files of two sweeps or shard counts, or one that is not a shard file, exit 2.",
	Flags:  sweepOutputFlags,
	Action: sweepMergeAction,
}

func sweepMergeAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return badUsage("sweep merge: want one results directory, got %d arguments", c.NArg())
	}
	if err := checkSweepOutputs(c); err != nil {
		return err
	}
	if fi, err := os.Stat(c.Args().First()); err != nil || !fi.IsDir() {
		return badUsage("sweep merge: %s is not a directory", c.Args().First())
	}
	return sweepMergeOutputs(c, c.Args().First())
}

// sweepMergeOutputs merges dir and writes the outputs.
func sweepMergeOutputs(c *cli.Context, dir string) error {
	h, res, err := sweep.Merge(dir)
	var missing *sweep.MissingError
	if errors.As(err, &missing) {
		shards := make([]string, len(missing.Gaps))
		for i, g := range missing.Gaps {
			shards[i] = g.Shard.String()
		}
		return fmt.Errorf("sweep merge: %w; rerun: %s sweep run --out %s --shard S %s, for S in %s",
			err, c.App.Name, sweep.ShellQuote(dir), sweep.ShellQuote(h.File), strings.Join(shards, ", "))
	} else if errors.Is(err, sweep.ErrBadShards) || errors.Is(err, sweep.ErrNoShards) {
		return badInput(fmt.Errorf("sweep merge: %w", err))
	} else if err != nil {
		return fmt.Errorf("sweep merge: %w", err)
	}
	return writeSweepResults(c, res)
}

// checkSweepOutputs checks --format and the output paths before any run.
func checkSweepOutputs(c *cli.Context) error {
	if _, err := checkFormat(c, "table", "csv", "jsonl"); err != nil {
		return err
	}
	if err := checkChart(c); err != nil {
		return err
	}
	return checkOutputs(c, "jsonl", "csv")
}

// writeSweepResults writes the files asked for and standard output; the
// chart is drawn first, so that a metric it cannot draw leaves no file.
func writeSweepResults(c *cli.Context, res *sweep.Results) error {
	var pic []byte
	if path := c.String("chart"); path != "" {
		var err error
		if pic, err = sweepChart(res, c.String("metric"), path); err != nil {
			return err
		}
	} else if err := sweep.CheckChartMetric(res.Run, c.String("metric")); err != nil {
		return badUsage("--metric: %v", err)
	}
	// Every path is checked again before any is written (a run takes long,
	// and a directory may go meanwhile): one that cannot be written leaves
	// no other half-made. Then the files go in a fixed order.
	if err := checkOutputs(c, "jsonl", "csv", "chart"); err != nil {
		return err
	}
	for _, out := range []struct {
		flag string
		data func() []byte
	}{{"jsonl", res.JSONL}, {"csv", res.CSV}} {
		if path := c.String(out.flag); path != "" {
			if err := writeOutput(path, out.data()); err != nil {
				return err
			}
		}
	}
	if pic != nil {
		if err := safefile.WriteFile(c.String("chart"), pic, 0o644); err != nil {
			return err
		}
	}
	switch c.String("format") {
	case "jsonl":
		_, err := c.App.Writer.Write(res.JSONL())
		return err
	case "csv":
		_, err := c.App.Writer.Write(res.CSV())
		return err
	}
	return printSweepTable(c, res)
}

// sweepTableColumns are the table's columns (the CSV has them all).
var sweepTableColumns = map[string][]string{
	sweep.Simulate: {"index", "workload", "nodes", "policy", "seed", "options", "makespan", "mean_response", "p95_slowdown", "v95", "node_local", "error"},
	sweep.Plan:     {"index", "workload", "hosts", "algorithm", "seed", "options", "makespan", "saving_percent", "gap_percent", "method", "error"},
}

func printSweepTable(c *cli.Context, res *sweep.Results) error {
	header, cols := res.Header(), sweepTableColumns[res.Run]
	t := newTable(c.App.Writer, cols...)
	for _, row := range res.Rows() {
		out := make([]string, len(cols))
		for i, name := range cols {
			out[i] = row[slices.Index(header, name)]
			if x, err := strconv.ParseFloat(out[i], 64); err == nil && i >= 6 && name != "method" {
				out[i] = strconv.FormatFloat(x, 'f', 2, 64)
			}
		}
		t.Append(out)
	}
	return t.Render()
}
