// Package plantest makes plan documents for other packages' tests: sim,
// chart and xenlibvirt read plans but must not import the solvers, so their
// tests get plans from here. Tests only.
package plantest

import (
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
)

// Pair plans w on c with the packing paper's pair scheduler, as the plan
// document packer plan -a pair writes (without its notes), and fails the
// test on any error.
func Pair(t testing.TB, w *model.Workload, c model.Cluster) *plan.Plan {
	t.Helper()
	p, err := model.NewProblem(w, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := optimize.NewSolution(p, res.Schedule, "pair")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.New(p, w.Name, sol)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}
