package sim_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads"
)

func pairPlan(t testing.TB, w *model.Workload, c model.Cluster) *plan.Plan {
	t.Helper()
	return plantest.Pair(t, w, c)
}

// replay runs pl's own jobs (sized by sim.PlanWorkload) under PlanReplay and
// returns the makespan and the longest task (alpha included).
func replay(t testing.TB, pl *plan.Plan, barrier bool, waves int) (makespan, longest float64) {
	t.Helper()
	w, err := sim.PlanWorkload(pl, sim.Cluster{}, waves)
	if err != nil {
		t.Fatal(err)
	}
	rw, p, err := sim.ReplayPlan(pl, w, barrier)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(rw, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range rw.Jobs {
		longest = max(longest, j.Maps.Mean*pl.Cluster.Alpha)
	}
	return r.Makespan, longest
}

// TestPlanReplayBuiltins: with task times that follow the models exactly
// (each job waves·n·S tasks of F(n)/waves on its n VMs), replaying the pair
// scheduler's plan of every built-in workload with the barrier reproduces the
// plan's makespan: to a relative 1e-9 (floating-point sums), well within the
// acceptance bound of one task length. Without the barrier it is never slower.
func TestPlanReplayBuiltins(t *testing.T) {
	for _, name := range workloads.Names() {
		w, err := workloads.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		pl := pairPlan(t, w, model.PaperCluster())
		for _, waves := range []int{1, 4} {
			b, longest := replay(t, pl, true, waves)
			nb, _ := replay(t, pl, false, waves)
			if math.Abs(b-pl.Makespan) > 1e-9*pl.Makespan || math.Abs(b-pl.Makespan) > longest {
				t.Errorf("%s, %d waves: barrier replay makespan %v, plan %v (longest task %v)", name, waves, b, pl.Makespan, longest)
			}
			if nb > b*(1+1e-12) {
				t.Errorf("%s, %d waves: no-barrier makespan %v > barrier %v", name, waves, nb, b)
			}
		}
	}
}

// TestNoBarrierKeepsOvercommittedHostsApart: W5 and W6 plan a b-srt as host
// on all 18 primary VMs with a b-kmns on the 9 extra VMs, on every machine.
// Such a phase's extra VMs are nodes no earlier phase used, but alpha was
// priced for that phase alone on its machines: its jobs must wait for every
// earlier job there, and later jobs for it. Every phase of these plans covers
// every machine, so without the barrier nothing can start early and the
// makespan is the barrier's (a replay that let the extras start at 0 beside
// unslowed primary VMs finished 2 % sooner, a saving that does not exist).
func TestNoBarrierKeepsOvercommittedHostsApart(t *testing.T) {
	for _, name := range []string{"W5", "W6"} {
		w, err := workloads.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		pl := pairPlan(t, w, model.PaperCluster())
		b, _ := replay(t, pl, true, 4)
		nb, _ := replay(t, pl, false, 4)
		if math.Abs(nb-b) > 1e-9*b {
			t.Errorf("%s: no-barrier makespan %v, barrier %v: an overcommitted phase overlapped another", name, nb, b)
		}
	}
}

// TestPlanReplayRandom: the same two properties on random workloads and
// clusters (optimize.RandomWorkload), where plans overcommit in many shapes.
func TestPlanReplayRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	faster := 0
	for i := range 40 {
		k := 1 + rng.IntN(3)
		c := model.Cluster{Hosts: 2 + rng.IntN(6), DisksPerHost: k, ExtraRatio: 1 + rng.IntN(k), Alpha: 1 + rng.Float64()}.WithDefaults()
		w := optimize.RandomWorkload(uint64(i), 2+rng.IntN(7))
		pl := pairPlan(t, w, c)
		b, longest := replay(t, pl, true, 2)
		nb, _ := replay(t, pl, false, 2)
		if math.Abs(b-pl.Makespan) > longest {
			t.Errorf("case %d: barrier makespan %v, plan %v, more than one task (%v) apart", i, b, pl.Makespan, longest)
		}
		if nb > b*(1+1e-12) {
			t.Errorf("case %d: no-barrier makespan %v > barrier %v", i, nb, b)
		}
		if nb < b*(1-1e-9) {
			faster++
		}
	}
	t.Logf("no-barrier strictly faster in %d of 40 plans", faster)
}

// TestPlanReplayMismatch: a plan for more VMs than the cluster has nodes,
// and a workload whose jobs differ from the plan's, are refused.
func TestPlanReplayMismatch(t *testing.T) {
	w, _ := workloads.Get("W1")
	pl := pairPlan(t, w, model.PaperCluster()) // 18 primary VMs
	sw, err := sim.PlanWorkload(pl, sim.Cluster{Nodes: 17}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sim.ReplayPlan(pl, sw, true); !errors.Is(err, sim.ErrPlanMismatch) {
		t.Errorf("17 nodes for an 18-VM plan: error %v, want sim.ErrPlanMismatch", err)
	}
	sw, _ = sim.PlanWorkload(pl, sim.Cluster{}, 1)
	sw.Jobs[0].Name = "other"
	if _, _, err := sim.ReplayPlan(pl, sw, true); !errors.Is(err, sim.ErrPlanMismatch) {
		t.Errorf("renamed job: error %v, want sim.ErrPlanMismatch", err)
	}
}

// TestFromModel: a packer job becomes waves·n·S tasks of F(n)/waves; alone on
// the n nodes it takes F(n).
func TestFromModel(t *testing.T) {
	w, _ := workloads.Get("W1")
	sw, err := sim.FromModel(w, sim.Cluster{Nodes: 18, MapSlots: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := sim.Alone(sw, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j, job := range w.Jobs {
		// 3 waves × 18 nodes × 2 slots = 108 tasks of F(18)/3.
		if n := sw.Jobs[j].Maps.N(); n != 108 {
			t.Errorf("%s: %d tasks, want 108", job.Name, n)
		}
		if f := job.Seconds(18); alone[j] < f*(1-1e-12) || alone[j] > f*(1+1e-12) {
			t.Errorf("%s: alone %v s, model F(18) = %v s", job.Name, alone[j], f)
		}
	}
	if _, err := sim.FromModel(w, sim.Cluster{}, 0); err == nil {
		t.Error("waves 0 accepted")
	}
}

// TestPlanReplayOnBothEngines: replaying the pair scheduler's plans of
// W1–W6, with and without the barrier and with heartbeats, gives the same
// per-job results on the fast engine and the reference one. The replay is
// the policy that slows overcommitted nodes (SetSlowdown), wakes nodes
// itself and runs on extra nodes, which no policy built by name does.
func TestPlanReplayOnBothEngines(t *testing.T) {
	t.Parallel()
	for _, name := range workloads.Names() {
		w, err := workloads.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		pl := pairPlan(t, w, model.PaperCluster())
		sw, err := sim.PlanWorkload(pl, sim.Cluster{}, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, barrier := range []bool{true, false} {
			rw, p, err := sim.ReplayPlan(pl, sw, barrier)
			if err != nil {
				t.Fatal(err)
			}
			if len(rw.Cluster.Extras) == 0 && (name == "W5" || name == "W6") {
				t.Fatalf("%s: no extra nodes in the replay", name)
			}
			label := fmt.Sprintf("%s, barrier %v", name, barrier)
			sim.CompareEnginesFor(t, label, rw, &sim.Settings{Seed: 3}, p)
			sim.CompareEnginesFor(t, label+", heartbeats", rw, &sim.Settings{Seed: 3, Heartbeat: 3}, p)
		}
	}
}
