package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/memlimit"
	"github.com/packer-sched/packer/sweep"
)

var sweepShowCommand = &cli.Command{
	Name:      "show",
	Usage:     "a sweep's points and the estimated time and memory of each shard",
	ArgsUsage: "FILE",
	Description: "Checks the sweep file and its workloads, then prints, for --shards N, each shard's points and\n" +
		"its estimated time on one core and peak memory (the figures the emitters size tasks by), and the\n" +
		"total; with --points, every point: index, id, coordinates and shard.",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "shards", Value: 1, Usage: "cut the sweep into `N` shards"},
		&cli.BoolFlag{Name: "points", Usage: "list the points instead"},
	},
	Action: sweepShowAction,
}

func sweepShowAction(c *cli.Context) error {
	s, n, err := sweepAndShards(c)
	if err != nil {
		return err
	}
	w := c.App.Writer
	if c.Bool("points") {
		t := newTable(w, "index", "id", "workload", map[string]string{sweep.Simulate: "nodes", sweep.Plan: "hosts"}[s.Run], "policy", "seed", "options", "shard")
		for _, p := range s.Points() {
			t.Append([]string{strconv.Itoa(p.Index), p.ID, p.Workload, strconv.Itoa(p.Size), p.Policy, strconv.FormatUint(p.Seed, 10), p.Options.Name, strconv.Itoa(p.Index % n)})
		}
		return t.Render()
	}
	fmt.Fprintf(w, "Sweep %s (%s, digest %s): %d points in %d shards\n", s.Name, s.Run, s.Digest, len(s.Points()), n)
	t := newTable(w, "shard", "points", "time (one core)", "memory")
	var total float64
	for i := range n {
		e := s.Estimate(sweep.Shard{Index: i, Count: n})
		total += e.Seconds
		t.Append([]string{strconv.Itoa(i), strconv.Itoa(e.Points), seconds(e.Seconds), memlimit.Human(e.Bytes)})
	}
	if err := t.Render(); err != nil {
		return err
	}
	z := s.Size(n)
	fmt.Fprintf(w, "Total: %.2f CPU-hours; each task asks for %d min and %d MiB (the costliest shard's, rounded up)\n", total/3600, z.Minutes, z.MiB)
	return nil
}

// sweepAndShards reads the sweep file argument and --shards.
func sweepAndShards(c *cli.Context) (*sweep.Sweep, int, error) {
	if c.NArg() != 1 {
		return nil, 0, badUsage("sweep %s: want one sweep file, got %d arguments", c.Command.Name, c.NArg())
	}
	n := c.Int("shards")
	if n < 1 || n > sweep.MaxPoints {
		return nil, 0, badUsage("--shards: want 1 to %d, got %d", sweep.MaxPoints, n)
	}
	s, err := sweep.Load(c.Args().First(), sweep.All)
	if err != nil {
		return nil, 0, badInput(err)
	}
	if n > len(s.Points()) {
		return nil, 0, badUsage("--shards %d: more shards than the sweep's %d points", n, len(s.Points()))
	}
	return s, n, nil
}

var sweepEmitCommand = &cli.Command{
	Name:        "emit",
	Usage:       "write the batch job that runs a sweep's shards: slurm or k8s",
	Subcommands: []*cli.Command{sweepEmitSlurm, sweepEmitK8s},
}

// emitFlags are both emitters'.
var emitFlags = []cli.Flag{
	&cli.IntFlag{Name: "shards", Required: true, Usage: "`N` tasks, shard i in task i"},
	&cli.IntFlag{Name: "parallel", Usage: "run at most `K` tasks at once (default: all)"},
	&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (default: standard output)"},
}

var sweepEmitSlurm = &cli.Command{
	Name:      "slurm",
	Usage:     "an sbatch --array script: task i runs shard i into a shared results directory",
	ArgsUsage: "FILE",
	Description: "Writes a batch script for sbatch: an array of --shards tasks (at most --parallel at once, %K),\n" +
		"each with --time and --mem from the sweep's estimate of its costliest shard (packer sweep show).\n" +
		"Paths are made absolute: the sweep file, its workloads, --out and packer must be on a filesystem\n" +
		"every node shares; --out is made now, since Slurm writes the tasks' logs there. Then\n" +
		"`sbatch SCRIPT`, and `packer sweep merge DIR` once the array is done.",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "out", Required: true, Usage: "the results `DIR` on the shared filesystem"},
		&cli.StringFlag{Name: "packer", Usage: "the packer binary the tasks run (default: this one)"},
		&cli.StringFlag{Name: "partition", Usage: "sbatch --partition"},
		&cli.StringFlag{Name: "account", Usage: "sbatch --account"},
	}, emitFlags...),
	Action: func(c *cli.Context) error {
		s, b, err := batchFromFlags(c)
		if err != nil {
			return err
		}
		if b.Packer == "" {
			if b.Packer, err = os.Executable(); err != nil {
				return fmt.Errorf("finding this packer binary (give --packer): %w", err)
			}
		}
		abs := func(p string) string { a, _ := filepath.Abs(p); return a } // Abs fails only without a working directory
		b.SweepFile, b.Dir, b.Packer = abs(b.SweepFile), abs(b.Dir), abs(b.Packer)
		b.Partition, b.Account = c.String("partition"), c.String("account")
		if err := os.MkdirAll(b.Dir, 0o755); err != nil { // Slurm writes the tasks' logs there, and makes no directory
			return badInput(fmt.Errorf("--out: %w", err))
		}
		return writeEmitted(c, s.Slurm(b), "")
	},
}

var sweepEmitK8s = &cli.Command{
	Name:      "k8s",
	Usage:     "a Kubernetes Indexed Job (JSON for kubectl apply): index i runs shard i",
	ArgsUsage: "FILE",
	Description: "Writes a batch/v1 Job with completionMode Indexed, --shards completions, --parallel pods at\n" +
		"once and --retries per index (backoffLimitPerIndex), its memory requested and limited at the\n" +
		"estimate of the costliest shard. The pods mount the volume of --claim at --mount: copy the\n" +
		"sweep file's directory (the file and its workloads) to that volume's root first; the results\n" +
		"go to --out on it. Standard error says how to collect and merge them.",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "image", Required: true, Usage: "the container `IMAGE` with packer in it"},
		&cli.StringFlag{Name: "claim", Required: true, Usage: "the PersistentVolumeClaim (ReadWriteMany) holding the sweep and its results"},
		&cli.StringFlag{Name: "mount", Value: "/sweep", Usage: "where the pods mount the claim"},
		&cli.StringFlag{Name: "out", Value: "results", Usage: "the results `DIR`, relative to the volume's root"},
		&cli.StringFlag{Name: "packer", Value: "packer", Usage: "the packer command in the image"},
		&cli.IntFlag{Name: "retries", Value: 2, Usage: "retries of a failed index (backoffLimitPerIndex)"},
	}, emitFlags...),
	Action: func(c *cli.Context) error {
		s, b, err := batchFromFlags(c)
		if err != nil {
			return err
		}
		if !path.IsAbs(c.String("mount")) || path.IsAbs(b.Dir) || c.Int("retries") < 0 {
			return badUsage("sweep emit k8s: --mount must be absolute, --out relative to it, --retries at least 0")
		}
		b.Image, b.Claim, b.Mount, b.Retries = c.String("image"), c.String("claim"), c.String("mount"), c.Int("retries")
		b.SweepFile = filepath.Base(b.SweepFile)
		note := fmt.Sprintf("packer: then: copy %s and its workloads to the root of volume %s; kubectl apply -f MANIFEST; "+
			"kubectl wait --for=condition=complete job/%s; from a pod mounting %s at %s: %s sweep merge %s",
			filepath.Dir(c.Args().First()), b.Claim, s.K8sName(), b.Claim, b.Mount, b.Packer, path.Join(b.Mount, b.Dir))
		return writeEmitted(c, s.Kubernetes(b), note)
	},
}

// batchFromFlags reads the sweep and the flags both emitters share.
func batchFromFlags(c *cli.Context) (*sweep.Sweep, sweep.Batch, error) {
	if err := checkOutputs(c, "output"); err != nil {
		return nil, sweep.Batch{}, err
	}
	if c.Int("parallel") < 0 {
		return nil, sweep.Batch{}, badUsage("--parallel: want at least 1, or 0 for all, got %d", c.Int("parallel"))
	}
	s, n, err := sweepAndShards(c)
	if err != nil {
		return nil, sweep.Batch{}, err
	}
	return s, sweep.Batch{Shards: n, Parallel: c.Int("parallel"), Packer: c.String("packer"), SweepFile: c.Args().First(), Dir: c.String("out")}, nil
}

// writeEmitted writes the script or manifest, and the note to standard error.
func writeEmitted(c *cli.Context, data []byte, note string) error {
	if out := c.String("output"); out != "" {
		if err := writeOutput(out, data); err != nil {
			return err
		}
	} else if _, err := c.App.Writer.Write(data); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(c.App.ErrWriter, note)
	}
	return nil
}
