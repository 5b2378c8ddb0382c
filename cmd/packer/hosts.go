package main

import (
	"fmt"
	"io"
	"slices"
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
			"within --connect-timeout counts as unreachable. --canary also boots a tiny guest on every\n" +
			"reachable host (the inventory's kernel and initrd with packer.run=true, as its hypervisor)\n" +
			"and exits 1 unless each powers off within --canary-timeout: a /dev/kvm that exists but\n" +
			"hangs guests (nested virtualisation) shows up here, not minutes into a phase.",
		Flags: []cli.Flag{inventoryFlag, &cli.StringFlag{Name: "plan", Usage: "plan document `FILE` to check against the hosts"}, formatFlag,
			connectTimeoutFlag,
			&cli.BoolFlag{Name: "canary", Usage: "also boot a canary guest on every reachable host"},
			&cli.DurationFlag{Name: "canary-timeout", Value: xenlibvirt.DefaultCanaryTimeout, Usage: "a canary not powered off after `D` has failed"}},
		Action: hostsCheckAction,
	}},
}

func hostsCheckAction(c *cli.Context) error {
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if c.Bool("canary") && c.Duration("canary-timeout") <= 0 {
		return badUsage("--canary-timeout: %v, want a positive duration", c.Duration("canary-timeout"))
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
	if c.Bool("canary") {
		rep.RunCanaries(c.Context, inv, conn, c.Duration("canary-timeout"))
	}
	w := c.App.Writer
	if format == "json" {
		if err := printJSON(w, rep); err != nil {
			return err
		}
	} else if err := printHostsReport(w, rep, pl, inv); err != nil {
		return err
	}
	if len(rep.Problems) > 0 {
		return cli.Exit(fmt.Sprintf("packer: hosts check: plan %s does not fit (%d problems)", pl.ID, len(rep.Problems)), exitFailure)
	}
	// Every failure, in one line: unreachable hosts first, then canaries.
	var failed []string
	if u := rep.Unreachable(); len(u) > 0 {
		failed = append(failed, fmt.Sprintf("%d of %d hosts unreachable: %s", len(u), len(rep.Hosts), strings.Join(u, "; ")))
	}
	if f := rep.FailedCanaries(); len(f) > 0 {
		failed = append(failed, fmt.Sprintf("the canary failed on %d of %d hosts: %s", len(f), len(rep.Hosts), strings.Join(f, "; ")))
	}
	if len(failed) > 0 {
		return cli.Exit("packer: hosts check: "+strings.Join(failed, "; and "), exitFailure)
	}
	return nil
}

// printHostsReport writes hosts check's table and, with a plan, whether it fits.
func printHostsReport(w io.Writer, rep *xenlibvirt.HostsReport, pl *plan.Plan, inv *xenlibvirt.Inventory) error {
	header := []string{"HOST", "URI", "REACHABLE", "DRIVER", "CPUS", "MEMORY MIB", "DOMAIN TYPES", "DISK POOLS", "IMAGE", "NETWORK"}
	canary := slices.ContainsFunc(rep.Hosts, func(h xenlibvirt.HostReport) bool { return h.Canary != nil })
	if canary {
		header = append(header, "CANARY")
	}
	t := newTable(w, header...)
	for i, r := range rep.Hosts {
		if !r.Reachable {
			row := make([]string, len(header))
			row[0], row[1], row[2] = r.Name, r.URI, "no: "+r.Error
			_ = t.Append(row)
			continue
		}
		f := r.Facts
		img := "present"
		if len(f.Missing) > 0 {
			img = "missing " + strings.Join(f.Missing, ", ")
		}
		row := []string{r.Name, r.URI, "yes", f.Type, strconv.Itoa(f.CPUs), strconv.Itoa(f.MemoryMiB),
			strings.Join(f.VirtTypes, " "), strings.Join(f.PoolLabels(inv.Hosts[i]), " "), img, networkLabel(inv.Hosts[i], f)}
		switch {
		case r.Canary == nil:
		case r.Canary.OK:
			row = append(row, fmt.Sprintf("powered off in %.1f s", r.Canary.Seconds))
		default:
			row = append(row, "failed: "+r.Canary.Error)
		}
		_ = t.Append(row)
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

// networkLabel names what a host's VMs join: its libvirt network or bridge,
// and "(bad)" with why when hosts check found it missing or down.
func networkLabel(h xenlibvirt.InventoryHost, f *xenlibvirt.HostFacts) string {
	name := h.Network
	if h.Bridge != "" {
		name = "bridge " + h.Bridge
	}
	if f.NetErr != "" {
		return name + " (missing or down)"
	}
	return name
}
