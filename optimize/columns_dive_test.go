package optimize

import (
	"math"
	"slices"
	"testing"
)

// TestDiveSteps: the dive fixes one column a step, prices up
// to fineDiveRounds rounds, fixes further columns only at λ ≥ fineDiveFix
// and re-solves from the last step's basis exactly where the jobs are at
// most fineDiveJobs, the primary VMs at most fineDiveVMs and the integer
// search's work, if known, at least fineDiveWork a job; elsewhere on such
// clusters one coarse dive, on larger ones the careful and then the bold
// dive, and past largeDive jobs the large one. The paper's cluster has
// k = 2, so N = 2·hosts primary VMs: 9 hosts 18, 20 hosts 40, 21 hosts 42.
func TestDiveSteps(t *testing.T) {
	fine := diveStep{math.MaxInt, fineDiveRounds, fineDiveFix, true}
	coarse := diveStep{diveShare, diveRounds, diveFix, false}
	careful := diveStep{carefulDiveShare, carefulDiveRounds, carefulDiveFix, false}
	bold := diveStep{diveShare, diveRounds, boldDiveFix, false}
	large := diveStep{largeDiveShare, largeDiveRounds, diveFix, false}
	for _, c := range []struct {
		jobs, hosts int
		work        int64 // integerWork
		want        []diveStep
	}{
		{100, 9, 0, []diveStep{fine}},
		{100, 20, 0, []diveStep{fine}},
		{17, 2, 0, []diveStep{fine}},
		{200, 9, 0, []diveStep{fine}},
		{200, 9, 200 * fineDiveWork, []diveStep{fine}},
		{200, 9, 200*fineDiveWork - 1, []diveStep{coarse}}, // too little work
		{201, 9, 0, []diveStep{coarse}},                    // more than fineDiveJobs
		{201, 20, 0, []diveStep{coarse}},                   // 40 VMs
		{100, 21, 0, []diveStep{careful, bold}},            // 42 VMs
		{30, 50, 0, []diveStep{careful, bold}},             // 100 VMs
		{largeDive, 50, 0, []diveStep{careful, bold}},
		{largeDive + 1, 50, 0, []diveStep{large}},
		{1000, 200, 0, []diveStep{large}},
	} {
		p := randomOnHosts(t, 1, c.jobs, c.hosts)
		cg := newColumnGen(p, 0, 0)
		cg.integerWork = c.work
		if cg.ps.n != 2*c.hosts {
			t.Fatalf("%d hosts: %d primary VMs, want %d", c.hosts, cg.ps.n, 2*c.hosts)
		}
		if got := cg.diveSteps(); !slices.Equal(got, c.want) {
			t.Errorf("%d jobs on %d hosts (%d VMs, %d units): dives %+v, want %+v", c.jobs, c.hosts, cg.ps.n, c.work, got, c.want)
		}
	}
}

// TestBothDivesPartition: past fineDiveVMs primary VMs the integer search
// dives twice on the same LP. Each dive ends in a plan that runs every job
// exactly once, and the two differ on some instance: a second dive that
// only repeated the first would be work for nothing.
func TestBothDivesPartition(t *testing.T) {
	differ := false
	for seed := uint64(1); seed <= 3; seed++ {
		p := randomOnHosts(t, seed, 60, 25)
		cg := newColumnGen(p, 0, 0)
		priceRounds(cg, 8, 50*len(p.Jobs))
		cg.lp.solve(50*len(p.Jobs), nil)
		steps := cg.diveSteps()
		if len(steps) != 2 {
			t.Fatalf("seed %d: %d dives on %d primary VMs, want 2", seed, len(steps), cg.ps.n)
		}
		var plans []float64
		for k, step := range steps {
			s := cg.dive(step, nil)
			if err := p.Check(s); err != nil {
				t.Fatalf("seed %d, dive %d: %v", seed, k, err)
			}
			plans = append(plans, p.Makespan(s))
		}
		differ = differ || plans[0] != plans[1]
	}
	if !differ {
		t.Error("the careful and the bold dive gave the same makespans on every seed")
	}
}
