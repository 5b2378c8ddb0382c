package optimize

import "testing"

// TestFineDiveOnSmallProblems: the dive fixes one column a step, prices up
// to fineDiveRounds rounds and fixes further columns only at λ ≥
// fineDiveFix exactly where the jobs are at most fineDiveJobs and the
// primary VMs at most fineDiveVMs; the coarse dive's settings elsewhere,
// and the large dive's past largeDive jobs. The paper's cluster has k = 2,
// so N = 2·hosts primary VMs: 9 hosts 18, 20 hosts 40, 21 hosts 42.
func TestFineDiveOnSmallProblems(t *testing.T) {
	for _, c := range []struct {
		jobs, hosts int
		fine        bool
	}{
		{100, 9, true},
		{100, 20, true},
		{17, 2, true},
		{101, 9, false},    // more than fineDiveJobs
		{100, 21, false},   // 42 VMs
		{200, 9, false},    // more than fineDiveJobs
		{30, 50, false},    // 100 VMs
		{1000, 200, false}, // past largeDive
	} {
		p := randomOnHosts(t, 1, c.jobs, c.hosts)
		cg := newColumnGen(p, 0, 0)
		if cg.ps.n != 2*c.hosts {
			t.Fatalf("%d hosts: %d primary VMs, want %d", c.hosts, cg.ps.n, 2*c.hosts)
		}
		if got := cg.fineDive(); got != c.fine {
			t.Errorf("%d jobs on %d hosts (%d VMs): fine dive %v, want %v", c.jobs, c.hosts, cg.ps.n, got, c.fine)
			continue
		}
		// The first step of a dive over 40 positive columns.
		step := cg.diveStep()
		share, rounds, fix := step.share, step.rounds, step.fix
		first := max(1, 40/share)
		switch {
		case c.fine && (first != 1 || rounds != fineDiveRounds || fix != fineDiveFix):
			t.Errorf("%d jobs on %d hosts, fine: a step fixes %d of 40 columns, prices %d rounds, fixes more at λ ≥ %v; want 1, %d, %v",
				c.jobs, c.hosts, first, rounds, fix, fineDiveRounds, fineDiveFix)
		case !c.fine && fix != diveFix:
			t.Errorf("%d jobs on %d hosts, coarse: fixes more at λ ≥ %v, want %v", c.jobs, c.hosts, fix, diveFix)
		case !c.fine && c.jobs <= largeDive && (first != 40/diveShare || rounds != diveRounds):
			t.Errorf("%d jobs on %d hosts, coarse: a step fixes %d of 40 columns and prices %d rounds, want %d and %d",
				c.jobs, c.hosts, first, rounds, 40/diveShare, diveRounds)
		case c.jobs > largeDive && (first != 40/largeDiveShare || rounds != largeDiveRounds):
			t.Errorf("%d jobs on %d hosts, large: a step fixes %d of 40 columns and prices %d rounds, want %d and %d",
				c.jobs, c.hosts, first, rounds, 40/largeDiveShare, largeDiveRounds)
		}
	}
}
