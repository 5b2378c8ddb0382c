package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/progress"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/profile"
	"github.com/packer-sched/packer/xenlibvirt"
)

// exitInterrupted is the exit code after Ctrl-C, as shells report SIGINT.
const exitInterrupted = 130

var profileCommand = &cli.Command{
	Name:      "profile",
	Usage:     "run a job at several node counts, fit a runtime model and classify it, writing a profile",
	ArgsUsage: "-- CMD [ARGS...]",
	Description: "Runs CMD once per node count and repeat, with {nodes} in its arguments replaced and\n" +
		"PACKER_NODES set, no shell in between. Measures wall time, CPU seconds of the whole process\n" +
		"tree and bytes it read and wrote (the kernel's rusage of the reaped tree), derives CPU\n" +
		"utilisation = CPU s / (wall × nodes × vCPUs per node) and the I/O rate, fits every model\n" +
		"form on all runs and keeps one (--model, as packer fit), and classifies the job at the reference size. A profile is a workload file:\n" +
		"packer plan --workload profile.json works. Ctrl-C stops the running command and keeps\n" +
		"what was measured.\n\n" +
		"--inventory FILE runs each run instead on VMs of the inventory, as packer apply deploys them:\n" +
		"a one-phase plan of the job alone on n VMs (one per disk, hosts first), the guests running\n" +
		"--run CMD (the appliance's packer.run), each run torn down when its VMs have powered off.\n" +
		"Wall time, CPU seconds and disk bytes then come from libvirt (see xenlibvirt.ProfileSettings).\n\n" +
		"--points K or --budget NODE-SECONDS runs at the counts among --nodes (N alone: 1..N) that pin down\n" +
		"the --model form best (profile.ChooseNodes); a budget first runs at 1 node and charges n × that time a run.",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "job", Aliases: []string{"j"}, Required: true, Usage: "job `NAME` in the profile"},
		&cli.StringFlag{Name: "nodes", Aliases: []string{"n"}, Required: true, Usage: "node counts to run at, comma-separated: `N,N,...` (e.g. 2,4,6,8)"},
		&cli.IntFlag{Name: "repeat", Value: 1, Usage: "runs per node count"},
		&cli.IntFlag{Name: "points", Usage: "choose `K` of the --nodes counts (D-optimal for --model)"},
		&cli.Float64Flag{Name: "budget", Usage: "choose as many counts as `NODE-SECONDS` pay for, after a run at 1 node"},
		&cli.IntFlag{Name: "vcpus-per-node", Value: 2, Usage: "vCPUs of one node, for CPU utilisation"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the profile (a workload file, JSON) to `FILE`"},
		&cli.StringFlag{Name: "inventory", Aliases: []string{"i"}, Usage: "run on VMs of the inventory `FILE` (JSON), as packer apply would, and measure from libvirt"},
		&cli.StringFlag{Name: "run", Usage: "the command `CMD` (words split on spaces), instead of after --; with --inventory, what the guests run"},
		&cli.StringFlag{Name: "state", Usage: "with --inventory: journal `FILE` of the run in flight, for packer destroy (default packer-profile-JOB.state.json)"},
		&cli.DurationFlag{Name: "run-timeout", Usage: "with --inventory: fail a run whose VMs have not all powered off after `D` (0: no limit)"},
		&cli.BoolFlag{Name: "dry-run", Usage: "show the runs the profile would make (with --inventory, the VMs of each), run and change nothing"},
		chartFlag,
		formatFlag,
	}, thresholdFlags...),
	Action: profileAction,
}

func profileAction(c *cli.Context) error {
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if err := checkChart(c); err != nil {
		return err
	}
	nodes, err := parseNodes(c.String("nodes"))
	if err != nil {
		return err
	}
	if c.Int("repeat") < 1 {
		return badUsage("--repeat: must be at least 1, got %d", c.Int("repeat"))
	}
	if v := c.Int("vcpus-per-node"); v < 1 || v > model.MaxCoresPerHost {
		return badUsage("--vcpus-per-node: must be between 1 and %d, got %d", model.MaxCoresPerHost, v)
	}
	job := strings.TrimSpace(c.String("job"))
	if job == "" {
		return badUsage("--job: the job name is empty")
	}
	set, err := analysisSettings(c)
	if err != nil {
		return err
	}
	if c.IsSet("vcpus-per-node") { // the profile records the shape it knows
		set.Shape = &model.VMShape{VCPUs: c.Int("vcpus-per-node")}
	}
	argv := c.Args().Slice()
	if c.IsSet("run") {
		argv = strings.Fields(c.String("run"))
	}
	if len(argv) == 0 {
		return badUsage("profile: no command given; put it after --, e.g. packer profile --job sort --nodes 2,4,6 -- ./sort.sh {nodes}")
	}
	if out := c.String("output"); out != "" {
		// Fail before minutes of profiling, not after.
		if err := checkOutputPath("output", out); err != nil {
			return err
		}
	}

	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ms := &profile.MeasureSettings{Nodes: nodes, Repeat: c.Int("repeat"), VCPUsPerNode: c.Int("vcpus-per-node")}
	if ms.Design, err = profileDesign(c, set.Form, nodes); err != nil {
		return err
	}
	if ms.Design != nil {
		ms.Chose = func(ch profile.Choice) { fmt.Fprintf(c.App.ErrWriter, "packer: profile %s: %s\n", job, ch.Why) }
	}
	if progress.IsTerminal(c.App.ErrWriter) {
		ms.Progress = func(p profile.Progress) {
			fmt.Fprintf(c.App.ErrWriter, "\rrun %d of %d (%d nodes, repeat %d), elapsed %s, about %s left   ",
				p.Done, p.Total, p.Nodes, p.Repeat, clock(p.Elapsed), clock(p.Remaining))
			if p.Done == p.Total {
				fmt.Fprintln(c.App.ErrWriter)
			}
		}
	}
	var obs []model.Observation
	if c.Bool("dry-run") && !c.IsSet("inventory") {
		return profile.DryRun(c.App.Writer, argv, ms)
	}
	if c.IsSet("inventory") {
		obs, err = profileOnVMs(ctx, c, job, argv, ms, set)
		if c.Bool("dry-run") || err != nil && !errors.Is(err, profile.ErrInterrupted) {
			return err
		}
	} else {
		obs, err = profile.Measure(ctx, argv, ms)
	}
	interrupted := errors.Is(err, profile.ErrInterrupted)
	if interrupted {
		if ms.Progress != nil {
			fmt.Fprintln(c.App.ErrWriter)
		}
		fmt.Fprintf(c.App.ErrWriter, "packer: job %s: %v; keeping the %d runs measured\n", job, err, len(obs))
	} else if err != nil {
		return badInput(err)
	}
	w, res, err := profile.FitMeasured(job, argv, obs, set)
	if err != nil {
		if interrupted { // too little to fit: keep the runs in the form packer fit reads
			if err := profile.WriteObservations(c.App.Writer, job, obs); err != nil {
				return err
			}
			return cli.Exit(fmt.Sprintf("packer: profile %s: interrupted with too little measured to fit; the runs measured are on standard output, as the CSV packer fit -i reads", job), exitInterrupted)
		}
		return err
	}
	if err := emitWorkload(c, w, []*profile.Result{res}, format); err != nil {
		return err
	}
	if interrupted {
		return cli.Exit(fmt.Sprintf("packer: profile %s: interrupted; the profile holds the %d runs measured before", job, len(obs)), exitInterrupted)
	}
	return nil
}

// profileOnVMs measures on the inventory's VMs (--inventory); its log
// lines, one per action and one per run, are the progress.
func profileOnVMs(ctx context.Context, c *cli.Context, job string, argv []string, ms *profile.MeasureSettings, fit *profile.Settings) ([]model.Observation, error) {
	inv, err := xenlibvirt.ReadInventoryFile(c.String("inventory"))
	if err != nil {
		return nil, badInput(err)
	}
	fit.Shape = inventoryShape(inv, fit.Shape)
	set := &xenlibvirt.ProfileSettings{Inventory: inv, Connector: connector, Job: job, Nodes: ms.Nodes, Design: ms.Design, Repeat: ms.Repeat,
		RunTimeout: c.Duration("run-timeout"), DryRun: c.Bool("dry-run"), Log: c.App.ErrWriter, Progress: ms.Progress,
		StatePath: cmp.Or(c.String("state"), xenlibvirt.ProfileStateFile(job))}
	set.VCPUs, set.MemoryMiB = fit.Shape.VCPUs, fit.Shape.MemoryMiB
	if set.DryRun {
		set.Log = c.App.Writer
	}
	obs, err := xenlibvirt.Profile(ctx, argv, set)
	if err != nil && !errors.Is(err, profile.ErrInterrupted) {
		return obs, badInput(err)
	}
	return obs, err
}

// inventoryShape is the shape of the VMs profiled on the inventory: the
// given vCPUs, else the fewest cores of any host over its disks; the
// inventory's vm_memory_mib, else the least memory over the disks, as
// xenlibvirt.ProfileSettings sizes them (and is told to).
func inventoryShape(inv *xenlibvirt.Inventory, given *model.VMShape) *model.VMShape {
	disks, cores, mem := len(inv.Hosts[0].Disks), inv.Hosts[0].Cores, inv.Hosts[0].MemoryMiB
	for _, h := range inv.Hosts {
		disks, cores, mem = min(disks, len(h.Disks)), min(cores, h.Cores), min(mem, h.MemoryMiB)
	}
	shape := &model.VMShape{VCPUs: max(1, cores/disks), MemoryMiB: cmp.Or(inv.VMMemoryMiB, mem/disks)}
	if given != nil {
		shape.VCPUs = given.VCPUs
	}
	return shape
}

// profileDesign is the design --points and --budget ask for (nil for
// neither), checked before anything runs.
func profileDesign(c *cli.Context, form model.Kind, nodes []int) (*profile.Design, error) {
	if !c.IsSet("points") && !c.IsSet("budget") {
		return nil, nil
	}
	p, b := c.Int("points"), c.Float64("budget")
	if c.IsSet("points") && p < 1 {
		return nil, badUsage("profile: --points %d: must be at least 1", p)
	}
	if c.IsSet("budget") && !(b > 0 && b <= math.MaxFloat64) {
		return nil, badUsage("profile: --budget %v: must be a positive number of node-seconds", b)
	}
	d := &profile.Design{Form: form, Candidates: nodes, Points: p, Budget: b}
	if _, err := d.Counts(); err != nil {
		return nil, badInput(err)
	}
	return d, nil
}

// parseNodes reads --nodes (profile.ParseNodes).
func parseNodes(s string) ([]int, error) {
	nodes, err := profile.ParseNodes(s)
	switch {
	case err == nil && len(nodes) == 1 && nodes[0] == 1:
		return nil, badUsage("--nodes 1: runs at one node count fit nothing; give two or more (2,4,6), or N for 1..N")
	case err == nil:
		return nodes, nil
	case strings.TrimSpace(s) == "":
		return nil, badUsage("--nodes: %v", err)
	}
	return nil, badUsage("--nodes %s: %v", s, err)
}

// clock renders a duration as m:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
