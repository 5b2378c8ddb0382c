package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/progress"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads/traces"
)

// workloadsImportCommand turns a real trace into a simulation workload file.
var workloadsImportCommand = &cli.Command{
	Name:      "import",
	Usage:     "turn a real trace (SWIM, Rumen or HybS) into a simulation workload file",
	ArgsUsage: "FILE",
	Description: "Reads FILE (plain or gzipped; - for standard input) and writes a simulation workload (JSON,\n" +
		"for packer simulate) whose \"metadata\" says what was assumed and counted.\n\n" +
		"swim: SWIM's Facebook samples (job, submit s, gap s, input, shuffle, output bytes). No task\n" +
		"  counts or times in the trace: one map per --block-size-mb of input, one reduce per\n" +
		"  --reduce-size-mb of shuffle (or output), task times from --map-mbps, --reduce-mbps and\n" +
		"  --task-seconds.\n" +
		"rumen: Hadoop Rumen job traces: real task durations (successful attempts), real block\n" +
		"  locations on the --topology's hosts and racks, real submit times; failed jobs dropped\n" +
		"  unless --keep-failed; slots per node inferred from the trace unless given.\n" +
		"hybs: the HybS paper's simulator input (jobid tasks mean-seconds wait service-level).\n\n" +
		"--from/--to/--max-jobs take a window (seconds from the trace's first job). A malformed\n" +
		"record stops the import with its line or byte; --skip-bad skips and counts them.\n" +
		"Flags may come before or after FILE.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "input-format", Usage: "trace format: swim, rumen or hybs (required)"},
		&cli.StringFlag{Name: "format", Hidden: true, Usage: "the old name of --input-format (--format is the output format elsewhere)"},
		&cli.StringFlag{Name: "topology", Usage: "rumen: topology `FILE` (hosts by rack)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the workload to `FILE` instead of standard output"},
		&cli.StringFlag{Name: "hybs", Usage: "also write the jobs in the HybS paper's format to `FILE`"},
		&cli.Float64Flag{Name: "service-level", Value: 1, Usage: "--hybs: every job's service level (0–1)"},
		&cli.BoolFlag{Name: "skip-bad", Usage: "skip malformed records and count them instead of stopping"},
		&cli.BoolFlag{Name: "keep-failed", Usage: "rumen: keep jobs whose outcome is not SUCCESS"},
		&cli.Float64Flag{Name: "from", Usage: "first submit time taken, `SECONDS` on the trace's clock (SWIM: its submit column; Rumen: from its first job)"},
		&cli.Float64Flag{Name: "to", Usage: "end of the window (exclusive), `SECONDS` on the same clock as --from"},
		&cli.IntFlag{Name: "max-jobs", Usage: "stop after `N` jobs"},
		&cli.IntFlag{Name: "nodes", Usage: "nodes (default swim: the trace's cluster, FB-2009 600, FB-2010 3,000; hybs 18; rumen: the trace's hosts, or this many without block locations)"},
		&cli.IntFlag{Name: "racks", Usage: "racks (default swim nodes/20, hybs and rumen --nodes 1)"},
		&cli.IntFlag{Name: "map-slots", Usage: "map slots per node (default 2; rumen: inferred from the trace)"},
		&cli.IntFlag{Name: "reduce-slots", Usage: "reduce slots per node (default 1; rumen: inferred from the trace)"},
		&cli.IntFlag{Name: "replication", Usage: "HDFS replication R (default 3)"},
		&cli.Float64Flag{Name: "block-size-mb", Value: 64, Usage: "swim: HDFS block size in MiB, one map per block"},
		&cli.Float64Flag{Name: "reduce-size-mb", Value: 1024, Usage: "swim: MiB of shuffle (or output) per reduce"},
		&cli.Float64Flag{Name: "map-mbps", Value: 50, Usage: "swim: a map task's rate in MB/s"},
		&cli.Float64Flag{Name: "reduce-mbps", Value: 20, Usage: "swim: a reduce task's rate over shuffle and output in MB/s"},
		&cli.Float64Flag{Name: "task-seconds", Value: 2, Usage: "swim: every task's fixed cost in seconds"},
	},
	Action: workloadsImportAction,
}

func workloadsImportAction(c *cli.Context) error {
	args := c.Args().Slice() // flags among them were moved before them (shell.NormalArgs)
	switch {
	case len(args) < 1:
		return badUsage("workloads import takes one trace FILE, got none")
	case len(args) > 1:
		return badUsage("workloads import takes one trace FILE, got also %q", args[1])
	}
	opt := importOptions(c)
	if err := opt.Validate(); err != nil {
		return badInput(err)
	}
	out, hybs := c.String("output"), c.String("hybs")
	for flag, path := range map[string]string{"output": out, "hybs": hybs} {
		if path != "" {
			if err := checkOutputPath(flag, path); err != nil {
				return err
			}
		}
	}
	in, name, closeIn, err := openTrace(c, args[0])
	if err != nil {
		return err
	}
	defer closeIn()
	im, err := traces.Import(in, name, opt)
	if err != nil {
		return badInput(err)
	}
	for _, n := range im.Notes {
		fmt.Fprintln(c.App.ErrWriter, "packer: note:", n)
	}
	doc, err := im.MarshalIndent()
	if err != nil {
		return err
	}
	if hybs != "" {
		b, err := im.HybSFile(opt.ServiceLevel)
		if err != nil {
			return badInput(err)
		}
		// Check the workload's own output first, so that a bad --output
		// leaves no HybS file behind.
		if err := checkOutputs(c, "output"); err != nil {
			return err
		}
		if err := writeOutput(hybs, b); err != nil {
			return err
		}
	}
	// The summary goes where it cannot spoil the JSON.
	report := c.App.ErrWriter
	if out != "" {
		if err := writeOutput(out, doc); err != nil {
			return err
		}
		report = c.App.Writer
	} else if _, err := c.App.Writer.Write(doc); err != nil {
		return err
	}
	fmt.Fprintln(report, im.Summary())
	return nil
}

// openTrace opens FILE, or standard input for "-".
func openTrace(c *cli.Context, path string) (io.Reader, string, func(), error) {
	if path == "-" {
		return c.App.Reader, "<stdin>", func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil, badInput(&model.InputError{File: path, Err: err})
	}
	var size int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	line := progress.New(c.App.ErrWriter)
	return progress.Reader(f, size, line, "import"), path, func() { line.Done(); f.Close() }, nil
}

// importOptions reads import's flags into the importer's options.
func importOptions(c *cli.Context) *traces.ImportOptions {
	given := map[string]bool{}
	for _, f := range c.Command.Flags {
		given[f.Names()[0]] = c.IsSet(f.Names()[0])
	}
	format := c.String("input-format")
	if format == "" {
		format = c.String("format") // the old name still works
	}
	given["format"] = given["format"] || given["input-format"] // the importer's name for it
	return &traces.ImportOptions{
		Format:     format,
		Window:     traces.Window{From: c.Float64("from"), To: c.Float64("to"), MaxJobs: c.Int("max-jobs")},
		SkipBad:    c.Bool("skip-bad"),
		KeepFailed: c.Bool("keep-failed"),
		Topology:   c.String("topology"),
		Cluster: sim.Cluster{Nodes: c.Int("nodes"), Racks: c.Int("racks"), MapSlots: c.Int("map-slots"),
			ReduceSlots: c.Int("reduce-slots"), Replication: c.Int("replication")},
		BlockMB: c.Float64("block-size-mb"), ReduceMB: c.Float64("reduce-size-mb"),
		MapMBps: c.Float64("map-mbps"), ReduceMBps: c.Float64("reduce-mbps"), TaskSeconds: c.Float64("task-seconds"),
		ServiceLevel: c.Float64("service-level"),
		Given:        given,
	}
}
