package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
)

// planMaxMemoryFlag bounds the memory plan's solver may plan to hold.
var planMaxMemoryFlag = &cli.Int64Flag{Name: "max-memory", Value: memoryBudget.Bytes >> 20,
	Usage: "refuse, before allocating, a problem whose solver tables are estimated to need more than `MiB` (default: " + memoryBudget.Source + "; 0: no limit)"}

// planMemory is the memory limit for the solver and what set it: --max-memory
// when given, else memoryBudget (also for compare, which has no flag).
func planMemory(c *cli.Context) (int64, string, error) {
	if !c.IsSet("max-memory") {
		return memoryBudget.Bytes, memoryBudget.Source, nil
	}
	b, err := maxMemoryBytes(c)
	return b, fmt.Sprintf("--max-memory %d MiB", c.Int64("max-memory")), err
}

// planSignals is plan's handling of SIGINT and SIGTERM (plan is in
// ownSignals): the first ends the search (done, optimize.Settings.Interrupt)
// and is remembered, so that plan still checks and writes the best plan so
// far before it exits with 128 + the signal's number; a second removes the
// outputs being written and exits at once, for a user who will not wait.
type planSignals struct {
	ctx    context.Context // done at the first signal
	cancel context.CancelFunc
	got    atomic.Value // os.Signal, stored before ctx is cancelled
	sigs   chan os.Signal
}

// planSignalsKey holds the *planSignals in the command's context, where
// makePlan finds it.
type planSignalsKey struct{}

// catchPlanSignals starts the handling, with one registration for both
// signals: the first is recorded, then ps.ctx (a child of parent) is
// cancelled, so whoever sees it done finds which signal it was; a second is
// handled at once.
func catchPlanSignals(parent context.Context) *planSignals {
	ps := &planSignals{sigs: make(chan os.Signal, 2)}
	ps.ctx, ps.cancel = context.WithCancel(parent)
	signal.Notify(ps.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		first := true
		for sig := range ps.sigs {
			if first {
				first = false
				ps.got.Store(sig)
				ps.cancel()
				continue
			}
			safefile.RemoveTemps()
			fmt.Fprintf(os.Stderr, "packer: plan: stopped by a second %s; unfinished outputs removed\n", signalName(sig))
			os.Exit(128 + int(sig.(syscall.Signal)))
		}
	}()
	return ps
}

// planSignalsOf is the handling planAction put in c, or nil.
func planSignalsOf(c *cli.Context) *planSignals {
	if c.Context == nil {
		return nil
	}
	ps, _ := c.Context.Value(planSignalsKey{}).(*planSignals)
	return ps
}

func (ps *planSignals) stop() {
	signal.Stop(ps.sigs)
	close(ps.sigs)
	ps.cancel()
}

// signalled is the first signal caught, or nil: the signal is recorded
// before the context is cancelled, so it is there once the context is done.
func (ps *planSignals) signalled() os.Signal {
	if ps == nil {
		return nil
	}
	sig, _ := ps.got.Load().(os.Signal)
	return sig
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// interrupt is the channel optimize.Settings.Interrupt reads, nil without
// handling (compare).
func (ps *planSignals) interrupt() <-chan struct{} {
	if ps == nil {
		return nil
	}
	return ps.ctx.Done()
}

// interruptedExit is plan's ending after a signal: the plan (pl, checked
// again with plan.Verify) is written and printed, and packer exits with
// 128 + the signal's number, 130 for SIGINT and 143 for SIGTERM.
func interruptedExit(sig os.Signal, pl *plan.Plan, wrote string) error {
	what := "the plan was complete when it came"
	if pl.Interrupted {
		what = "the plan is the best found so far"
	}
	if wrote != "" {
		what += ", written to " + wrote
	}
	return cli.Exit(fmt.Sprintf("packer: plan: interrupted by %s: %s", signalName(sig), what), 128+int(sig.(syscall.Signal)))
}

// solveError maps the solver's refusals of what memory cannot hold
// (optimize.ErrOutOfMemory, optimize.ErrTooLarge) to exit 2 with their
// one line.
func solveError(err error) error {
	if errors.Is(err, optimize.ErrOutOfMemory) || errors.Is(err, optimize.ErrTooLarge) {
		return badInput(err)
	}
	return err
}
