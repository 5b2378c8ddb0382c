package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/shell"
	"github.com/packer-sched/packer/model"
)

// Exit codes: 0 success, 1 a failure of the work itself, 2 bad usage or input.
const (
	exitFailure = 1
	exitUsage   = 2
)

// newApp builds the command tree. Commands live one to a file, each exporting
// a *cli.Command; tests build the app with their own writers.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "packer",
		Usage: "plan, check and apply the placement of batch job sets onto a cluster of VMs",
		Description: "packer decides which Hadoop jobs run together in which phase, on how many VMs, and on\n" +
			"which host and disk every VM sits, to minimise the makespan (pair scheduler, phase model and\n" +
			"CPU overcommit from Aboulnaga et al., \"Packing the Most Onto Your Cloud\", CloudDB 2009). `packer plan` with no arguments plans the built-in workload W1.",
		Version:              shell.Version(),
		EnableBashCompletion: true,
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		Commands: append([]*cli.Command{
			planCommand,
			sizeCommand,
			benchCommand,
			workloadsCommand,
			simulateCommand,
			profileCommand,
			fitCommand,
			reportCommand,
			compareCommand,
			experimentCommand,
			applyCommand,
			hostsCommand,
			statusCommand,
			destroyCommand,
		}, shell.Commands()...),
		HideHelpCommand: false,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run decides the exit code
	}
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors makes every command report a flag error as one line and exit
// code 2, instead of urfave/cli's default of printing the whole help first.
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		name := c.Name
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return usageError{fmt.Errorf("%s: %w (see: packer %s --help)", name, err, name)}
		}
		setUsageErrors(c.Subcommands)
	}
}

// run executes packer with the given arguments and returns its exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &shell.Writer{W: stdout}
	if completing(args) {
		if complete(newApp(stdin, out, stderr), args) != nil || out.Err() != nil {
			return exitFailure // the scripts show no error: no words offered
		}
		return 0
	}
	err := newApp(stdin, out, stderr).Run(args)
	if out.Err() != nil { // commands' prints do not check their errors
		err = out.Err()
	}
	if err == nil {
		return 0
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "packer") {
		msg = "packer: " + msg
	}
	fmt.Fprintln(stderr, msg)
	return exitCode(err)
}

// usageError marks bad usage or input: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// badInput wraps an error about the user's input so that packer exits with 2.
func badInput(err error) error { return usageError{err} }

// badUsage formats a usage error.
func badUsage(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func exitCode(err error) int {
	var u usageError
	var in *model.InputError
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &u), errors.As(err, &in), errors.Is(err, model.ErrInvalidWorkload):
		return exitUsage
	case errors.As(err, &ec):
		return ec.ExitCode()
	case strings.Contains(err.Error(), "flag provided but not defined"),
		strings.HasPrefix(err.Error(), "invalid value"),
		strings.HasPrefix(err.Error(), "Required flag"):
		return exitUsage
	}
	return exitFailure
}
