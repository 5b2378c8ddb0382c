package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/optimize/solverbench"
)

var benchCommand = &cli.Command{
	Name:  "bench",
	Usage: "measure the phase optimizers: exact vs cbc, the swarm's gaps, how time grows, plans at two limits",
	Description: "Runs, in one process, the solver measurements and prints them as tables:\n" +
		"  1. exact solver vs cbc on the exported LP (W1–W3 on 9 hosts, random 7–9-job workloads on\n" +
		"     2 hosts): both optima, both times, the ratio (cbc skipped if not installed);\n" +
		"  2. the swarm with the given settings (default: the packing paper's 1500 × 200) on W1–W6 and\n" +
		"     on 50 random 8-job workloads (seeds 1–50): gap to the exact optimum, its distribution;\n" +
		"  3. the swarm on W3 and on random 30- and 50-job workloads: time and gap to the lower bound;\n" +
		"  4. how time grows with M (exact and swarm), with particles and with cores (GOMAXPROCS);\n" +
		"  5. column generation (plan, proven bound, gap, time) beside the swarm: M = 20 and 30 (10\n" +
		"     seeds), M = 50, 100, 200 (5 seeds, 9 and 50 hosts), M = 1,000 on 200 hosts (auto);\n" +
		"  6. the exported LP of random-m20-seed1 given to cbc for 120 s: its incumbent and bound\n" +
		"     beside auto's;\n" +
		"  7. auto as packer plan runs it on random-mM-seedS --hosts H (M = 100 and 200 on 9 and 50\n" +
		"     hosts, 1,000 on 200; seeds 1–5) at the default time limit and, where longer, at 60 s:\n" +
		"     median and worst plan ÷ bound, whether 60 s ever gave a longer plan or a lower bound,\n" +
		"     work units and solve times (search and placement); it runs plan's defaults (1500\n" +
		"     particles, seed 1): --particles, --iterations and --seed are for steps 1–6.\n" +
		"The full run is long: on a loaded 2-core machine 53 minutes did not get past step 5's 50-host\n" +
		"table (one swarm at M = 200 takes up to 3 min); --step 7 alone takes about half an hour;\n" +
		"--quick cuts every count (cbc gets 5 s, step 7 uses work limits): a few minutes.",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "particles", Value: 1500, Usage: "swarm size (the packing paper: 1500)"},
		&cli.IntFlag{Name: "iterations", Value: 200, Usage: "swarm iterations (the packing paper: 200)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the swarm's seed"},
		&cli.IntFlag{Name: "random", Value: 50, Usage: "random 8-job workloads for the gap statistics (seeds 1..N)"},
		&cli.BoolFlag{Name: "quick", Usage: "small counts and settings: a smoke test of the command, not the numbers"},
		&cli.IntSliceFlag{Name: "step", Usage: fmt.Sprintf("run only step `N` (1–%d; --step 5,7 or the flag repeated for several)", solverbench.StepCount)},
	},
	Action: benchAction,
}

func benchAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("bench takes no arguments, got %q", c.Args().First())
	}
	set := solverbench.Settings{Particles: c.Int("particles"), Iterations: c.Int("iterations"),
		Seed: c.Uint64("seed"), Random: c.Int("random"), Quick: c.Bool("quick"), Steps: c.IntSlice("step")}
	if set.Particles < 1 || set.Iterations < 1 || set.Random < 1 {
		return badUsage("--particles, --iterations and --random must be at least 1")
	}
	for _, n := range set.Steps {
		if n < 1 || n > solverbench.StepCount {
			return badUsage("--step: no step %d, the steps are 1 to %d", n, solverbench.StepCount)
		}
	}
	w := c.App.Writer
	return solverbench.Run(set, func(b solverbench.Block) error {
		if b.Header == nil {
			_, err := fmt.Fprint(w, b.Text)
			return err
		}
		t := newTable(w, b.Header...)
		for _, r := range b.Rows {
			t.Append(r)
		}
		return t.Render()
	})
}
