package main

import (
	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/profile"
	"github.com/packer-sched/packer/workloads/traces"
)

// fitRumenFlags are packer fit's flags for real jobs from a Rumen trace, kept
// apart from the measured-runs flags: the runs here are simulated replays of
// the real tasks, not measurements.
var fitRumenFlags = []cli.Flag{
	&cli.StringFlag{Name: "rumen", Usage: "fit the real jobs of a Rumen trace `FILE` (plain or gzipped) instead of --observations"},
	&cli.StringFlag{Name: "nodes", Value: "2,4,6,9,12,18", Usage: "--rumen: node counts to replay each job alone on"},
	&cli.BoolFlag{Name: "keep-failed", Usage: "--rumen: also fit jobs whose outcome is not SUCCESS (their tasks that ran)"},
}

// fitRumen is packer fit --rumen: each real job's own task durations (its
// successful attempts) are replayed alone in the simulator, FIFO on one rack
// of n nodes with the trace's slots per node, for every n of --nodes; the
// makespans are fitted (every model form, one kept as packer fit does) and the job classified from its bytes
// (and CPU counters, where the trace has them) over the replayed runtime, as
// profile.Analyze does for measured runs.
func fitRumen(c *cli.Context, set *profile.Settings, format string) error {
	if c.IsSet("observations") {
		return badUsage("--rumen and --observations are two sources of runs: give one")
	}
	nodes, err := parseNodes(c.String("nodes"))
	if err != nil {
		return err
	}
	path := c.String("rumen")
	in, name, closeIn, err := openTrace(c, path)
	if err != nil {
		return err
	}
	defer closeIn()
	im, err := traces.ReadRumen(in, name, &traces.RumenSettings{KeepFailed: c.Bool("keep-failed")})
	if err != nil {
		return badInput(err)
	}
	if err := traces.CheckReplayNodes(nodes, im.Workload.Cluster); err != nil {
		return badUsage("--nodes: %v", err)
	}
	w, results, err := traces.FitReplays(im, nodes, c.String("name"), set)
	if err != nil {
		return err
	}
	return emitWorkload(c, w, results, format)
}
