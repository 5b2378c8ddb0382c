package main

import (
	"errors"
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
			},
			Action: experimentRun,
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
	// Flags may also follow the names: run dp-shares --seeds 1.
	names, err := argsAndFlags(c, "experiment run")
	if err != nil {
		return err
	}
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	n := c.Int("seeds")
	if n < 1 || n > experiments.MaxSeeds {
		return badUsage("--seeds must be between 1 and %d, got %d", experiments.MaxSeeds, n)
	}
	line, tty := progress.New(c.App.ErrWriter), progress.IsTerminal(c.App.ErrWriter)
	results, err := experiments.Run(names, &experiments.Settings{Seeds: n, Progress: func(done, total int, name string) {
		line.Report(tty && done == total, "experiment: %d of %d runs done (last: %s)", done, total, name)
	}})
	line.Done()
	if errors.Is(err, experiments.ErrUnknown) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
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
