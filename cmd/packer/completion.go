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

// disarm replaces the app's and every command's action by one that does
// nothing, and drops their Before and After hooks.
func disarm(app *cli.App) {
	app.Action, app.Before, app.After = nothing, nil, nil
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.Action, c.Before, c.After = nothing, nil, nil
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

func nothing(*cli.Context) error { return nil }
