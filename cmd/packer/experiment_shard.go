package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/experiments"
)

// writeExperimentShard writes a shard's results to --out DIR.
func writeExperimentShard(c *cli.Context, f experiments.ShardFile) error {
	path, err := experiments.WriteShard(c.String("out"), f)
	if err != nil {
		return badInput(fmt.Errorf("--out: %w", err))
	}
	fmt.Fprintf(c.App.ErrWriter, "experiment: shard %d/%d ran %d of %d experiments; results in %s\n",
		f.Shard, f.Shards, len(f.Results), len(f.Selection), path)
	return nil
}

// experimentMerge prints a sharded run's results from its shards' files,
// as the run without shards prints them.
func experimentMerge(c *cli.Context) error {
	if c.NArg() != 1 {
		return badUsage("experiment merge takes one directory, got %d arguments", c.NArg())
	}
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	files, err := experiments.ReadShards(c.Args().First())
	if err != nil {
		return badInput(err)
	}
	results, err := experiments.Merge(files)
	if err != nil {
		return badInput(err)
	}
	return printExperimentResults(c, format, results)
}
