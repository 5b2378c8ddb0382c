package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

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
			"or the plan does not fit.",
		Flags:  []cli.Flag{inventoryFlag, &cli.StringFlag{Name: "plan", Usage: "plan document `FILE` to check against the hosts"}, formatFlag},
		Action: hostsCheckAction,
	}},
}

// hostReport is one row of hosts check.
type hostReport struct {
	Name      string                `json:"name"`
	URI       string                `json:"uri"`
	Reachable bool                  `json:"reachable"`
	Error     string                `json:"error,omitempty"`
	Facts     *xenlibvirt.HostFacts `json:"facts,omitempty"`
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
	var rows []hostReport
	var facts []xenlibvirt.HostFacts
	unreachable := 0
	for _, h := range inv.Hosts {
		r := hostReport{Name: h.Name, URI: h.URI}
		hv, err := connector.Connect(h)
		if err == nil {
			var f xenlibvirt.HostFacts
			f, err = xenlibvirt.Gather(hv, h, inv)
			_ = hv.Close()
			if err == nil {
				r.Reachable, r.Facts = true, &f
				facts = append(facts, f)
			}
		}
		if err != nil {
			r.Error = err.Error()
			unreachable++
			facts = append(facts, xenlibvirt.HostFacts{})
		}
		rows = append(rows, r)
	}
	var problems []string
	if pl != nil {
		// Facts of an unreachable host are empty; say so instead of
		// reporting it short of everything.
		n := min(pl.Cluster.Hosts, len(inv.Hosts))
		ok := true
		for i := 0; i < n; i++ {
			if !rows[i].Reachable {
				problems = append(problems, fmt.Sprintf("host %s: unreachable", rows[i].Name))
				ok = false
			}
		}
		if ok {
			problems = xenlibvirt.Check(pl, inv, facts[:n])
		}
	}
	w := c.App.Writer
	if format == "json" {
		doc := struct {
			Hosts    []hostReport `json:"hosts"`
			Plan     string       `json:"plan,omitempty"`
			Fits     *bool        `json:"fits,omitempty"`
			Problems []string     `json:"problems,omitempty"`
		}{Hosts: rows, Problems: problems}
		if pl != nil {
			fits := len(problems) == 0
			doc.Plan, doc.Fits = pl.ID, &fits
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	} else {
		t := newTable(w, "HOST", "URI", "REACHABLE", "DRIVER", "CPUS", "MEMORY MIB", "DOMAIN TYPES", "DISK POOLS", "IMAGE")
		for i, r := range rows {
			if !r.Reachable {
				_ = t.Append([]string{r.Name, r.URI, "no: " + r.Error, "", "", "", "", "", ""})
				continue
			}
			f := r.Facts
			var pools []string
			for d, p := range f.Pools {
				if p.Name == "" {
					pools = append(pools, inv.Hosts[i].Disks[d]+" (missing)")
				} else {
					pools = append(pools, p.Name)
				}
			}
			img := "present"
			if len(f.Missing) > 0 {
				img = "missing " + strings.Join(f.Missing, ", ")
			}
			_ = t.Append([]string{r.Name, r.URI, "yes", f.Type, strconv.Itoa(f.CPUs), strconv.Itoa(f.MemoryMiB),
				strings.Join(f.VirtTypes, " "), strings.Join(pools, " "), img})
		}
		if err := t.Render(); err != nil {
			return err
		}
		if pl != nil {
			if len(problems) == 0 {
				fmt.Fprintf(w, "plan %s fits: %d hosts × %d disks, %d vCPUs and %d MiB per VM\n", pl.ID, pl.Cluster.Hosts,
					pl.Cluster.DisksPerHost, pl.Cluster.VCPUsPerVM, memoryMiBPerVM(pl.Cluster.MemoryMiBPerVM, inv))
			} else {
				fmt.Fprintf(w, "plan %s does not fit:\n", pl.ID)
				for _, p := range problems {
					fmt.Fprintf(w, "  %s\n", p)
				}
			}
		}
	}
	switch {
	case len(problems) > 0:
		return cli.Exit(fmt.Sprintf("packer: hosts check: plan %s does not fit (%d problems)", pl.ID, len(problems)), exitFailure)
	case unreachable > 0:
		return cli.Exit(fmt.Sprintf("packer: hosts check: %d of %d hosts unreachable", unreachable, len(rows)), exitFailure)
	}
	return nil
}

func memoryMiBPerVM(planned int, inv *xenlibvirt.Inventory) int {
	if inv.VMMemoryMiB > 0 {
		return inv.VMMemoryMiB
	}
	return planned
}
