package shell

import (
	"io"

	"github.com/urfave/cli/v2"
)

// Commands are the commands about packer itself rather than about plans:
// version and completion. A bad argument is a cli.Exit error with code 2.
func Commands() []*cli.Command {
	return []*cli.Command{
		{
			Name:   "version",
			Usage:  "print packer's version and the commit it was built from (also: packer --version)",
			Action: func(c *cli.Context) error { cli.ShowVersion(c); return nil },
		},
		{
			Name:      "completion",
			Usage:     "print the shell completion script for bash, zsh or fish",
			ArgsUsage: "bash|zsh|fish",
			Description: "Load it in the running shell with source <(packer completion bash), or save it where the shell\n" +
				"looks for completions (fish: packer completion fish > ~/.config/fish/completions/packer.fish).",
			Action: completionAction,
		},
	}
}

func completionAction(c *cli.Context) error {
	script, err := Completion(c.Args().First(), c.App.Name, c.App.ToFishCompletion)
	if err != nil {
		return cli.Exit("completion: "+err.Error(), 2)
	}
	_, err = io.WriteString(c.App.Writer, script)
	return err
}
