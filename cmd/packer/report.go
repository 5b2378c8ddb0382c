package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
)

var reportCommand = &cli.Command{
	Name:  "report",
	Usage: "write a one-file HTML report of a plan, with its simulation and model fits",
	Description: "Writes one self-contained HTML file (inline SVG and CSS; nothing is fetched) with the\n" +
		"plan's key numbers, its Gantt chart and phase tables, and, when given, the simulation\n" +
		"comparison (packer simulate --format json) and the model fits (a profile file).",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "plan", Required: true, Usage: "plan document (`FILE`, from packer plan --output)"},
		&cli.StringFlag{Name: "simulation", Usage: "simulation results (`FILE`, from packer simulate --format json)"},
		&cli.StringFlag{Name: "profile", Usage: "profile or workload file with observations (`FILE`, from packer profile or packer fit)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "write the HTML report to `FILE`"},
	},
	Action: func(c *cli.Context) error {
		if c.NArg() > 0 {
			return badUsage("report takes no arguments, got %q", c.Args().First())
		}
		pl, err := plan.ReadFile(c.String("plan"))
		if err != nil {
			return badInput(err)
		}
		in := chart.ReportInput{Plan: pl}
		if f := c.String("simulation"); f != "" {
			if in.Simulation, err = readSimulation(f); err != nil {
				return badInput(err)
			}
		}
		if f := c.String("profile"); f != "" {
			var wrong *model.WrongFileError
			if in.Profile, err = model.ReadWorkloadFile(f, c.App.Reader); errors.As(err, &wrong) {
				return badInput(fmt.Errorf("--profile %s is %s; --profile wants a profile or workload file with observations (from packer profile or packer fit)", f, wrong.Got))
			} else if err != nil {
				return badInput(err)
			}
		}
		html, err := chart.Report(in)
		if err != nil {
			return err
		}
		return writeOutput(c.String("output"), html)
	},
}

// maxSimulationBytes is the largest simulation results file report reads:
// 256 MiB, as a workload file (a result per job per policy).
const maxSimulationBytes = 256 << 20

// readSimulation reads simulation results: the JSON packer simulate writes, an
// object whose "results" (or "policies") field holds one result per policy, or
// a bare array of results. More than maxSimulationBytes is refused unread.
func readSimulation(path string) ([]*sim.Result, error) {
	data, err := model.ReadFileLimit(path, maxSimulationBytes, "a simulation results file")
	if err != nil {
		return nil, err
	}
	data = bytes.TrimSpace(model.TrimBOM(data))
	if err := model.WrongFile(data, model.FileSimResults); err != nil {
		return nil, &model.InputError{File: path, Err: err}
	}
	var rs []*sim.Result
	if len(data) > 0 && data[0] == '[' {
		err = json.Unmarshal(data, &rs)
	} else {
		var doc struct {
			Results  []*sim.Result `json:"results"`
			Policies []*sim.Result `json:"policies"`
		}
		err = json.Unmarshal(data, &doc)
		rs = append(doc.Results, doc.Policies...)
	}
	if err != nil {
		return nil, &model.InputError{File: path, Err: fmt.Errorf("not simulation results: %w", err)}
	}
	if len(rs) == 0 {
		return nil, &model.InputError{File: path, Err: fmt.Errorf("no simulation results (expected packer simulate --format json output)")}
	}
	for i, r := range rs {
		if r == nil || r.Policy == "" {
			return nil, &model.InputError{File: path, Err: fmt.Errorf("results[%d]: no policy name", i)}
		}
	}
	return rs, nil
}
