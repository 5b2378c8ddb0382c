package optimize

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// TestPricingWorkersSamePlan: auto under a work limit gives the same plan,
// bound and notes whether column generation prices on one goroutine or on
// several, on problems big enough to share pricing out (exact pricing on 50
// hosts, units of VMs on 80), with limits that cut runs in quick rounds,
// full rounds and the integer search.
func TestPricingWorkersSamePlan(t *testing.T) {
	cases := []struct {
		jobs, hosts int
		seed        uint64
		limits      []int64
	}{
		{30, 50, 1, []int64{400, 3000}},
		{60, 80, 3, []int64{1200}},
	}
	for _, c := range cases {
		cl := model.PaperCluster()
		cl.Hosts = c.hosts
		p, err := model.NewProblem(RandomWorkload(c.seed, c.jobs), cl)
		if err != nil {
			t.Fatal(err)
		}
		if side := cl.PrimaryVMs() + 1; min(side*side, maxCells)*c.jobs < parallelCells {
			t.Fatalf("%d jobs on %d hosts: too small to price in parallel", c.jobs, c.hosts)
		}
		for _, limit := range c.limits {
			var first *Result
			for _, workers := range []int{1, 3} {
				set := Settings{WorkLimit: limit, workers: workers, Swarm: &pso.Settings{Particles: 30, Iterations: 4, Seed: c.seed}}
				res, err := Solve(p, MethodAuto, &set)
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = res
					continue
				}
				if !reflect.DeepEqual(res.Schedule, first.Schedule) || *res.LowerBound != *first.LowerBound || !reflect.DeepEqual(res.Notes, first.Notes) {
					t.Errorf("%d jobs on %d hosts, work limit %d: %d workers give plan %.1f, bound %.1f, notes %q; 1 gives %.1f, %.1f, %q",
						c.jobs, c.hosts, limit, workers, p.Makespan(res.Schedule), *res.LowerBound, res.Notes,
						p.Makespan(first.Schedule), *first.LowerBound, first.Notes)
				}
			}
		}
	}
}

// TestParallelPivotSameLP: solving random master LPs with B⁻¹'s update
// shared among goroutines at every pivot gives the same pivots, basis,
// B⁻¹, value and duals, bit for bit, as one goroutine.
func TestParallelPivotSameLP(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		var lps [2]*coverLP
		for i, workers := range []int{1, 3} {
			lps[i] = randomCoverLP(rand.New(rand.NewPCG(seed, 7)), 60+10*int(seed), 400)
			lps[i].workers, lps[i].parallelAt = workers, 1
			lps[i].solve(100_000, nil)
		}
		a, b := lps[0], lps[1]
		if a.work == 0 || a.work != b.work || a.objective() != b.objective() || !slices.Equal(a.basis, b.basis) ||
			!slices.Equal(a.duals(), b.duals()) || !slices.EqualFunc(a.binv, b.binv, slices.Equal[[]float64]) {
			t.Errorf("seed %d: one goroutine: %d pivots, value %v; three: %d pivots, value %v, or their bases or B⁻¹ differ",
				seed, a.work, a.objective(), b.work, b.objective())
		}
	}
}
