package optimize_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/pso"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads"
)

// replayMakespan replays pl task by task in sim, with the barrier between
// phases and task times that follow the models exactly (sim.PlanWorkload):
// each job takes F(n), or alpha·F(n) where its machines are overcommitted.
func replayMakespan(t *testing.T, pl *plan.Plan) float64 {
	t.Helper()
	w, err := sim.PlanWorkload(pl, sim.Cluster{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	rw, pol, err := sim.ReplayPlan(pl, w, true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(rw, pol, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.Makespan
}

// replayMethods are the methods whose plans the replay property covers.
var replayMethods = optimize.Methods()

// TestPlansReplayToTheirMakespan: every plan any method emits, on random
// clusters with k ∈ 1..4 and r ≤ k, replays in sim (barrier) to the makespan
// the plan predicts, within 1e-9 relative. It fails when a placement puts a
// VM where it runs at another speed than it is priced at: a primary VM beside
// an extra (alpha slower than priced) or a host VM on a machine without one
// (faster).
func TestPlansReplayToTheirMakespan(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	cases := 60
	if testing.Short() {
		cases = 15
	}
	set := &optimize.Settings{Swarm: &pso.Settings{Particles: 40, Iterations: 10, Seed: 1}, ExactJobs: 8}
	for i := range cases {
		k := 1 + i%4
		c := model.Cluster{Hosts: 1 + rng.IntN(5), DisksPerHost: k, ExtraRatio: 1 + rng.IntN(k), Alpha: 1 + rng.Float64()}.WithDefaults()
		w := optimize.RandomWorkload(uint64(1000+i), 2+rng.IntN(7))
		p, err := model.NewProblem(w, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range replayMethods {
			t.Run(fmt.Sprintf("case%d/P%dk%dr%d/%s", i, c.Hosts, k, c.ExtraRatio, m), func(t *testing.T) {
				checkReplay(t, p, w.Name, m, set)
			})
		}
	}
}

func checkReplay(t *testing.T, p *model.Problem, name string, m optimize.Method, set *optimize.Settings) {
	t.Helper()
	res, err := optimize.Solve(p, m, set)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.New(p, name, res.Solution)
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Verify(); err != nil {
		t.Fatal(err)
	}
	if got := replayMakespan(t, pl); math.Abs(got-pl.Makespan) > 1e-9*pl.Makespan {
		t.Errorf("replay makespan %v, plan %v", got, pl.Makespan)
	}
}

// TestW3FourDisksReplays is the case that showed the mismatch: W3 on 4 hosts
// × 4 disks (r = 2). Its plan put primary VMs beside extra VMs and predicted
// 1444 s; the replay, where they run alpha slower, took 1822 s.
func TestW3FourDisksReplays(t *testing.T) {
	w, err := workloads.Get("W3")
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.NewProblem(w, model.Cluster{Hosts: 4, DisksPerHost: 4}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []optimize.Method{optimize.MethodAuto, optimize.MethodPair} {
		checkReplay(t, p, w.Name, m, nil)
	}
}
