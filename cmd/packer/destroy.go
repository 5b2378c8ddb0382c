package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/xenlibvirt"
)

var destroyCommand = &cli.Command{
	Name:  "destroy",
	Usage: "remove every VM and disk an apply's journal lists, and nothing else",
	Description: "Connects to the hosts the journal names and destroys, undefines and deletes what it lists\n" +
		"as possibly still there. A domain is touched only if its packer metadata names this plan\n" +
		"and this VM, a disk only if it is an overlay of the plan's image; anything else is left\n" +
		"alone and reported. The journal is updated after every step.",
	Flags:  []cli.Flag{&cli.StringFlag{Name: "state", Usage: "journal `FILE` written by packer apply", Required: true}},
	Action: destroyAction,
}

func destroyAction(c *cli.Context) error {
	path := c.String("state")
	j, err := xenlibvirt.ReadJournalFile(path)
	if err != nil {
		return badInput(err)
	}
	live := len(j.LiveVMs())
	if err := xenlibvirt.Destroy(j, connector, path, c.App.Writer); err != nil {
		return fmt.Errorf("destroy: %w (journal: %s)", err, path)
	}
	fmt.Fprintf(c.App.Writer, "plan %s: %d VMs removed, nothing of it left (journal %s)\n", j.Plan, live, path)
	return nil
}
