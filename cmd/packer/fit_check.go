package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/profile"
)

// checkFit reads --check's runs and predicts them, before anything is
// written: a bad check file leaves no workload behind.
func checkFit(c *cli.Context, path string, w *model.Workload) ([]profile.Prediction, error) {
	f, err := openInput("check", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ps, unfitted, err := profile.CheckPredictions(w, []profile.ObservationFile{{R: f, File: path}})
	if err != nil {
		return nil, badInput(err)
	}
	if n := len(unfitted); n > 0 {
		names := strings.Join(unfitted[:min(n, 5)], ", ")
		if n > 5 {
			names += ", …"
		}
		fmt.Fprintf(c.App.ErrWriter, "packer: note: --check: %d jobs of %s were not fitted, so not predicted: %s\n", n, path, names)
	}
	return ps, nil
}

// printCheck shows, per node count held out, how far the fitted models'
// predictions were from the runs measured there.
func printCheck(w io.Writer, path string, ps []profile.Prediction) error {
	fmt.Fprintf(w, "\nPredictions checked against %s, at node counts each job was not fitted on:\n", path)
	if len(ps) == 0 {
		fmt.Fprintln(w, "  none: the file has no run of a fitted job at a node count it was not fitted on")
		return nil
	}
	beyond := map[int]bool{}
	for _, p := range ps {
		beyond[p.Nodes] = beyond[p.Nodes] || p.Beyond
	}
	t := newTable(w, "nodes", "jobs", "median error", "90th percentile", "worst", "worst job")
	for _, s := range profile.SummarisePredictions(ps) {
		nodes := strconv.Itoa(s.Nodes)
		if beyond[s.Nodes] {
			nodes += " *"
		}
		t.Append([]string{nodes, strconv.Itoa(s.Jobs), fmt.Sprintf("%.1f %%", 100*s.Median), fmt.Sprintf("%.1f %%", 100*s.P90),
			fmt.Sprintf("%.1f %%", 100*s.Worst), s.WorstJob})
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "Error: |predicted − median measured| ÷ median measured; * beyond the range some job was fitted on.")
	return nil
}
