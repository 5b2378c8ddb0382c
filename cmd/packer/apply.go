package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
)

// connector opens hosts for apply, hosts check and destroy; tests replace it
// with simulated hosts whose connections outlive one command.
var connector = xenlibvirt.Libvirt

var (
	inventoryFlag = &cli.StringFlag{Name: "inventory", Aliases: []string{"i"}, Usage: "inventory `FILE` (JSON): hosts, libvirt URIs, disks, appliance image", Required: true}
	stateFlag     = &cli.StringFlag{Name: "state", Usage: "journal `FILE`, rewritten after every step (default: packer-<plan id>.state.json)"}
)

var applyCommand = &cli.Command{
	Name:  "apply",
	Usage: "deploy a plan's VMs through libvirt, phase by phase, and tear each phase down when its jobs are done",
	Description: "Checks the plan against the inventory and what every host's libvirt reports (hosts, cores,\n" +
		"memory, disks, image) before touching anything; then, per phase, creates each VM's\n" +
		"copy-on-write disk on its assigned physical disk, defines and starts the phase's VMs,\n" +
		"waits for libvirt lifecycle events saying every VM powered off (the appliance runs its job\n" +
		"and powers off), and destroys, undefines and deletes them. Every step is journaled to\n" +
		"--state. On failure or SIGINT/SIGTERM the phase in flight is torn down (unless\n" +
		"--keep-on-interrupt) and packer exits 1; --resume continues from the failed phase.\n" +
		"packer only touches domains carrying its metadata for this plan, and disks it created.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "plan", Usage: "plan document `FILE` (from packer plan --output)", Required: true},
		inventoryFlag,
		stateFlag,
		&cli.BoolFlag{Name: "dry-run", Usage: "print the domain XML and every action; change nothing"},
		&cli.IntFlag{Name: "phase", Value: -1, Usage: "apply only phase `N` (deploy, wait, tear down) and return"},
		&cli.BoolFlag{Name: "resume", Usage: "continue the journal in --state: clear what the last run left, go on from the first phase not done"},
		&cli.DurationFlag{Name: "phase-timeout", Usage: "fail a phase whose VMs are not all powered off after `D` (0: wait for ever)"},
		&cli.IntFlag{Name: "parallel", Value: 4, Usage: "create and start at most `N` VMs at once, across hosts"},
		&cli.BoolFlag{Name: "keep-on-interrupt", Usage: "on SIGINT/SIGTERM leave the phase in flight running (journaled; packer destroy removes it)"},
	},
	Action: applyAction,
}

// readPlanAndInventory reads the two input files; errors are bad input.
func readPlanAndInventory(c *cli.Context) (*plan.Plan, *xenlibvirt.Inventory, error) {
	var pl *plan.Plan
	if path := c.String("plan"); path != "" {
		p, err := plan.ReadFile(path)
		if err != nil {
			return nil, nil, badInput(err)
		}
		pl = p
	}
	inv, err := xenlibvirt.ReadInventoryFile(c.String("inventory"))
	if err != nil {
		return nil, nil, badInput(err)
	}
	return pl, inv, nil
}

func applyAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("apply takes no arguments, got %q", c.Args().First())
	}
	pl, inv, err := readPlanAndInventory(c)
	if err != nil {
		return err
	}
	s := &xenlibvirt.Settings{
		Parallel:        c.Int("parallel"),
		PhaseTimeout:    c.Duration("phase-timeout"),
		Resume:          c.Bool("resume"),
		KeepOnInterrupt: c.Bool("keep-on-interrupt"),
		DryRun:          c.Bool("dry-run"),
		StatePath:       c.String("state"),
		Log:             c.App.Writer,
	}
	if s.Parallel < 1 {
		return badUsage("--parallel: %d, want at least 1", s.Parallel)
	}
	if s.PhaseTimeout < 0 {
		return badUsage("--phase-timeout: %v is negative", s.PhaseTimeout)
	}
	if c.IsSet("phase") {
		s.OnePhase, s.Phase = true, c.Int("phase")
		if s.Phase < 0 || s.Phase >= len(pl.Phases) {
			return badUsage("--phase: %d, plan %s has phases 0..%d", s.Phase, pl.ID, len(pl.Phases)-1)
		}
	}
	if s.StatePath == "" {
		s.StatePath = "packer-" + pl.ID + ".state.json"
	}
	if s.Resume && !s.DryRun {
		if _, err := os.Stat(s.StatePath); err != nil {
			return badUsage("--resume: no state file %s to resume from (--state names it)", s.StatePath)
		}
	}
	hs, err := xenlibvirt.Connect(pl, inv, connector)
	if err != nil {
		return err
	}
	defer hs.Close()
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first signal, packer tears the phase down; a second one
		// gets the default action, so a hung host cannot hold packer forever.
		<-ctx.Done()
		stop()
	}()
	if !s.DryRun {
		fmt.Fprintf(c.App.Writer, "applying plan %s (%d phases) to %d hosts; journal %s\n", pl.ID, len(pl.Phases), len(hs.HVs), s.StatePath)
	}
	j, err := xenlibvirt.Apply(ctx, pl, hs, s)
	switch {
	case errors.Is(err, xenlibvirt.ErrDoesNotFit):
		return badInput(fmt.Errorf("%s and %s: %w", c.String("plan"), c.String("inventory"), err))
	case errors.Is(err, xenlibvirt.ErrStateExists):
		return badInput(err)
	case err != nil:
		if j != nil {
			return fmt.Errorf("apply: %w (journal: %s; packer status --state %s)", err, s.StatePath, s.StatePath)
		}
		return fmt.Errorf("apply: %w", err)
	}
	if j != nil {
		fmt.Fprintf(c.App.Writer, "plan %s: %s; %d VMs run, none left (journal %s)\n", pl.ID, j.Status, len(j.VMs), s.StatePath)
	}
	return nil
}
