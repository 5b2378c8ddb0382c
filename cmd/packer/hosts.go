package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
)

var hostsCommand = &cli.Command{
	Name:  "hosts",
	Usage: "inspect the inventory's hosts through libvirt",
	Subcommands: []*cli.Command{{
		Name:  "check",
		Usage: "connect to every host, report what libvirt says it has, and whether a plan fits",
		Description: "Connects to each inventory host and reports whether it is reachable, libvirt's driver,\n" +
			"CPUs and memory, the domain types it offers, its disks' storage pools and whether the\n" +
			"appliance image is there. With --plan, also checks the plan against the inventory and\n" +
			"the hosts (as apply does before it changes anything). Exits 1 if a host is unreachable\n" +
			"or the plan does not fit (naming the unreachable hosts); a host that does not answer\n" +
			"within --connect-timeout counts as unreachable.",
		Flags: []cli.Flag{inventoryFlag, &cli.StringFlag{Name: "plan", Usage: "plan document `FILE` to check against the hosts"}, formatFlag,
			connectTimeoutFlag},
		Action: hostsCheckAction,
	}},
}

func hostsCheckAction(c *cli.Context) error {
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	pl, inv, err := readPlanAndInventory(c)
	if err != nil {
		return err
	}
	conn, err := hostsConnector(c)
	if err != nil {
		return err
	}
	rep := xenlibvirt.CheckHosts(pl, inv, conn)
	w := c.App.Writer
	if format == "json" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	} else if err := printHostsReport(w, rep, pl, inv); err != nil {
		return err
	}
	unreachable := rep.Unreachable()
	switch {
	case len(rep.Problems) > 0:
		return cli.Exit(fmt.Sprintf("packer: hosts check: plan %s does not fit (%d problems)", pl.ID, len(rep.Problems)), exitFailure)
	case len(unreachable) > 0:
		return cli.Exit(fmt.Sprintf("packer: hosts check: %d of %d hosts unreachable: %s", len(unreachable), len(rep.Hosts),
			strings.Join(unreachable, "; ")), exitFailure)
	}
	return nil
}

// printHostsReport writes hosts check's table and, with a plan, whether it fits.
func printHostsReport(w io.Writer, rep *xenlibvirt.HostsReport, pl *plan.Plan, inv *xenlibvirt.Inventory) error {
	t := newTable(w, "HOST", "URI", "REACHABLE", "DRIVER", "CPUS", "MEMORY MIB", "DOMAIN TYPES", "DISK POOLS", "IMAGE")
	for i, r := range rep.Hosts {
		if !r.Reachable {
			_ = t.Append([]string{r.Name, r.URI, "no: " + r.Error, "", "", "", "", "", ""})
			continue
		}
		f := r.Facts
		img := "present"
		if len(f.Missing) > 0 {
			img = "missing " + strings.Join(f.Missing, ", ")
		}
		_ = t.Append([]string{r.Name, r.URI, "yes", f.Type, strconv.Itoa(f.CPUs), strconv.Itoa(f.MemoryMiB),
			strings.Join(f.VirtTypes, " "), strings.Join(f.PoolLabels(inv.Hosts[i]), " "), img})
	}
	if err := t.Render(); err != nil {
		return err
	}
	switch {
	case pl == nil:
	case len(rep.Problems) == 0:
		fmt.Fprintf(w, "plan %s fits: %d hosts × %d disks, %d vCPUs and %d MiB per VM\n", pl.ID, pl.Cluster.Hosts,
			pl.Cluster.DisksPerHost, pl.Cluster.VCPUsPerVM, memoryMiBPerVM(pl.Cluster.MemoryMiBPerVM, inv))
	default:
		fmt.Fprintf(w, "plan %s does not fit:\n", pl.ID)
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	return nil
}

func memoryMiBPerVM(planned int, inv *xenlibvirt.Inventory) int {
	if inv.VMMemoryMiB > 0 {
		return inv.VMMemoryMiB
	}
	return planned
}
