package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/optimize"
)

var planCommand = &cli.Command{
	Name:  "plan",
	Usage: "plan a workload onto the cluster: phases, VM counts, roles, hosts and disks",
	Description: "Plans the workload (default: the built-in W1) onto P hosts with k disks each and prints\n" +
		"each phase's jobs and placement, the makespan, the sequential makespan and the saving.\n" +
		"Algorithms: pair (seed 003's pair scheduler, exact pairing) and sequential (every job\n" +
		"alone on all N VMs). --output writes the plan document (JSON) for apply and simulate.",
	Flags: append([]cli.Flag{
		workloadFlag,
		&cli.StringFlag{Name: "algorithm", Aliases: []string{"a"}, Value: "pair", Usage: "pair or sequential"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the plan document (JSON) to `FILE`"},
		formatFlag,
	}, clusterFlags...),
	Action: planAction,
}

func planAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("plan takes no arguments, got %q (did you mean --workload %s?)", c.Args().First(), c.Args().First())
	}
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	w, err := loadWorkload(c)
	if err != nil {
		return err
	}
	cl, err := clusterFromFlags(c)
	if err != nil {
		return err
	}
	p, err := optimize.NewProblem(w, cl)
	if err != nil {
		return badInput(err)
	}
	var s optimize.Schedule
	var notes []string
	algo := c.String("algorithm")
	switch algo {
	case "pair":
		res, err := optimize.PairSchedule(p)
		if err != nil {
			return err
		}
		s = res.Schedule
		if res.Exact {
			notes = append(notes, fmt.Sprintf("pairing exact: the best of all pairings of the %d jobs (dynamic programming over subsets)", len(p.Jobs)))
		} else {
			notes = append(notes, fmt.Sprintf("pairing heuristic: %d jobs exceed the exact limit of %d; greedy matching improved by pair swaps", len(p.Jobs), optimize.MaxExactPairJobs))
		}
	case "sequential":
		s = optimize.Sequential(p)
	default:
		return badUsage("--algorithm: unknown algorithm %q (want pair or sequential)", algo)
	}
	plan, err := optimize.NewPlan(p, s, w.Name, algo)
	if err != nil {
		return err
	}
	plan.Notes = notes
	doc, err := plan.MarshalIndent()
	if err != nil {
		return err
	}
	if out := c.String("output"); out != "" {
		if err := writeOutput(out, doc); err != nil {
			return err
		}
	}
	if format == "json" {
		_, err = c.App.Writer.Write(doc)
		return err
	}
	return printPlan(c.App.Writer, plan)
}

// printPlan renders a plan for people: a header line, one job table and one
// placement table per phase, and the totals.
func printPlan(w io.Writer, pl *optimize.Plan) error {
	cl := pl.Cluster
	fmt.Fprintf(w, "Plan %s: workload %s (%d jobs), algorithm %s\n", pl.ID, pl.Workload, len(pl.Jobs), pl.Algorithm)
	fmt.Fprintf(w, "Cluster: %d hosts × %d disks = %d primary VMs, up to %d extra VMs (r = %d), alpha = %g, %d vCPUs and %d MiB per VM\n",
		cl.Hosts, cl.DisksPerHost, cl.PrimaryVMs, cl.MaxExtraVMs, cl.ExtraRatio, cl.Alpha, cl.VCPUsPerVM, cl.MemoryMiBPerVM)
	classes := map[string]string{}
	for _, j := range pl.Jobs {
		classes[j.Name] = j.Class()
	}
	extrapolated := false
	for _, ph := range pl.Phases {
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
	fmt.Fprintln(w)
	if extrapolated {
		fmt.Fprintln(w, "* VM count outside the job's measured range: the runtime is an extrapolation of its model.")
	}
	for _, n := range pl.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	fmt.Fprintf(w, "Makespan:            %s\n", seconds(pl.Makespan))
	fmt.Fprintf(w, "Sequential makespan: %s (every job alone on all %d VMs)\n", seconds(pl.SequentialMakespan), cl.PrimaryVMs)
	fmt.Fprintf(w, "Saving:              %.1f %%\n", pl.SavingPercent)
	fmt.Fprintf(w, "Mean job completion: %s\n", seconds(pl.MeanCompletion))
	return nil
}

// newTable starts a table with the house style: headers as given (no upper
// casing, which would turn "VMs" into "V MS"), left-aligned.
func newTable(w io.Writer, header ...string) *tablewriter.Table {
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft))
	h := make([]any, len(header))
	for i, s := range header {
		h[i] = s
	}
	t.Header(h...)
	return t
}

// seconds renders a duration in seconds with one decimal and, past a minute,
// in minutes and seconds too.
func seconds(s float64) string {
	if s < 60 {
		return fmt.Sprintf("%.1f s", s)
	}
	m := int(s) / 60
	return fmt.Sprintf("%.1f s (%dm%02ds)", s, m, int(s)-60*m)
}
