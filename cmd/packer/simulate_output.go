package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/sim"
)

// The outputs of packer simulate: the files (--trace, --jobs-csv, --arff,
// --chart), the notes, the ranking (--rank-by) and the table, JSON or CSV.

// writeSimulation writes what the runs computed: the files first, so that
// a failure leaves nothing half-done on stdout, then the notes and the
// comparison in the format.
func writeSimulation(c *cli.Context, format string, base *sim.Workload, set sim.Settings, runs []sim.Outcome, trace *simTrace, opts *sim.PolicyOptions) error {
	if err := trace.commit(); err != nil {
		return err
	}
	if path := c.String("jobs-csv"); path != "" {
		if err := safefile.WriteFile(path, sim.JobsCSV(runs), 0o644); err != nil {
			return err
		}
	}
	if path := c.String("arff"); path != "" {
		if err := safefile.WriteFile(path, sim.ARFF(runs, opts.HybSLevels), 0o644); err != nil {
			return err
		}
	}
	if c.String("chart") != "" {
		if err := simulationChart(c, runs); err != nil {
			return err
		}
	}
	for _, n := range sim.NoteLines(runs) {
		if format != "table" { // the table carries the notes itself
			fmt.Fprintln(c.App.ErrWriter, "packer: note:", n)
		}
	}
	// The idle-cluster note goes to stderr whatever the format (JSON also
	// carries it): it is advice about the command, not a result.
	if idle := sim.IdleNote(base, sim.Results(runs, base)); idle != nil {
		fmt.Fprintln(c.App.ErrWriter, "packer: note:", idle.Note)
	}
	ranking, err := simRanking(c, base, runs)
	if err != nil {
		return err
	}
	out := c.App.Writer
	switch format {
	case "json":
		return sim.WriteJSON(out, base, set.Seed, runs, ranking)
	case "csv":
		if ranking != nil { // stdout is the CSV's
			fmt.Fprintln(c.App.ErrWriter, strings.Join(ranking.Lines(), "\n"))
		}
		_, err := out.Write(sim.SummaryCSV(runs))
		return err
	}
	if err := printSimulation(out, base, set, runs); err != nil {
		return err
	}
	if ranking != nil {
		fmt.Fprintln(out, strings.Join(ranking.Lines(), "\n"))
	}
	return nil
}

// simRanking is --rank-by's ranking of the runs on the workload (sim.Rank;
// plan replays run jobs of their own and are left out, said on stderr), or
// nil without the flag.
func simRanking(c *cli.Context, base *sim.Workload, runs []sim.Outcome) (*sim.Ranking, error) {
	metric := c.String("rank-by")
	if metric == "" {
		return nil, nil
	}
	results := sim.Results(runs, base)
	if len(results) < len(runs) {
		fmt.Fprintf(c.App.ErrWriter, "packer: note: --rank-by ranks the %d policies run on the workload; plan replays run their own jobs and are left out\n", len(results))
	}
	if len(results) == 0 {
		return nil, nil
	}
	rk, err := sim.Rank(base, results, metric)
	if err != nil {
		return nil, badInput(err)
	}
	return rk, nil
}

func printSimulation(out io.Writer, w *sim.Workload, set sim.Settings, runs []sim.Outcome) error {
	cl := w.Cluster
	d := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	fmt.Fprintf(out, "Workload %s: %d jobs, %d tasks; seed %d\n", w.Name, len(w.Jobs), w.Tasks(), set.Seed)
	nodes := d(cl.Nodes, 18)
	racks := "1 rack"
	if r := d(cl.Racks, 1); r > 1 {
		racks = fmt.Sprintf("%d racks", r)
	}
	fmt.Fprintf(out, "Cluster: %d nodes in %s, %d map + %d reduce slots each, replication %d; ",
		nodes, racks, d(cl.MapSlots, 2), d(cl.ReduceSlots, 1), d(cl.Replication, min(3, nodes)))
	if set.Heartbeat > 0 {
		fmt.Fprintf(out, "heartbeats every %g s\n", set.Heartbeat)
	} else {
		fmt.Fprintln(out, "slots offered on every task end")
	}
	t := newTable(out, "policy", "makespan", "response mean", "median", "p95", "slowdown mean", "median", "p95", "V95",
		"node-local", "rack", "remote", "map util", "reduce util")
	secs := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	ratio := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	for _, r := range runs {
		t.Append(sim.SummaryRow(r.Result, secs, ratio, sim.Share))
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range runs {
		if r.Workload != w {
			fmt.Fprintf(out, "%s: replays the plan on %d nodes (its extra VMs included); its jobs are sized for their plan VM counts.\n",
				r.Result.Policy, d(r.Workload.Cluster.Nodes, 18)+len(r.Workload.Cluster.Extras))
		}
	}
	for _, n := range sim.NoteLines(runs) {
		fmt.Fprintln(out, "Note:", n)
	}
	fmt.Fprintln(out, "Times in seconds. Slowdown: response ÷ the job's time alone on the empty cluster, every map node-local; V95 = p95 ÷ median slowdown.")
	return nil
}
