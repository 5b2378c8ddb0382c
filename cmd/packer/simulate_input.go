package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads"
	"github.com/packer-sched/packer/workloads/traces"
	"github.com/urfave/cli/v2"
)

// The inputs of packer simulate: the workload (a simulation workload file, a
// packer workload or built-in name, or a plan's jobs), the cluster flags laid
// over it, and the plan replays' workload.

// simWorkload reads --workload: a simulation workload file is used as it is;
// a packer workload file or built-in name (or, with --plan and no
// --workload, the plan's jobs) is converted with FromModel. It returns the
// simulation workload and, for packer workloads, the job models.
func simWorkload(c *cli.Context, pl *plan.Plan) (*sim.Workload, *model.Workload, error) {
	name := c.String("workload")
	var mw *model.Workload
	var w *sim.Workload
	switch {
	case name == "" && pl != nil:
		mw = &model.Workload{Name: pl.Workload, Jobs: pl.Jobs}
	case name == "":
		name = workloads.Default
		fallthrough
	default:
		var builtin bool
		var err error
		w, mw, builtin, err = traces.OpenForSimulation(name, c.App.Reader)
		if err != nil && builtin {
			return nil, nil, badInput(fmt.Errorf("--workload: %w; or give a workload file path", err))
		} else if err != nil {
			return nil, nil, badInput(err)
		}
	}
	if w == nil {
		cl := sim.Cluster{}
		if pl != nil {
			cl.Nodes = pl.Cluster.PrimaryVMs
		}
		var err error
		if w, err = sim.FromModel(mw, clusterOverrides(c, cl), c.Int("waves")); err != nil {
			return nil, nil, badInput(fmt.Errorf("%s%s: %w", c.String("workload"), overrideNote(c), err))
		}
		return w, mw, nil
	}
	w.Cluster = clusterOverrides(c, w.Cluster)
	if err := w.Validate(); err != nil {
		return nil, nil, badInput(fmt.Errorf("%s%s: %w", c.String("workload"), overrideNote(c), err))
	}
	return w, nil, nil
}

// overrideNote names the cluster flags given, for errors that may come from
// them rather than from the file.
func overrideNote(c *cli.Context) string {
	var set []string
	for _, f := range []string{"nodes", "racks", "map-slots", "reduce-slots", "replication"} {
		if c.IsSet(f) {
			set = append(set, fmt.Sprintf("--%s %d", f, c.Int(f)))
		}
	}
	if len(set) == 0 {
		return ""
	}
	return " with " + strings.Join(set, ", ")
}

// clusterOverrides applies the cluster flags that are set.
func clusterOverrides(c *cli.Context, cl sim.Cluster) sim.Cluster {
	for flag, dst := range map[string]*int{"nodes": &cl.Nodes, "racks": &cl.Racks, "map-slots": &cl.MapSlots,
		"reduce-slots": &cl.ReduceSlots, "replication": &cl.Replication} {
		if c.IsSet(flag) {
			*dst = c.Int(flag)
		}
	}
	return cl
}

// planWorkload is what the plan replays run: a simulation workload's own
// tasks, or packer jobs sized by their plan VM counts, whose names must be
// the plan's.
func planWorkload(c *cli.Context, base *sim.Workload, jobs *model.Workload, pl *plan.Plan) (*sim.Workload, error) {
	if jobs == nil {
		return base, nil
	}
	var have, want []string
	for _, j := range jobs.Jobs {
		have = append(have, j.Name)
	}
	for _, j := range pl.Jobs {
		want = append(want, j.Name)
	}
	slices.Sort(have)
	slices.Sort(want)
	if !slices.Equal(have, want) {
		return nil, badInput(fmt.Errorf("--plan %s: %w: its jobs are not workload %s's", c.String("plan"), sim.ErrPlanMismatch, jobs.Name))
	}
	w, err := sim.PlanWorkload(pl, base.Cluster, c.Int("waves"))
	if err != nil {
		return nil, badInput(err)
	}
	return w, nil
}

// planReplay builds the plan replays of --plan on the plan's workload
// (planWorkload), naming the plan file in their errors.
func planReplay(c *cli.Context, base *sim.Workload, jobs *model.Workload, pl *plan.Plan) (func(bool) (*sim.Workload, sim.Policy, error), error) {
	planBase, err := planWorkload(c, base, jobs, pl)
	if err != nil {
		return nil, err
	}
	return func(barrier bool) (*sim.Workload, sim.Policy, error) {
		w, p, err := sim.ReplayPlan(pl, planBase, barrier)
		if err != nil {
			return nil, nil, badInput(fmt.Errorf("--plan %s: %w", c.String("plan"), err))
		}
		return w, p, nil
	}, nil
}
