package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/experiments"
	"github.com/packer-sched/packer/internal/progress"
)

var experimentCommand = &cli.Command{
	Name:  "experiment",
	Usage: "regenerate the papers' headline comparisons in the simulator",
	Description: "packer experiment list names the experiments and their papers; packer experiment run NAME... (or all)\n" +
		"runs each over --seeds random seeds (1..N), prints every number as the median over seeds with\n" +
		"min–max, the paper's number beside or below it, and whether the paper's direction holds on the\n" +
		"medians; it ends with how many claims hold, by paper. Lines fit 100 columns.",
	Subcommands: []*cli.Command{
		{
			Name:   "list",
			Usage:  "list the experiments",
			Action: experimentList,
		},
		{
			Name:      "run",
			Usage:     "run experiments (all, or the ones named)",
			ArgsUsage: "[NAME...|all] (flags before or after the names)",
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "seeds", Value: experiments.DefaultSeeds, Usage: "random seeds 1..N; numbers are medians over them"},
				formatFlag,
				&cli.StringFlag{Name: "shard", Usage: "run shard `i/N` (i from 0) of the experiments, as packer sweep run does"},
				&cli.IntFlag{Name: "shards", Usage: "the shard count under a batch system (Slurm array task ids or a Kubernetes completion index)"},
				&cli.StringFlag{Name: "out", Usage: "with a shard: write its results to `DIR` (made if missing) for experiment merge"},
			},
			Action: experimentRun,
		},
		{
			Name:      "merge",
			Usage:     "print the results of a sharded run from its shards' files",
			ArgsUsage: "DIR",
			Flags:     []cli.Flag{formatFlag},
			Action:    experimentMerge,
		},
	},
}

func experimentList(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("experiment list takes no arguments, got %q", c.Args().First())
	}
	t := newTable(c.App.Writer, "NAME", "PAPER", "WHAT")
	for _, e := range experiments.All() {
		t.Append([]string{e.Name, e.Paper.Name + " (" + e.Paper.Cite() + ")", e.Title})
	}
	return t.Render()
}

func experimentRun(c *cli.Context) error {
	names := c.Args().Slice() // flags may follow the names: run dp-shares --seeds 1
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	n := c.Int("seeds")
	if n < 1 || n > experiments.MaxSeeds {
		return badUsage("--seeds must be between 1 and %d, got %d", experiments.MaxSeeds, n)
	}
	sh, _, sharded, err := sweepShard(c)
	if err != nil {
		return err
	}
	if sharded != (c.String("out") != "") {
		return badUsage("a shard needs --out DIR for its results, and --out a shard (--shard i/N, or a batch system's index)")
	}
	if sharded {
		if err := checkOutDir(c.String("out"), experiments.ShardFileName(sh.Index, sh.Count)); err != nil {
			return err
		}
	}
	selection, owned, err := experiments.Owned(names, sh.Index, sh.Count)
	if err != nil {
		return badInput(err)
	}
	var results []*experiments.Result
	if len(owned) > 0 { // none: more shards than experiments
		line, tty := progress.New(c.App.ErrWriter), progress.IsTerminal(c.App.ErrWriter)
		results, err = experiments.Run(owned, &experiments.Settings{Seeds: n, Progress: func(done, total int, name string) {
			line.Report(tty && done == total, "experiment: %d of %d runs done (last: %s)", done, total, name)
		}})
		line.Done()
		if err != nil {
			return err
		}
	}
	if sharded {
		return writeExperimentShard(c, experiments.ShardFile{Selection: selection, Seeds: n, Shard: sh.Index, Shards: sh.Count, Results: results})
	}
	return printExperimentResults(c, format, results)
}

// printExperimentResults prints a run's results, as a document or tables
// and the tally of claims.
func printExperimentResults(c *cli.Context, format string, results []*experiments.Result) error {
	if format == "json" {
		return printJSON(c.App.Writer, results)
	}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		if err := printExperiment(c.App.Writer, r); err != nil {
			return err
		}
	}
	fmt.Fprintln(c.App.Writer)
	printExperimentSummary(c.App.Writer, results)
	return nil
}
