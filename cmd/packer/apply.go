package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/progress"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
)

// connector opens hosts for apply, hosts check and destroy; tests replace it
// with simulated hosts whose connections outlive one command.
var connector = xenlibvirt.Libvirt

var (
	inventoryFlag      = &cli.StringFlag{Name: "inventory", Aliases: []string{"i"}, Usage: "inventory `FILE` (JSON): hosts, libvirt URIs, disks, appliance image", Required: true}
	stateFlag          = &cli.StringFlag{Name: "state", Usage: "journal `FILE`, written before and after every change to a host (default: packer-<plan id>.state.json)"}
	autoApproveFlag    = &cli.BoolFlag{Name: "auto-approve", Usage: "act without asking (needed when stdin is not a terminal)"}
	connectTimeoutFlag = &cli.DurationFlag{Name: "connect-timeout", Value: xenlibvirt.DefaultConnectTimeout, Usage: "give up on a host whose libvirt has not answered a connection after `D`"}
)

// hostsConnector is connector with the --connect-timeout of the command.
func hostsConnector(c *cli.Context) (xenlibvirt.Connector, error) {
	if err := xenlibvirt.Available(); err != nil {
		return nil, err
	}
	d := c.Duration("connect-timeout")
	if d <= 0 {
		return nil, badUsage("--connect-timeout: %v, want a positive duration", d)
	}
	return xenlibvirt.WithTimeout(connector, d), nil
}

// stdinIsTerminal reports whether packer may ask its user; tests replace it.
var stdinIsTerminal = func(r io.Reader) bool {
	return progress.IsTerminal(r)
}

// approve shows what a command is about to do and asks on a terminal, as
// Terraform does; --auto-approve skips the question, and without a terminal
// to ask on the command refuses rather than act unasked.
func approve(c *cli.Context, what string) error {
	w := c.App.Writer
	fmt.Fprintln(w, what)
	if c.Bool("auto-approve") {
		return nil
	}
	if !stdinIsTerminal(c.App.Reader) {
		return badUsage("%s: not asking without a terminal; run it with --auto-approve", c.Command.FullName())
	}
	fmt.Fprint(w, "Only 'yes' goes on: ")
	answer, _ := bufio.NewReader(c.App.Reader).ReadString('\n')
	if strings.TrimSpace(answer) != "yes" {
		return cli.Exit(fmt.Sprintf("packer: %s: cancelled, nothing changed", c.Command.FullName()), exitFailure)
	}
	return nil
}

var applyCommand = &cli.Command{
	Name:  "apply",
	Usage: "deploy a plan's VMs through libvirt, phase by phase, and tear each phase down when its jobs are done",
	Description: "Checks the plan against the inventory and what every host's libvirt reports (hosts, cores,\n" +
		"memory, disks, image) before touching anything; then, per phase, creates each VM's\n" +
		"copy-on-write disk on its assigned physical disk, defines and starts the phase's VMs, waits\n" +
		"for libvirt lifecycle events saying every VM powered off (the appliance runs its job and\n" +
		"powers off), and destroys, undefines and deletes them. Every change to a host is journaled to\n" +
		"--state before it is made and once made. On failure or SIGINT/SIGTERM the phase in flight is\n" +
		"torn down (unless --keep-on-interrupt) and packer exits 1; --resume continues from the failed\n" +
		"phase. packer only touches domains carrying its metadata for this plan, and disks it created.\n" +
		"Phases are numbered from 1, as packer plan prints them. apply says what it will do and asks\n" +
		"first; --auto-approve does not ask (and is needed without a terminal).",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "plan", Usage: "plan document `FILE` (from packer plan --output)", Required: true},
		inventoryFlag,
		stateFlag,
		&cli.BoolFlag{Name: "dry-run", Usage: "print the domain XML and every action; change nothing"},
		&cli.IntFlag{Name: "phase", Usage: "apply only phase `N` (from 1, as packer plan prints them: deploy, wait, tear down) and return"},
		&cli.BoolFlag{Name: "resume", Usage: "continue the journal in --state: clear what the last run left, go on from the first phase not done"},
		&cli.DurationFlag{Name: "phase-timeout", Usage: "fail a phase whose VMs are not all powered off after `D` (default: 2 × the phase's predicted length + --boot-allowance; 0: wait for ever)"},
		&cli.DurationFlag{Name: "boot-allowance", Value: xenlibvirt.DefaultBootAllowance, Usage: "what the default phase timeout adds to twice the phase's predicted length, for booting and powering off"},
		&cli.IntFlag{Name: "parallel", Value: 4, Usage: "create and start at most `N` VMs at once, across hosts"},
		&cli.BoolFlag{Name: "keep-on-interrupt", Usage: "on SIGINT/SIGTERM leave the phase in flight running (journaled; packer destroy removes it)"},
		&cli.BoolFlag{Name: "keep-on-failure", Usage: "leave the VMs of a failed or timed-out phase in place for inspection (journaled; packer destroy removes them)"},
		autoApproveFlag,
		connectTimeoutFlag,
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
		BootAllowance:   c.Duration("boot-allowance"),
		Resume:          c.Bool("resume"),
		KeepOnInterrupt: c.Bool("keep-on-interrupt"),
		KeepOnFailure:   c.Bool("keep-on-failure"),
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
	if c.IsSet("phase-timeout") && s.PhaseTimeout == 0 {
		s.PhaseTimeout = xenlibvirt.NoPhaseTimeout
	}
	if s.BootAllowance <= 0 {
		return badUsage("--boot-allowance: %v, want a positive duration", s.BootAllowance)
	}
	if c.IsSet("phase") {
		n := c.Int("phase")
		if n < 1 || n > len(pl.Phases) {
			return badUsage("--phase: %d, plan %s has phases 1..%d", n, pl.ID, len(pl.Phases))
		}
		s.OnePhase, s.Phase = true, n-1 // the library counts as the plan document does
	}
	if s.StatePath == "" {
		s.StatePath = xenlibvirt.StateFileName(pl.ID)
	}
	if err := checkStatePath(s.StatePath); err != nil {
		return err
	}
	s.RunDir = xenlibvirt.RunDir(s.StatePath)
	if s.Resume && !s.DryRun {
		if _, err := os.Stat(s.StatePath); err != nil {
			return badUsage("--resume: no state file %s to resume from (--state names it)", s.StatePath)
		}
	}
	conn, err := hostsConnector(c)
	if err != nil {
		return err
	}
	hs, err := xenlibvirt.Connect(pl, inv, conn)
	if err != nil {
		return err
	}
	defer hs.Close()
	if !s.DryRun {
		// Ask only about a plan that fits: apply checks again, changing nothing first.
		if err := xenlibvirt.CheckError(xenlibvirt.Check(pl, inv, hs.Facts)); err != nil {
			return badInput(fmt.Errorf("%s and %s: %w", c.String("plan"), c.String("inventory"), err))
		}
		if err := approve(c, xenlibvirt.Summary(pl, inv, s)); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first signal, packer tears the phase down; a second one
		// gets the default action, so a hung host cannot hold packer forever.
		<-ctx.Done()
		stop()
	}()
	j, err := xenlibvirt.Apply(ctx, pl, hs, s)
	if j != nil && !s.DryRun {
		printRunRecord(c.App.Writer, pl, j, s.RunDir)
	}
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

// printRunRecord prints what the run measured beside what the plan
// predicted, and where the record, the observations and the consoles are.
func printRunRecord(w io.Writer, pl *plan.Plan, j *xenlibvirt.Journal, dir string) {
	fmt.Fprintln(w, "\npredicted against measured (seconds; measured: the jobs' commands as the guests timed them, wall: boots included):")
	_ = xenlibvirt.NewRunRecord(pl, j).WriteTable(w)
	fmt.Fprintf(w, "run record %s, observations for packer fit %s, consoles %s\n",
		filepath.Join(dir, xenlibvirt.RunRecordFile), filepath.Join(dir, xenlibvirt.ObservationsFile), filepath.Join(dir, "console"))
}
