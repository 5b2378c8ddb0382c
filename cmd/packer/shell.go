package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/shell"
)

var versionCommand = &cli.Command{
	Name:   "version",
	Usage:  "print packer's version and the commit it was built from (also: packer --version)",
	Action: func(c *cli.Context) error { cli.ShowVersion(c); return nil },
}

var completionCommand = &cli.Command{
	Name:        "completion",
	Usage:       "print the shell completion script for bash, zsh or fish",
	ArgsUsage:   "bash|zsh|fish",
	Description: "Load it in the running shell with source <(packer completion bash), or save it where\nthe shell looks for completions (fish: packer completion fish > ~/.config/fish/completions/packer.fish).",
	Action: func(c *cli.Context) error {
		script, err := shell.Completion(c.Args().First(), c.App.Name, c.App.ToFishCompletion)
		if err != nil {
			return badUsage("completion: %v", err)
		}
		_, err = io.WriteString(c.App.Writer, script)
		return err
	},
}
