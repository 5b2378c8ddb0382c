package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
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
			sweepCommand,
			applyCommand,
			hostsCommand,
			statusCommand,
			destroyCommand,
		}, shell.Commands()...),
		HideHelpCommand: false,
		Action:          rootAction,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run decides the exit code
	}
	setUsageErrors(app.Commands, "")
	setEmptyFileChecks(app.Commands, "")
	setSubcommandActions(app.Commands)
	return app
}

// Identity is what `packer --version` says packer is besides its version:
// HashiCorp's Packer, a different program, is installed as packer on many
// machines this one is used on.
const Identity = "the job-placement planner for Hadoop job sets on VMs (github.com/packer-sched/packer), not HashiCorp Packer"

func init() {
	cli.FlagStringer = shell.FlagHelp
	cli.VersionPrinter = func(c *cli.Context) {
		fmt.Fprintf(c.App.Writer, "%s version %s: %s\n", c.App.Name, c.App.Version, Identity)
	}
}

// rootAction shows the help for a bare `packer`, and refuses a first word
// that names no command: exit code 2 and the nearest command's name, where
// urfave/cli would look for a help topic and exit 3.
func rootAction(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowAppHelp(c)
	}
	return unknownCommand("command", c.Args().First(), c.App.Commands)
}

// setSubcommandActions gives every command that only groups subcommands
// (hosts, experiment) an action: without a subcommand, its help on standard
// error and exit code 2, as a bare `git remote add` does; with a word that
// names none, one line and exit code 2.
func setSubcommandActions(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.Name == "help" { // urfave/cli's: an action of its own
			continue
		}
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = subcommandAction
		}
		setSubcommandActions(c.Subcommands)
	}
}

func subcommandAction(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c.Command.Name+" subcommand", c.Args().First(), c.Command.Subcommands)
	}
	cli.HelpPrinter(c.App.ErrWriter, cli.SubcommandHelpTemplate, c.Command)
	return badUsage("%s: name a subcommand: %s", c.Command.Name, strings.Join(commandNames(c.Command.Subcommands), ", "))
}

// unknownCommand is the error for name, which names none of cmds: exit code
// 2, naming the nearest command if one is close.
func unknownCommand(what, name string, cmds []*cli.Command) error {
	if near := model.NearestName(name, commandNames(cmds)); near != "" {
		return badUsage("unknown %s %q (did you mean %s?)", what, name, near)
	}
	return badUsage("unknown %s %q (want one of %s)", what, name, strings.Join(commandNames(cmds), ", "))
}

// noHelpTopic recognises urfave/cli's refusal of `packer help NAME` (and
// `packer hosts help NAME`) for a NAME that names no command, exit code 3,
// and returns NAME.
func noHelpTopic(err error) (string, bool) {
	var ec cli.ExitCoder
	if !errors.As(err, &ec) || ec.ExitCode() != 3 {
		return "", false
	}
	rest, ok := strings.CutPrefix(err.Error(), "No help topic for '")
	if !ok {
		return "", false
	}
	topic, _, ok := strings.Cut(rest, "'")
	return topic, ok
}

// allCommands lists cmds and their subcommands, depth first, without
// urfave/cli's help command (which, once run, is among its own
// subcommands).
func allCommands(cmds []*cli.Command) []*cli.Command {
	var all []*cli.Command
	for _, c := range cmds {
		if c.Name != "help" {
			all = append(append(all, c), allCommands(c.Subcommands)...)
		}
	}
	return all
}

// commandNames lists the names of the visible commands, without urfave/cli's
// help command.
func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	return names
}

// setUsageErrors makes every command report a flag error as one line and exit
// code 2, instead of urfave/cli's default of printing the whole help first;
// the line names the command as typed after parent (workloads import).
func setUsageErrors(cmds []*cli.Command, parent string) {
	for _, c := range cmds {
		name := strings.TrimSpace(parent + " " + c.Name)
		flags := c.Flags
		c.OnUsageError = func(ctx *cli.Context, err error, _ bool) error {
			if err := shell.BadDuration(flags, err); err != nil {
				return usageError{err}
			}
			// The program's name as run (jpacker, beside HashiCorp's packer).
			return usageError{fmt.Errorf("%s: %w (see: %s %s --help)", name, err, ctx.App.Name, name)}
		}
		if name != "help" { // urfave/cli's, which, once run, may be its own subcommand
			setUsageErrors(c.Subcommands, name)
		}
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
	app := newApp(stdin, out, stderr)
	if name := invokedAs(args[0]); name != "" {
		app.Name = name // help, completion and --version name the program so
	}
	// Flags after a command's arguments are its flags too (shell.NormalArgs).
	args, cmd := shell.NormalArgs(app, args)
	if cmd != nil {
		if v, _ := shell.FlagValue(cmd, args, "output"); v == "-" {
			// The document alone on standard output; the report beside it
			// goes to standard error, unless it is the same document again
			// (--format json).
			app.Writer = stderr
			if f, _ := shell.FlagValue(cmd, args, "format"); f == "json" {
				app.Writer = io.Discard
			}
			defer setDashOutput(out)()
		}
	}
	err := app.Run(args)
	if topic, ok := noHelpTopic(err); ok {
		err = unknownCommand("command", topic, allCommands(app.Commands))
	}
	if out.Err() != nil { // commands' prints do not check their errors
		err = out.Err()
	}
	if err == nil {
		return 0
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "packer") && !strings.HasPrefix(msg, app.Name) {
		msg = app.Name + ": " + msg
	}
	fmt.Fprintln(stderr, msg)
	return exitCode(err)
}

// invokedAs is the name packer was installed under when it is not packer
// (beside HashiCorp's packer, as jpacker, say), else "": a go test binary
// (*.test) keeps the name packer.
func invokedAs(arg0 string) string {
	base := filepath.Base(arg0)
	if base == "packer" || base == "." || base == "/" || strings.HasSuffix(base, ".test") || strings.TrimSpace(base) == "" {
		return ""
	}
	return base
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
