package main

import (
	"fmt"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/xenlibvirt"
)

var statusCommand = &cli.Command{
	Name:        "status",
	Usage:       "show where an apply stands, from its journal",
	Description: "Reads the journal apply writes (--state) and shows the run's status, each phase's, and every\nVM that may still exist on a host. Touches no host.",
	Flags:       []cli.Flag{&cli.StringFlag{Name: "state", Usage: "journal `FILE` written by packer apply", Required: true}, formatFlag},
	Action:      statusAction,
}

func statusAction(c *cli.Context) error {
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	j, err := xenlibvirt.ReadJournalFile(c.String("state"))
	if err != nil {
		return badInput(err)
	}
	w := c.App.Writer
	if format == "json" {
		b, err := j.Marshal()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	fmt.Fprintf(w, "plan %s: %s (step %d)\n", j.Plan, j.Status, j.Step)
	if j.Error != "" {
		fmt.Fprintf(w, "error: %s\n", j.Error)
	}
	counts := make([]int, len(j.Phases))
	for _, v := range j.VMs {
		counts[v.Phase]++
	}
	t := newTable(w, "PHASE", "STATUS", "VMS CREATED", "ERROR")
	for i, p := range j.Phases {
		_ = t.Append([]string{strconv.Itoa(p.Index), p.Status, strconv.Itoa(counts[i]), p.Error})
	}
	if err := t.Render(); err != nil {
		return err
	}
	live := j.LiveVMs()
	if len(live) == 0 {
		fmt.Fprintln(w, "no VMs or disks left on any host")
		return nil
	}
	fmt.Fprintf(w, "%d VMs may still exist (packer apply --resume or packer destroy removes them):\n", len(live))
	t = newTable(w, "VM", "PHASE", "HOST", "STATE", "DISK")
	for _, v := range live {
		_ = t.Append([]string{v.Name, strconv.Itoa(v.Phase), v.Host, v.State, v.Disk})
	}
	return t.Render()
}
