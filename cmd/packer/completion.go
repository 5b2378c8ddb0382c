package main

import (
	"slices"

	"github.com/urfave/cli/v2"
)

// completionFlag is urfave/cli's hidden flag that the bash and zsh scripts
// append to the words typed so far: packer then prints the words that may
// come next, and must do nothing else.
const completionFlag = "--generate-bash-completion"

// completing reports whether args (args[0] the program's name) ask for
// completions rather than for work.
func completing(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == completionFlag
}

// complete prints the completions for args and acts on nothing, whatever the
// line. After "--" the words are those of the command profile runs: packer
// offers none (the shell falls back to file names), where urfave/cli would
// take the flag for an argument and run the command line. Before it, every
// action is disarmed, so that a path through urfave/cli that reaches an
// action in completion mode prints nothing instead of acting.
func complete(app *cli.App, args []string) error {
	if slices.Contains(args[1:len(args)-1], "--") {
		return nil
	}
	disarm(app)
	return app.Run(args)
}

// disarm gives the app copies of its commands whose actions do nothing and
// which have no Before or After hooks, and does the same to the app itself.
// The commands are copied, not changed: they are shared by every app newApp
// builds, and a test that completes a line must leave them able to act.
func disarm(app *cli.App) {
	app.Action, app.Before, app.After = nothing, nil, nil
	app.Commands = disarmed(app.Commands)
}

// disarmed returns copies of cmds, and of their subcommands, that do nothing.
// urfave/cli's help command, which acts only by printing, is kept as it is.
func disarmed(cmds []*cli.Command) []*cli.Command {
	out := make([]*cli.Command, len(cmds))
	for i, c := range cmds {
		if c.Name == "help" {
			out[i] = c
			continue
		}
		cp := *c
		cp.Action, cp.Before, cp.After = nothing, nil, nil
		cp.Subcommands = disarmed(c.Subcommands)
		out[i] = &cp
	}
	return out
}

func nothing(*cli.Context) error { return nil }
