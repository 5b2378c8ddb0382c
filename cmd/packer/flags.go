package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/workloads"
)

// clusterFlags describe the physical cluster; shared by every command that plans.
var clusterFlags = []cli.Flag{
	&cli.IntFlag{Name: "hosts", Aliases: []string{"P"}, Value: 9, Usage: "physical hosts P"},
	disksFlag,
	ratioFlag,
	&cli.Float64Flag{Name: "alpha", Value: 1.3, Usage: fmt.Sprintf("overcommit penalty: jobs on overcommitted hosts run alpha times slower (1 to %g)", model.MaxAlpha)},
	coresFlag,
	memoryFlag,
}

// The cluster flags not named after their model.Cluster field (see
// fieldFlags).
var (
	disksFlag  = &cli.IntFlag{Name: "disks", Aliases: []string{"k"}, Value: 2, Usage: fmt.Sprintf("disks per host k, one primary VM per disk (at most %d)", model.MaxDisksPerHost)}
	ratioFlag  = &cli.IntFlag{Name: "ratio", Aliases: []string{"r"}, Value: 2, Usage: "primary VMs per extra (overcommitted) VM on a host, 1 ≤ r ≤ k"}
	coresFlag  = &cli.IntFlag{Name: "cores", Value: 4, Usage: "cores per host (each VM gets cores/k vCPUs)"}
	memoryFlag = &cli.IntFlag{Name: "memory", Value: 8192, Usage: "memory per host in `MiB`"}
)

// clusterFromFlags reads the cluster flags and validates them.
func clusterFromFlags(c *cli.Context) (model.Cluster, error) {
	cl := model.Cluster{
		Hosts:            c.Int("hosts"),
		DisksPerHost:     c.Int("disks"),
		ExtraRatio:       c.Int("ratio"),
		Alpha:            c.Float64("alpha"),
		CoresPerHost:     c.Int("cores"),
		MemoryMiBPerHost: c.Int("memory"),
	}
	if !c.IsSet("ratio") && cl.ExtraRatio > cl.DisksPerHost && cl.DisksPerHost >= 1 {
		// The default r = 2 assumes two disks; with one, one extra per primary VM.
		fmt.Fprintf(c.App.ErrWriter, "packer: note: --disks %d cannot carry the default --ratio %d (one extra VM per %d primary VMs on a host): using --ratio %d; give --ratio to choose\n",
			cl.DisksPerHost, cl.ExtraRatio, cl.ExtraRatio, cl.DisksPerHost)
		cl.ExtraRatio = cl.DisksPerHost
	}
	return cl, settingUsage(c, cl.Validate())
}

// workloadFlag names a built-in workload or a workload file.
var workloadFlag = &cli.StringFlag{
	Name:    "workload",
	Aliases: []string{"w"},
	Value:   workloads.Default,
	Usage:   "built-in workload name (see: packer workloads), workload file path (- for stdin), or random-mM-seedS (M random jobs)",
}

// loadWorkload resolves --workload.
func loadWorkload(c *cli.Context) (*model.Workload, error) {
	return loadWorkloadNamed(c, c.String("workload"))
}

// loadWorkloadNamed resolves a workload name: a random workload's name
// (random-m20-seed1), a path if such a file exists or the name looks like
// one, else a built-in name.
func loadWorkloadNamed(c *cli.Context, name string) (*model.Workload, error) {
	if w, ok, err := optimize.RandomByName(name); ok && err != nil { // random-mM-seedS, as the tests use
		return nil, badInput(err)
	} else if ok {
		return w, nil
	}
	w, builtin, err := workloads.Open(name, c.App.Reader)
	switch {
	case err != nil && builtin:
		return nil, badInput(fmt.Errorf("--workload: %w; or give a workload file path", err))
	case err != nil:
		return nil, badInput(err)
	}
	return w, nil
}

// formatFlag chooses between a human table and machine-readable JSON.
var formatFlag = &cli.StringFlag{Name: "format", Value: "table", Usage: "output format: table or json"}

func checkFormat(c *cli.Context, allowed ...string) (string, error) {
	f := c.String("format")
	for _, a := range allowed {
		if f == a {
			return f, nil
		}
	}
	return "", badUsage("--format: unknown format %q (want %s)", f, strings.Join(allowed, " or "))
}

// checkOutputs rejects, before any work, output flags whose path cannot be
// written: a missing directory, or a path that is a directory.
func checkOutputs(c *cli.Context, flags ...string) error {
	for _, f := range flags {
		if path := c.String(f); path != "" {
			if err := checkOutputPath(f, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkOutputPath rejects a path given to --flag that cannot be written
// (safefile.Check): its directory is missing, it is a directory or a socket,
// or it is a bare format name such as json; or (safefile.CheckWritable) the
// directory the write makes its temporary file in refuses this user.
func checkOutputPath(flag, path string) error {
	if flag == "output" && path == "-" && dashOutput() != nil {
		return nil
	}
	if err := safefile.Check(path); err != nil {
		return badInput(fmt.Errorf("--%s %s: %w", flag, path, err))
	}
	if err := safefile.CheckWritable(path); err != nil {
		return badInput(fmt.Errorf("--%s %s: %w", flag, path, err))
	}
	return nil
}

// checkStatePath refuses, before a lock or journal is made beside it, a
// --state path that is not a regular file or whose directory this user
// cannot write in.
func checkStatePath(path string) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return badUsage("--state %s: not a regular file; give the journal's file name", path)
	}
	if err := safefile.CheckWritable(path); err != nil {
		return badUsage("--state %s: %v", path, err)
	}
	return nil
}

// checkOutDir refuses, before any work, an --out DIR that is not a
// directory, or in which (or, for one to be made, in whose nearest existing
// parent) this user cannot write the file name.
func checkOutDir(dir, name string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return badUsage("--out %s: not a directory", dir)
	}
	if err := safefile.CheckWritable(filepath.Join(dir, name)); err != nil {
		return badUsage("--out %s: %v", dir, err)
	}
	return nil
}

// writeOutput writes data atomically to path, creating nothing on failure;
// --output - writes it to standard output (see setDashOutput).
func writeOutput(path string, data []byte) error {
	if err := checkOutputPath("output", path); err != nil {
		return err
	}
	if w := dashOutput(); path == "-" && w != nil {
		_, err := w.Write(data)
		return err
	}
	return safefile.WriteFile(path, data, 0o644)
}

// dashOut is standard output while a command given --output - runs: its
// document goes there, and its report (c.App.Writer) to standard error, so
// that what a pipe reads is the document alone, as -w - reads one.
var dashOut struct {
	sync.Mutex
	w io.Writer
}

// setDashOutput makes --output - write to w until the returned function is
// called.
func setDashOutput(w io.Writer) (reset func()) {
	dashOut.Lock()
	defer dashOut.Unlock()
	dashOut.w = w
	return func() {
		dashOut.Lock()
		defer dashOut.Unlock()
		dashOut.w = nil
	}
}

// dashOutput is where --output - writes, or nil when "-" is no output.
func dashOutput() io.Writer {
	dashOut.Lock()
	defer dashOut.Unlock()
	return dashOut.w
}

// chartFlag asks a command for a picture of its result.
var chartFlag = &cli.StringFlag{Name: "chart", Usage: "also draw the result to `FILE` (.svg or .png; SVG to a pipe or device)"}

// checkChart rejects a --chart path packer cannot write before any work is
// done: an unknown picture format, a missing directory, or a directory.
func checkChart(c *cli.Context) error {
	path := c.String("chart")
	if path == "" {
		return nil
	}
	if err := checkOutputPath("chart", path); err != nil {
		return err
	}
	switch strings.ToLower(filepath.Ext(pictureName(path))) {
	case ".svg", ".png":
		return nil
	}
	return badUsage("--chart %s: unknown picture format %q (want .svg or .png)", path, filepath.Ext(path))
}

// pictureName is the name whose extension picks --chart's format: the path,
// or, for a device, FIFO or descriptor named without one (--chart /dev/null,
// --chart >(display)), an SVG.
func pictureName(path string) string {
	if filepath.Ext(path) == "" && safefile.InPlace(path) {
		return path + ".svg"
	}
	return path
}

// writeChart renders a picture to --chart, if given, atomically.
func writeChart(c *cli.Context, pic chart.Picture) error {
	path := c.String("chart")
	if path == "" {
		return nil
	}
	b, err := pic.Encode(pictureName(path))
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, b, 0o644)
}

// setEmptyFileChecks makes every command refuse a file flag given an empty
// value (`-w ”`, `--plan "$UNSET"`), which would otherwise act as if the
// flag were not given, or say "open : no such file".
func setEmptyFileChecks(cmds []*cli.Command, parent string) {
	for _, c := range cmds {
		if c.Name == "help" { // urfave/cli's
			continue
		}
		name := strings.TrimSpace(parent + " " + c.Name)
		if c.Before == nil {
			c.Before = func(ctx *cli.Context) error { return refuseEmptyFiles(ctx, name) }
		}
		setEmptyFileChecks(c.Subcommands, name)
	}
}

// refuseEmptyFiles is a usage error, naming the command cmd and the flag,
// for the first file flag of ctx's command given an empty value.
func refuseEmptyFiles(ctx *cli.Context, cmd string) error {
	for _, f := range ctx.Command.Flags {
		what := fileFlag(f)
		name := f.Names()[0]
		if what == "" || !ctx.IsSet(name) {
			continue
		}
		values := []string{ctx.String(name)}
		if _, ok := f.(*cli.StringSliceFlag); ok {
			values = ctx.StringSlice(name)
		}
		for _, v := range values {
			if strings.TrimSpace(v) == "" {
				if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
					return badUsage("%s: --%s is empty: name a %s", cmd, name, what)
				}
				return badUsage("%s: --%s is empty: name a %s, or leave the flag out", cmd, name, what)
			}
		}
	}
	return nil
}

// fileFlag says what a flag names when it names a file or directory, as its
// definition says: "file" for a `FILE` placeholder in its usage (shown in
// help as --plan FILE), "directory" for `DIR`, "workload or workload file"
// for the workload flags; else "".
func fileFlag(f cli.Flag) string {
	var usage string
	switch f := f.(type) {
	case *cli.StringFlag:
		usage = f.Usage
	case *cli.StringSliceFlag:
		usage = f.Usage
	default:
		return ""
	}
	placeholder := ""
	if _, rest, ok := strings.Cut(usage, "`"); ok {
		placeholder, _, _ = strings.Cut(rest, "`") // as urfave/cli's help reads it
	}
	switch {
	case f.Names()[0] == workloadFlag.Name || f.Names()[0] == workloadFlag.Name+"s":
		return "workload or workload file"
	case placeholder == "FILE":
		return "file"
	case placeholder == "DIR":
		return "directory"
	}
	return ""
}
