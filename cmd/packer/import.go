package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

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
		"hybs: seed 002's simulator input (jobid tasks mean-seconds wait service-level).\n\n" +
		"--from/--to/--max-jobs take a window (seconds from the trace's first job). A malformed\n" +
		"record stops the import with its line or byte; --skip-bad skips and counts them.\n" +
		"Flags may come before or after FILE.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "format", Usage: "trace format: swim, rumen or hybs (required)"},
		&cli.StringFlag{Name: "topology", Usage: "rumen: topology `FILE` (hosts by rack)"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the workload to `FILE` instead of standard output"},
		&cli.StringFlag{Name: "hybs", Usage: "also write the jobs in seed 002's HybS format to `FILE`"},
		&cli.Float64Flag{Name: "service-level", Value: 1, Usage: "--hybs: every job's service level (0–1)"},
		&cli.BoolFlag{Name: "skip-bad", Usage: "skip malformed records and count them instead of stopping"},
		&cli.BoolFlag{Name: "keep-failed", Usage: "rumen: keep jobs whose outcome is not SUCCESS"},
		&cli.Float64Flag{Name: "from", Usage: "first submit time taken, `SECONDS` on the trace's clock (SWIM: its submit column; Rumen: from its first job)"},
		&cli.Float64Flag{Name: "to", Usage: "end of the window (exclusive), `SECONDS` on the same clock as --from"},
		&cli.IntFlag{Name: "max-jobs", Usage: "stop after `N` jobs"},
		&cli.IntFlag{Name: "nodes", Usage: "nodes (default swim 600, hybs 18; rumen: the trace's hosts, or this many without block locations)"},
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
	if c.NArg() < 1 {
		return badUsage("workloads import takes one trace FILE, got none")
	}
	path := c.Args().First()
	o, err := parseTrailing(c, c.Args().Slice()[1:])
	if err != nil {
		return err
	}
	if !o.IsSet("format") {
		return badUsage("workloads import needs --format swim, rumen or hybs")
	}
	format := o.String("format")
	for _, f := range []string{"nodes", "racks", "map-slots", "reduce-slots", "replication", "max-jobs"} {
		if o.IsSet(f) && o.Int(f) < 1 {
			return badUsage("--%s must be at least 1, got %d", f, o.Int(f))
		}
	}
	only := map[string][]string{
		"swim":  {"block-size-mb", "reduce-size-mb", "map-mbps", "reduce-mbps", "task-seconds"},
		"rumen": {"topology", "keep-failed"},
	}
	for f, names := range only {
		for _, n := range names {
			if o.IsSet(n) && format != f {
				return badUsage("--%s applies to --format %s only", n, f)
			}
		}
	}
	if format == "rumen" && o.IsSet("nodes") && o.IsSet("topology") {
		return badUsage("--nodes and --topology are two clusters: give one (--nodes moves the real jobs onto a cluster of that size)")
	}
	if format == "rumen" && o.IsSet("racks") && !o.IsSet("nodes") {
		return badUsage("--racks needs --nodes with --format rumen (otherwise the racks are the trace's)")
	}
	if format == "hybs" && (o.IsSet("from") || o.IsSet("to")) {
		return badUsage("--from and --to do not apply to --format hybs: its jobs all arrive at 0")
	}
	if lv := o.Float64("service-level"); !(lv >= 0 && lv <= 1) {
		return badUsage("--service-level must lie in [0, 1], got %v", lv)
	}
	window := traces.Window{From: o.Float64("from"), To: o.Float64("to"), MaxJobs: o.Int("max-jobs")}
	if !(window.From >= 0 && window.From <= sim.MaxTime && window.To >= 0 && window.To <= sim.MaxTime) {
		return badUsage("--from and --to must be seconds between 0 and %g, got %v and %v", sim.MaxTime, window.From, window.To)
	}
	if o.IsSet("to") && window.To <= window.From {
		return badUsage("--to %v must be after --from %v", window.To, window.From)
	}
	cluster := sim.Cluster{Nodes: o.Int("nodes"), Racks: o.Int("racks"), MapSlots: o.Int("map-slots"),
		ReduceSlots: o.Int("reduce-slots"), Replication: o.Int("replication")}
	for _, out := range []string{o.String("output"), o.String("hybs")} {
		if out != "" {
			if err := writableDir(out); err != nil {
				return err
			}
		}
	}

	in, name, closeIn, err := openTrace(c, path)
	if err != nil {
		return err
	}
	defer closeIn()
	var im *traces.Imported
	switch format {
	case "swim":
		set := &traces.SWIMSettings{Window: window, SkipBad: o.Bool("skip-bad"), Cluster: cluster,
			MapMBps: o.Float64("map-mbps"), ReduceMBps: o.Float64("reduce-mbps"), TaskSeconds: o.Float64("task-seconds")}
		for _, f := range []struct {
			flag string
			dst  *int64
		}{{"block-size-mb", &set.BlockBytes}, {"reduce-size-mb", &set.ReduceBytes}} {
			mb := o.Float64(f.flag)
			if !(mb >= 1.0/1024 && mb <= 1<<30) {
				return badUsage("--%s must lie between 1 KiB and 1 PiB, got %v MiB", f.flag, mb)
			}
			*f.dst = int64(mb * (1 << 20))
		}
		for _, f := range []string{"map-mbps", "reduce-mbps", "task-seconds"} {
			if v := o.Float64(f); !(v > 0 && v <= 1e9) {
				return badUsage("--%s must be positive, got %v", f, v)
			}
		}
		im, err = traces.ReadSWIM(in, name, set)
	case "rumen":
		set := &traces.RumenSettings{Window: window, SkipBad: o.Bool("skip-bad"), KeepFailed: o.Bool("keep-failed"),
			MapSlots: cluster.MapSlots, ReduceSlots: cluster.ReduceSlots, Replication: cluster.Replication,
			Nodes: cluster.Nodes, Racks: cluster.Racks}
		if tp := o.String("topology"); tp != "" {
			f, err := os.Open(tp)
			if err != nil {
				return badInput(&model.InputError{File: tp, Err: err})
			}
			set.Topology, err = traces.ReadTopology(f, tp)
			f.Close()
			if err != nil {
				return badInput(err)
			}
		}
		im, err = traces.ReadRumen(in, name, set)
	case "hybs":
		_, im, err = traces.ReadHybS(in, name, &traces.HybSSettings{SkipBad: o.Bool("skip-bad"), MaxJobs: window.MaxJobs, Cluster: cluster})
	default:
		return badUsage("--format: unknown trace format %q (want swim, rumen or hybs)", format)
	}
	if err != nil {
		return badInput(err)
	}
	doc, err := im.MarshalIndent()
	if err != nil {
		return err
	}
	if hp := o.String("hybs"); hp != "" {
		jobs, err := traces.HybSFromSim(im.Workload, o.Float64("service-level"))
		if err != nil {
			return badInput(err)
		}
		var b bytes.Buffer
		if err := traces.WriteHybS(&b, jobs); err != nil {
			return badInput(err)
		}
		// Check the workload's own output first, so that a bad --output
		// leaves no HybS file behind.
		if out := o.String("output"); out != "" {
			if err := checkOutputPath("output", out); err != nil {
				return err
			}
		}
		if err := writeOutput(hp, b.Bytes()); err != nil {
			return err
		}
	}
	// The summary goes where it cannot spoil the JSON.
	report := c.App.ErrWriter
	if out := o.String("output"); out != "" {
		if err := writeOutput(out, doc); err != nil {
			return err
		}
		report = c.App.Writer
	} else if _, err := c.App.Writer.Write(doc); err != nil {
		return err
	}
	m := im.Meta
	var notes []string
	for _, n := range []struct {
		count int
		what  string
	}{{m.SkippedBad, "malformed records skipped"}, {m.DroppedFailed, "failed jobs dropped"}, {m.OutsideWindow, "jobs outside the window"}} {
		if n.count > 0 {
			notes = append(notes, fmt.Sprintf("%d %s", n.count, n.what))
		}
	}
	note := ""
	if len(notes) > 0 {
		note = "; " + strings.Join(notes, ", ")
	}
	cl := im.Workload.Cluster
	fmt.Fprintf(report, "Imported %d jobs (%d maps, %d reduces) from %s (%s) onto %d nodes in %d racks%s.\n",
		m.Jobs, m.Maps, m.Reduces, name, m.Format, cl.Nodes, cl.Racks, note)
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
	return f, path, func() { f.Close() }, nil
}

// importOptions reads import's flags from the command line as urfave/cli
// parsed it and from the flags given after FILE, which it does not parse
// (it stops at the first argument): the issue writes the command as
// `import --format swim FILE --output w.json`, and people do too.
type importOptions struct {
	c     *cli.Context
	after *flag.FlagSet
	set   map[string]string // primary name → the name used, of the flags given after FILE
}

// parseTrailing parses the arguments after FILE with the command's own flags.
func parseTrailing(c *cli.Context, args []string) (*importOptions, error) {
	o := &importOptions{c: c, after: flag.NewFlagSet("import", flag.ContinueOnError), set: map[string]string{}}
	o.after.SetOutput(io.Discard)
	primary := map[string]string{}
	for _, f := range c.Command.Flags {
		if err := f.Apply(o.after); err != nil {
			return nil, err
		}
		for _, n := range f.Names() {
			primary[n] = f.Names()[0]
		}
	}
	if err := o.after.Parse(args); err != nil {
		return nil, badUsage("workloads import: %v", err)
	}
	if o.after.NArg() > 0 {
		return nil, badUsage("workloads import takes one trace FILE, got also %q", o.after.Arg(0))
	}
	// Each alias is its own flag in the set: remember which one was used.
	o.after.Visit(func(f *flag.Flag) { o.set[primary[f.Name]] = f.Name })
	return o, nil
}

// value is the flag's text when it was given after FILE.
func (o *importOptions) value(name string) (string, bool) {
	used, ok := o.set[name]
	if !ok {
		return "", false
	}
	return o.after.Lookup(used).Value.String(), true
}

func (o *importOptions) IsSet(name string) bool {
	_, after := o.set[name]
	return after || o.c.IsSet(name)
}

func (o *importOptions) String(name string) string {
	if v, ok := o.value(name); ok {
		return v
	}
	return o.c.String(name)
}

func (o *importOptions) Bool(name string) bool {
	if v, ok := o.value(name); ok {
		b, _ := strconv.ParseBool(v) // the flag set parsed it already
		return b
	}
	return o.c.Bool(name)
}

func (o *importOptions) Float64(name string) float64 {
	if v, ok := o.value(name); ok {
		x, _ := strconv.ParseFloat(v, 64)
		return x
	}
	return o.c.Float64(name)
}

func (o *importOptions) Int(name string) int {
	if v, ok := o.value(name); ok {
		n, _ := strconv.Atoi(v)
		return n
	}
	return o.c.Int(name)
}
