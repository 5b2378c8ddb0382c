package chart

import (
	"testing"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
)

// manyJobsPlan is the pair plan of 60 random jobs on 9 paper hosts: more jobs
// than any palette has colours, many of them on bars too narrow to name.
func manyJobsPlan(t testing.TB) *plan.Plan {
	t.Helper()
	c := model.PaperCluster()
	c.Hosts = 9
	return plantest.Pair(t, optimize.RandomWorkload(1, 60), c)
}

// ninePolicies runs 12 random jobs under nine built-in policies (the first
// nine of sim.BuiltinPolicies that need no plan), as packer simulate -p does.
func ninePolicies(t testing.TB) []*sim.Result {
	t.Helper()
	var names []string
	for _, p := range sim.BuiltinPolicies {
		if !p.Replay && len(names) < 9 {
			names = append(names, p.Name)
		}
	}
	entries, err := sim.ParsePolicies(names, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sim.FromModel(optimize.RandomWorkload(2, 12), sim.Cluster{Nodes: 6}, 2)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := sim.Compare(&sim.Comparison{Workload: w, Entries: entries, Settings: sim.Settings{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*sim.Result, len(runs))
	for i, r := range runs {
		out[i] = r.Result
	}
	return out
}
