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
	Description: "Connects to the hosts the journal names and destroys, undefines and deletes what it lists\n" +
		"as possibly still there. A domain is touched only if its packer metadata names this plan\n" +
		"and this VM, a disk only if it is an overlay of the plan's image; anything else is left\n" +
		"alone and reported. The journal is updated after every step. Without --state it reads\n" +
		"the plan's packer-<plan id>.state.json (--plan), else the only packer-*.state.json here.\n" +
		"It says what it will remove and asks first; --auto-approve does not ask.",
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
			fmt.Fprintf(&what, "\n  %s on %s (%s)", v.Name, v.Host, v.State)
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
