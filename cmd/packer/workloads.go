package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/workloads"
)

var workloadsCommand = &cli.Command{
	Name:  "workloads",
	Usage: "list the built-in workloads, or print one as a workload file",
	Action: func(c *cli.Context) error {
		if c.NArg() > 0 {
			return badUsage("unknown workloads subcommand %q (want show NAME, merge FILE... or import FILE)", c.Args().First())
		}
		t := newTable(c.App.Writer, "name", "jobs", "description")
		for _, n := range workloads.Names() {
			w, err := workloads.Get(n)
			if err != nil {
				return err
			}
			t.Append([]string{w.Name, fmt.Sprint(len(w.Jobs)), w.Description})
		}
		return t.Render()
	},
	Subcommands: []*cli.Command{
		{
			Name:      "show",
			Usage:     "print a built-in workload (or a random one: random-m20-seed1) as a workload file (JSON)",
			ArgsUsage: "NAME",
			Flags: []cli.Flag{&cli.StringFlag{Name: "format", Value: "json",
				Usage: "output format: json (the workload file) or table (a line per job)"}},
			Action: workloadsShow,
		},
		workloadsMergeCommand,
		workloadsImportCommand,
	},
}

// workloadsShow prints a built-in or random workload as a workload file, or
// its jobs as a table.
func workloadsShow(c *cli.Context) error {
	format, err := checkFormat(c, "json", "table")
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return badUsage("workloads show takes one workload name, got %d arguments", c.NArg())
	}
	w, ok, err := optimize.RandomByName(c.Args().First())
	if !ok {
		w, err = workloads.Get(c.Args().First())
	}
	if err != nil {
		return badInput(err)
	}
	if format == "table" {
		t := newTable(c.App.Writer, "job", "runtime model F(n)", "class", "description")
		for _, j := range w.Jobs {
			t.Append([]string{j.Name, j.Model.String(), j.Class(), j.Description})
		}
		return t.Render()
	}
	b, err := w.MarshalIndent()
	if err != nil {
		return err
	}
	_, err = c.App.Writer.Write(b)
	return err
}

// workloadsMergeCommand joins workload files, typically several profiles,
// into one workload to plan.
var workloadsMergeCommand = &cli.Command{
	Name:      "merge",
	Usage:     "join workload files (profiles among them) into one workload file",
	ArgsUsage: "FILE|NAME...",
	Description: "Reads each argument as a workload file (or a built-in workload name) and writes one\n" +
		"workload with all their jobs, in order, keeping every field (profiles included). Job names\n" +
		"must be unique across the inputs.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the merged workload file to `FILE` instead of standard output"},
		&cli.StringFlag{Name: "name", Usage: "name of the merged workload (default: the inputs' names joined by +)"},
	},
	Action: func(c *cli.Context) error {
		files := c.Args().Slice()
		output, name := c.String("output"), c.String("name")
		if len(files) < 1 {
			return badUsage("workloads merge takes one or more workload files, got none")
		}
		var m workloads.Merger
		stdinUsed := false
		for _, arg := range files {
			if arg == "-" {
				if stdinUsed {
					return badUsage("workloads merge: standard input (-) given twice")
				}
				stdinUsed = true
			}
			w, err := readWorkloadArg(c, arg)
			if err != nil {
				return err
			}
			if err := m.Add(w, arg); err != nil {
				return badInput(err)
			}
		}
		merged, err := m.Workload(name, "merged by packer workloads merge from "+strings.Join(files, ", "))
		if err != nil {
			return badInput(err)
		}
		doc, err := merged.MarshalIndent()
		if err != nil {
			return err
		}
		if output != "" {
			return writeOutput(output, doc)
		}
		_, err = c.App.Writer.Write(doc)
		return err
	},
}

// readWorkloadArg reads a workload file, or a built-in workload by name when
// no such file exists and the argument does not look like a path.
func readWorkloadArg(c *cli.Context, arg string) (*model.Workload, error) {
	w, builtin, err := workloads.Open(arg, c.App.Reader)
	switch {
	case err != nil && builtin:
		return nil, badInput(fmt.Errorf("%s: no such file, and %w", quoteEmpty(arg), err))
	case err != nil:
		return nil, badInput(err)
	}
	return w, nil
}

// quoteEmpty is name, or "" (quoted) when it is empty, so that a message
// never starts "packer: : …".
func quoteEmpty(name string) string {
	if name == "" {
		return `""`
	}
	return name
}
