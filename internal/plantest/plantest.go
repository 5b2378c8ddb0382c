// Package plantest makes plan documents for other packages' tests: sim,
// chart and xenlibvirt read plans but must not import the solvers, so their
// tests get plans from here. Tests only.
package plantest

import (
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/workloads"
)

// Make plans w on c with method (optimize.Solve), as packer plan -a method
// writes it, and fails the test on any error.
func Make(t testing.TB, w *model.Workload, c model.Cluster, method optimize.Method) *plan.Plan {
	t.Helper()
	p, err := model.NewProblem(w, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.Solve(p, method, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.New(p, w.Name, res.Solution)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// Pair is Make with the packing paper's pair scheduler.
func Pair(t testing.TB, w *model.Workload, c model.Cluster) *plan.Plan {
	t.Helper()
	return Make(t, w, c, optimize.MethodPair)
}

// Sequential is Make with every job alone on all of c, one after another.
func Sequential(t testing.TB, w *model.Workload, c model.Cluster) *plan.Plan {
	t.Helper()
	return Make(t, w, c, optimize.MethodSequential)
}

// PaperPair plans the built-in workload named (workloads.Get) with the pair
// scheduler on hosts paper hosts (model.PaperCluster: 4 cores, 8192 MiB,
// k = r = 2).
func PaperPair(t testing.TB, workload string, hosts int) *plan.Plan {
	t.Helper()
	w, err := workloads.Get(workload)
	if err != nil {
		t.Fatal(err)
	}
	c := model.PaperCluster()
	c.Hosts = hosts
	return Pair(t, w, c)
}
