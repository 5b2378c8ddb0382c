package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/plan"
)

// maxPlacementRows is the most host rows printPlan prints in placement
// tables: past it (5,000 jobs on 200 hosts have 500,000, 18 s of CPU to
// render) it prints the job tables and says where the placement is; past
// as many jobs, no phase tables at all (100,000 jobs: 30 s of CPU).
const maxPlacementRows = 20_000

// printPlan prints a plan for people: what it is, its summary (makespan,
// saving, bound, the deadline if given) and notes first, where a reader
// looks, then unless summaryOnly each phase's jobs and placement.
func printPlan(w io.Writer, pl *plan.Plan, summaryOnly bool, deadline float64) error {
	cl := pl.Cluster
	fmt.Fprintf(w, "Plan %s: workload %s (%d jobs), algorithm %s\n", pl.ID, pl.Workload, len(pl.Jobs), pl.Algorithm)
	fmt.Fprintf(w, "Cluster: %d hosts × %d disks = %d primary VMs, up to %d extra VMs (r = %d), alpha = %g, %d vCPUs and %d MiB per VM\n",
		cl.Hosts, cl.DisksPerHost, cl.PrimaryVMs, cl.MaxExtraVMs, cl.ExtraRatio, cl.Alpha, cl.VCPUsPerVM, cl.MemoryMiBPerVM)
	if pl.Interrupted {
		fmt.Fprintln(w, "Interrupted:         yes, by a signal: the best plan found so far, and the best bound proven so far")
	}
	fmt.Fprintf(w, "Makespan:            %s\n", seconds(pl.Makespan))
	fmt.Fprintf(w, "Sequential makespan: %s (every job alone on all %d VMs)\n", seconds(pl.SequentialMakespan), cl.PrimaryVMs)
	fmt.Fprintf(w, "Saving:              %.1f %%\n", pl.SavingPercent)
	fmt.Fprintf(w, "Mean job completion: %s\n", seconds(pl.MeanCompletion))
	switch {
	case pl.Optimum != nil:
		fmt.Fprintf(w, "Optimum:             %s (gap %.2f %%)\n", seconds(*pl.Optimum), *pl.GapPercent)
	case pl.LowerBound != nil:
		fmt.Fprintf(w, "Lower bound:         %s (gap at most %.2f %%)\n", seconds(*pl.LowerBound), *pl.GapPercent)
	}
	printDeadline(w, pl.Makespan, deadline)
	for _, n := range pl.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	if summaryOnly {
		return nil
	}
	return printPhases(w, pl)
}

// printPhases prints each phase's jobs and, unless there are too many rows,
// its placement: host by host, the VM on each disk and the extra ones.
func printPhases(w io.Writer, pl *plan.Plan) error {
	cl := pl.Cluster
	classes := map[string]string{}
	for _, j := range pl.Jobs {
		classes[j.Name] = j.Class()
	}
	extrapolated := false
	rows := 0
	for _, ph := range pl.Phases {
		rows += len(ph.Hosts)
	}
	placed := rows <= maxPlacementRows
	phases := pl.Phases
	if len(pl.Jobs) > maxPlacementRows {
		phases = nil // 100,000 jobs: 50,000 tables
	}
	for _, ph := range phases {
		fmt.Fprintf(w, "\nPhase %d: starts at %s, lasts %s\n", ph.Index+1, seconds(ph.Start), seconds(ph.Duration))
		t := newTable(w, "job", "class", "VMs", "role", "runtime")
		for _, j := range ph.Jobs {
			vms := strconv.Itoa(j.VMs)
			if j.Extrapolated {
				vms += " *"
				extrapolated = true
			}
			t.Append([]string{j.Name, classes[j.Name], vms, string(j.Role), seconds(j.Runtime)})
		}
		if err := t.Render(); err != nil {
			return err
		}
		if !placed {
			continue
		}
		header := []string{"host"}
		for d := range cl.DisksPerHost {
			header = append(header, fmt.Sprintf("disk %d", d))
		}
		header = append(header, "extra")
		t = newTable(w, header...)
		for _, h := range ph.Hosts {
			row := make([]string, cl.DisksPerHost+2)
			row[0] = strconv.Itoa(h.Host)
			var extras []string
			for _, v := range h.VMs {
				name := fmt.Sprintf("%s[%d]", v.Job, v.Index)
				if v.Disk == nil {
					extras = append(extras, name)
				} else {
					row[1+*v.Disk] = name
				}
			}
			row[len(row)-1] = strings.Join(extras, " ")
			t.Append(row)
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if phases == nil && len(pl.Phases) > 0 {
		fmt.Fprintf(w, "Phases: %d with %d jobs, too many to list (more than %d rows); the plan document (--output, --format json) holds every phase.\n",
			len(pl.Phases), len(pl.Jobs), maxPlacementRows)
	} else if !placed {
		fmt.Fprintf(w, "Placement: %d host rows over %d phases, too many to print (more than %d); the plan document (--output, --format json) holds every VM's host and disk.\n",
			rows, len(pl.Phases), maxPlacementRows)
	}
	if extrapolated {
		fmt.Fprintln(w, "* VM count outside the job's measured range: the runtime is an extrapolation of its model (the notes say by how far).")
	}
	return nil
}
