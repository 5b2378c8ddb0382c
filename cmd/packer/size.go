package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/progress"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/pso"
)

var sizeCommand = &cli.Command{
	Name:  "size",
	Usage: "the fewest hosts whose plan meets a deadline, and the proof that one fewer cannot",
	Description: "Finds the fewest hosts P (at most --max-hosts) whose plan finishes the workload within\n" +
		"--deadline (4h, 90m, 3600s, or seconds), and proves that P - 1 cannot: its lower bound is\n" +
		"above the deadline. Where the bounds cannot settle it, it says so: \"between P_lo and P\".\n" +
		"The search bisects on the cheap area bound (it never rises with hosts) and plans only a\n" +
		"few host counts; the table is the cost curve of the counts it examined:\n" +
		"the plan's makespan and the bound it proved where it planned, and the area bound.\n" +
		"Up to 16 jobs every plan is the exact optimum, so the answer is always exact; past that\n" +
		"the plans share --time-limit. --disks-options 1,2,4 sizes each disks-per-host value and\n" +
		"names the one needing the fewest hosts.",
	Flags: append([]cli.Flag{
		workloadFlag,
		&cli.StringFlag{Name: "deadline", Aliases: []string{"d"}, Usage: "finish the workload within `D` (4h, 90m, 3600s, or seconds)"},
		&cli.IntFlag{Name: "max-hosts", Value: optimize.DefaultMaxHosts, Usage: "consider at most `P` hosts"},
		&cli.StringFlag{Name: "disks-options", Usage: "instead of one --disks, size each disks-per-host value of `LIST` (1,2,4) and name the best"},
		&cli.StringFlag{Name: "algorithm", Aliases: []string{"a"}, Value: "auto", Usage: "plan each host count with " + optimize.MethodList()},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "pso: random seed"},
		&cli.DurationFlag{Name: "time-limit", DefaultText: "1.5 times plan's: 15s up to 200 jobs",
			Usage: "the time the plans of the whole search share, past the exact solver's 16 jobs (0: no limit per plan)"},
		chartFlag,
		formatFlag,
	}, sizeClusterFlags()...),
	Action: sizeAction,
}

// sizeClusterFlags are the cluster flags but --hosts, which size finds.
func sizeClusterFlags() []cli.Flag {
	var fs []cli.Flag
	for _, f := range clusterFlags {
		if f.Names()[0] != "hosts" {
			fs = append(fs, f)
		}
	}
	return fs
}

func sizeAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("size takes no arguments, got %q", c.Args().First())
	}
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if err := checkChart(c); err != nil {
		return err
	}
	if !c.IsSet("deadline") {
		return badUsage("size: --deadline is required (e.g. --deadline 4h)")
	}
	deadline, err := parseDeadline(c.String("deadline"))
	if err != nil {
		return err
	}
	method, err := optimize.ParseMethod(c.String("algorithm"))
	if err != nil {
		return badUsage("--algorithm: %v", err)
	}
	if c.Duration("time-limit") < 0 {
		return badUsage("--time-limit must not be negative (0: no limit per plan), got %v", c.Duration("time-limit"))
	}
	w, err := loadWorkload(c)
	if err != nil {
		return err
	}
	clusters, err := sizeClusters(c)
	if err != nil {
		return err
	}
	set := sizeSettings(c, method, len(w.Jobs))
	line := progress.New(c.App.ErrWriter)
	set.Progress = func(pt optimize.SizePoint) { line.Report(false, "size: %s", pointProgress(pt)) }
	set.Solve.Progress = func(inc, lb float64) { line.Report(false, "size: %s", optimize.FormatProgress(inc, lb)) }
	choice, err := optimize.SizeAmong(w, clusters, deadline, set)
	line.Done()
	switch {
	case errors.Is(err, optimize.ErrBadDeadline):
		return badUsage("--deadline %s: %v", c.String("deadline"), err)
	case errors.Is(err, optimize.ErrJobTooLong), errors.Is(err, optimize.ErrUnreachable):
		return badInput(fmt.Errorf("size: %s: %w", c.String("workload"), err))
	case err != nil:
		return settingUsage(c, err)
	}
	report := newSizeReport(w, choice, c, set, method)
	if err := writeSizeChart(c, choice.Options[choice.Best].Result); err != nil {
		return err
	}
	if format == "json" {
		return printJSON(c.App.Writer, report)
	}
	return report.print(c.App.Writer)
}

// sizeSettings are Size's settings from the flags: the plans share
// --time-limit, by default one and a half times plan's, so that a search of
// 200 jobs answers within half a minute on a loaded machine.
func sizeSettings(c *cli.Context, method optimize.Method, jobs int) *optimize.SizeSettings {
	set := &optimize.SizeSettings{MaxHosts: c.Int("max-hosts"), Method: method,
		Solve: &optimize.Settings{Swarm: &pso.Settings{Seed: c.Uint64("seed")}}, Budget: c.Duration("time-limit")}
	if !c.IsSet("time-limit") {
		set.Budget = 3 * optimize.DefaultTimeLimit(jobs) / 2
	}
	return set
}

// sizeClusters are the clusters the flags give, their host count left to
// Size: one for --disks (or its default), or one per --disks-options value.
// --ratio follows the disks (one extra per primary VM at one disk) unless
// given.
func sizeClusters(c *cli.Context) ([]model.Cluster, error) {
	disks := []int{c.Int("disks")}
	if c.IsSet("disks-options") {
		if c.IsSet("disks") {
			return nil, badUsage("size: give --disks or --disks-options, not both")
		}
		var err error
		if disks, err = parseDisksOptions(c.String("disks-options")); err != nil {
			return nil, err
		}
	}
	var cls []model.Cluster
	for _, k := range disks {
		cl := model.Cluster{Hosts: 1, DisksPerHost: k, ExtraRatio: c.Int("ratio"), Alpha: c.Float64("alpha"),
			CoresPerHost: c.Int("cores"), MemoryMiBPerHost: c.Int("memory")}
		if !c.IsSet("ratio") && cl.ExtraRatio > k {
			cl.ExtraRatio = k // as plan: one disk, one extra per primary VM
		}
		if err := cl.Validate(); err != nil {
			return nil, clusterFlagError(err, len(disks) > 1)
		}
		cls = append(cls, cl)
	}
	return cls, nil
}

// clusterFlagError names the flag a cluster error is about.
func clusterFlagError(err error, options bool) error {
	disks := "--disks"
	if options {
		disks = "--disks-options"
	}
	for field, flag := range map[string]string{"disks_per_host": disks, "extra_ratio": "--ratio",
		"overcommit_penalty": "--alpha", "cores_per_host": "--cores", "memory_mib_per_host": "--memory"} {
		if strings.HasPrefix(err.Error(), "cluster: "+field+" ") {
			return badInput(fmt.Errorf("%s: %w", flag, err))
		}
	}
	return badInput(err)
}

// parseDisksOptions reads --disks-options: distinct positive integers,
// comma-separated, kept in the order given.
func parseDisksOptions(s string) ([]int, error) {
	var ks []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		switch {
		case err != nil || k < 1:
			return nil, badUsage("--disks-options: %q is not a positive number of disks (want a list such as 1,2,4)", strings.TrimSpace(f))
		case seen[k]:
			return nil, badUsage("--disks-options: %d is given twice", k)
		}
		seen[k] = true
		ks = append(ks, k)
	}
	return ks, nil
}

// parseDeadline reads --deadline: a Go duration (4h, 90m, 3600s, 1h30m) or
// a number of seconds. Whether it is positive is Size's to say.
func parseDeadline(s string) (float64, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d.Seconds(), nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) {
		return v, nil
	}
	return 0, badUsage("--deadline: %q is not a duration (4h, 90m, 3600s) or a number of seconds", s)
}

// pointProgress is a progress line for one host count examined.
func pointProgress(pt optimize.SizePoint) string {
	if pt.Planned {
		return fmt.Sprintf("%d hosts: plan %s, bound %s", pt.Hosts, seconds(pt.Makespan), seconds(pt.Bound))
	}
	return fmt.Sprintf("%d hosts: area bound %s", pt.Hosts, seconds(pt.Area))
}

// planDeadlineFlag asks plan whether its plan meets a deadline.
var planDeadlineFlag = &cli.StringFlag{Name: "deadline", Usage: "say whether the plan finishes within `D` (4h, 90m, 3600s, or seconds), and by how much"}

// planDeadline reads plan's --deadline: 0 when not given; a usage error
// when not a positive duration.
func planDeadline(c *cli.Context) (float64, error) {
	if !c.IsSet("deadline") {
		return 0, nil
	}
	d, err := parseDeadline(c.String("deadline"))
	if err == nil && !(d > 0) {
		err = badUsage("--deadline: must be positive, got %s", c.String("deadline"))
	}
	return d, err
}

// printDeadline says in one line whether a makespan meets the deadline
// (seconds; 0: none asked) and by how much.
func printDeadline(w io.Writer, makespan, deadline float64) {
	switch {
	case deadline <= 0:
	case makespan <= deadline:
		fmt.Fprintf(w, "Deadline %s: met, %s to spare (%.1f %%)\n", seconds(deadline), seconds(deadline-makespan), 100*(deadline-makespan)/deadline)
	default:
		fmt.Fprintf(w, "Deadline %s: missed by %s (%.1f %%); `packer size --deadline` finds the hosts that meet it\n", seconds(deadline), seconds(makespan-deadline), 100*(makespan-deadline)/deadline)
	}
}
