package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/xenlibvirt"
)

var destroyCommand = &cli.Command{
	Name:  "destroy",
	Usage: "remove every VM and disk an apply's journal lists, and nothing else",
	Description: "Connects to the hosts the journal names and destroys, undefines and deletes what it lists as\n" +
		"possibly there, a step announced and never confirmed (a crash) included. A domain is touched\n" +
		"only if its packer metadata names this plan and this VM, a disk only if it is an overlay of\n" +
		"the plan's image; anything else is left alone and reported. The journal is updated after\n" +
		"every step. Without --state it reads the plan's packer-<plan id>.state.json (--plan), else\n" +
		"the only packer-*.state.json here. It asks first; --auto-approve does not.",
	Flags: []cli.Flag{&cli.StringFlag{Name: "state", Usage: "journal `FILE` written by packer apply"}, statePlanFlag,
		autoApproveFlag, connectTimeoutFlag},
	Action: destroyAction,
}

func destroyAction(c *cli.Context) error {
	path, j, err := readJournal(c)
	if err != nil {
		return err
	}
	conn, err := hostsConnector(c)
	if err != nil {
		return err
	}
	live := j.LiveVMs()
	if len(live) > 0 {
		var what strings.Builder
		fmt.Fprintf(&what, "packer will destroy %d VMs of plan %s and delete their disks (journal %s):", len(live), j.Plan, path)
		for _, v := range live {
			fmt.Fprintf(&what, "\n  %s on %s (%s)", v.Name, v.Host, v.StateText())
		}
		if err := approve(c, what.String()); err != nil {
			return err
		}
	}
	res, err := xenlibvirt.Destroy(j, conn, path, c.App.Writer)
	if err != nil {
		return fmt.Errorf("destroy: %w (journal: %s)", err, path)
	}
	fmt.Fprintf(c.App.Writer, "plan %s: %d VMs removed, %d already gone; nothing of it left (journal %s)\n", j.Plan, res.Removed, res.Gone, path)
	return nil
}
