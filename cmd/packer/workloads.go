package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/workloads"
)

var workloadsCommand = &cli.Command{
	Name:  "workloads",
	Usage: "list the built-in workloads, or print one as a workload file",
	Action: func(c *cli.Context) error {
		if c.NArg() > 0 {
			return badUsage("unknown workloads subcommand %q (want show NAME)", c.Args().First())
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
			Usage:     "print a built-in workload as a workload file (JSON)",
			ArgsUsage: "NAME",
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return badUsage("workloads show takes one workload name, got %d arguments", c.NArg())
				}
				w, err := workloads.Get(c.Args().First())
				if err != nil {
					return badInput(err)
				}
				b, err := w.MarshalIndent()
				if err != nil {
					return err
				}
				_, err = c.App.Writer.Write(b)
				return err
			},
		},
	},
}
