package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/workloads"
)

var compareCommand = &cli.Command{
	Name:  "compare",
	Usage: "plan several workloads with several algorithms and compare makespans",
	Description: "Plans each workload (default: the six built-ins) with each algorithm on the same cluster\n" +
		"and prints one row per workload: makespans, and each algorithm's saving against the first.\n" +
		"--chart draws the comparison as grouped bars. An algorithm a workload is too large for (exact\n" +
		"takes at most " + strconv.Itoa(optimize.MaxExactJobs) + " jobs) is skipped for it, said on stderr before any planning.",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "workloads", Aliases: []string{"w", "workload"}, Value: strings.Join(workloads.Names(), ","), Usage: "comma-separated built-in names or workload files (- for stdin)"},
		&cli.StringFlag{Name: "algorithms", Value: "sequential,pair,pso,exact", Usage: "comma-separated algorithms (the first is the baseline)"},
		&cli.IntFlag{Name: "particles", Value: 1500, Usage: "pso: swarm size"},
		&cli.IntFlag{Name: "iterations", Value: 200, Usage: "pso: iterations"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "pso: random seed"},
		timeLimitFlag,
		chartFlag,
		formatFlag,
	}, clusterFlags...),
	Action: compareAction,
}

// comparison is one workload × algorithm result, as JSON.
type comparison struct {
	Workload       string   `json:"workload"`
	Algorithm      string   `json:"algorithm"`
	Makespan       float64  `json:"makespan"`
	SavingPercent  float64  `json:"saving_percent"` // against the sequential makespan
	MeanCompletion float64  `json:"mean_completion"`
	Phases         int      `json:"phases"`
	GapPercent     *float64 `json:"gap_percent,omitempty"`
	Skipped        string   `json:"skipped,omitempty"` // why the algorithm did not run
}

func compareAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("compare takes no arguments, got %q", c.Args().First())
	}
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if err := checkChart(c); err != nil {
		return err
	}
	if _, err := planSettings(c, 0); err != nil {
		return err // before the first plan
	}
	algos := splitList(c.String("algorithms"))
	for _, a := range algos {
		if _, err := optimize.ParseMethod(a); err != nil {
			return badUsage("--algorithms: %v", err)
		}
	}
	names := splitList(c.String("workloads"))
	if len(algos) == 0 || len(names) == 0 {
		return badUsage("--workloads and --algorithms need at least one name each")
	}
	cl, err := clusterFromFlags(c)
	if err != nil {
		return err
	}
	problems, skip, err := compareProblems(c, names, algos, cl)
	if err != nil {
		return err
	}
	if len(skip) == len(algos)*len(problems) {
		return badUsage("--algorithms %s: none of them can take the workloads given", strings.Join(algos, ","))
	}
	var out []comparison
	var rows []chart.AlgorithmRow
	for i, p := range problems {
		row := chart.AlgorithmRow{Workload: names[i]}
		for _, a := range algos {
			var pl *plan.Plan
			if err := skip[cell{i, a}]; err != nil {
				out, pl = append(out, comparison{Workload: names[i], Algorithm: a, Skipped: err.Error()}), &plan.Plan{}
			} else if pl, err = makePlan(c, p, names[i], a); err != nil {
				return err
			} else {
				out = append(out, comparison{Workload: names[i], Algorithm: a, Makespan: pl.Makespan, SavingPercent: pl.SavingPercent,
					MeanCompletion: pl.MeanCompletion, Phases: len(pl.Phases), GapPercent: pl.GapPercent})
			}
			row.Makespan = append(row.Makespan, pl.Makespan) // 0 if skipped: no bar, "skipped" in the table
		}
		rows = append(rows, row)
	}
	if c.String("chart") != "" {
		g, err := chart.Algorithms(algos, rows)
		if err != nil {
			return err
		}
		if err := writeChart(c, g); err != nil {
			return err
		}
	}
	if format == "json" {
		return printJSON(c.App.Writer, out)
	}
	header := []string{"workload"}
	for _, a := range algos {
		header = append(header, a+" (s)")
	}
	for _, a := range algos[1:] {
		header = append(header, a+" saving")
	}
	t := newTable(c.App.Writer, header...)
	for _, r := range rows {
		line := []string{r.Workload}
		for _, m := range r.Makespan {
			line = append(line, skippedOr(m, fmt.Sprintf("%.1f", m)))
		}
		for _, m := range r.Makespan[1:] {
			saving := skippedOr(m, fmt.Sprintf("%.1f %%", 100*(1-m/r.Makespan[0])))
			if r.Makespan[0] == 0 {
				saving = "n/a (" + algos[0] + " skipped)"
			}
			line = append(line, saving)
		}
		t.Append(line)
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "Cluster: %d hosts × %d disks, r = %d, alpha = %g. Savings against %s.\n", cl.Hosts, cl.DisksPerHost, cl.ExtraRatio, cl.Alpha, algos[0])
	return nil
}

// cell is a workload (by index) and an algorithm of a comparison.
type cell struct {
	workload  int
	algorithm string
}

// compareProblems loads every workload (names[i] becomes its name) and finds
// what a method cannot take before planning anything, rather than fail
// after minutes of work; each skip is said on stderr.
func compareProblems(c *cli.Context, names, algos []string, cl model.Cluster) ([]*model.Problem, map[cell]error, error) {
	var problems []*model.Problem
	skip := map[cell]error{}
	for i, name := range names {
		w, err := loadWorkloadNamed(c, name)
		if err != nil {
			return nil, nil, err
		}
		p, err := model.NewProblem(w, cl)
		if err != nil {
			return nil, nil, badInput(fmt.Errorf("%s: %w", name, err))
		}
		problems, names[i] = append(problems, p), w.Name
		for _, a := range algos {
			if err := optimize.Accepts(optimize.Method(a), p); err != nil {
				skip[cell{i, a}] = err
				fmt.Fprintf(c.App.ErrWriter, "packer: compare: %s skipped for %s: %v\n", a, w.Name, err)
			}
		}
	}
	return problems, skip, nil
}

// skippedOr is s, or "skipped" for a makespan of 0: an algorithm that could
// not take the workload.
func skippedOr(makespan float64, s string) string {
	if makespan == 0 {
		return "skipped"
	}
	return s
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
