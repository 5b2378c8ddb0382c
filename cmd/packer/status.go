package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
)

// statePlanFlag names the plan whose state file status and destroy read.
var statePlanFlag = &cli.StringFlag{Name: "plan", Usage: "plan document `FILE` whose default state file (packer-<plan id>.state.json) to read"}

var statusCommand = &cli.Command{
	Name:  "status",
	Usage: "show where an apply stands, from its journal",
	Description: "Reads the journal apply writes (--state; without it, the plan's packer-<plan id>.state.json\n" +
		"with --plan, else the only packer-*.state.json in this directory) and shows the run's status,\n" +
		"each phase's (numbered from 1; --format json prints the journal, whose phase \"index\" counts\n" +
		"from 0), and every VM that may still exist on a host. Touches no host.",
	Flags:  []cli.Flag{&cli.StringFlag{Name: "state", Usage: "journal `FILE` written by packer apply"}, statePlanFlag, formatFlag},
	Action: statusAction,
}

// statePath is --state, or the state file apply wrote for --plan's plan, or
// the only one in the working directory.
func statePath(c *cli.Context) (string, error) {
	if p := c.String("state"); p != "" {
		return p, nil
	}
	id := ""
	if p := c.String("plan"); p != "" {
		pl, err := plan.ReadFile(p)
		if err != nil {
			return "", badInput(err)
		}
		id = pl.ID
	}
	p, err := xenlibvirt.FindStateFile(".", id)
	if err != nil {
		return "", badInput(err)
	}
	return p, nil
}

// readJournal reads the journal statePath finds; it returns its path too.
func readJournal(c *cli.Context) (string, *xenlibvirt.Journal, error) {
	path, err := statePath(c)
	if err != nil {
		return "", nil, err
	}
	j, err := xenlibvirt.ReadJournalFile(path)
	if err != nil {
		return "", nil, badInput(err)
	}
	return path, j, nil
}

func statusAction(c *cli.Context) error {
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	path, j, err := readJournal(c)
	if err != nil {
		return err
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
		_ = t.Append([]string{strconv.Itoa(xenlibvirt.PhaseNumber(p.Index)), p.Status, strconv.Itoa(counts[i]), p.Error})
	}
	if err := t.Render(); err != nil {
		return err
	}
	if dir := xenlibvirt.RunDir(path); dirExists(dir) {
		fmt.Fprintf(w, "run directory %s: consoles in console/, record in %s, observations in %s\n", dir, xenlibvirt.RunRecordFile, xenlibvirt.ObservationsFile)
		if rec, err := xenlibvirt.ReadRunRecord(dir); err == nil {
			fmt.Fprintln(w, "predicted against measured (seconds):")
			if err := rec.WriteTable(w); err != nil {
				return err
			}
		}
	}
	live := j.LiveVMs()
	if len(live) == 0 {
		fmt.Fprintln(w, "no VMs or disks left on any host")
		return nil
	}
	fmt.Fprintf(w, "%d VMs may still exist (packer apply --resume or packer destroy removes them):\n", len(live))
	t = newTable(w, "VM", "PHASE", "HOST", "STATE", "DISK")
	for _, v := range live {
		_ = t.Append([]string{v.Name, strconv.Itoa(xenlibvirt.PhaseNumber(v.Phase)), v.Host, v.StateText(), v.Disk})
	}
	return t.Render()
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
