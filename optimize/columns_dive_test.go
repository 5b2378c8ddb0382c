package optimize

import "testing"

// TestFineDiveOnSmallProblems: the dive fixes one column a step, prices up
// to fineDiveRounds rounds, fixes further columns only at λ ≥ fineDiveFix
// and re-solves from the last step's basis exactly where the jobs are at
// most fineDiveJobs, the primary VMs at most fineDiveVMs and the integer
// search's work, if known, at least fineDiveWork a job; the coarse dive's
// settings elsewhere, and the large dive's past largeDive jobs. The paper's
// cluster has k = 2, so N = 2·hosts primary VMs: 9 hosts 18, 20 hosts 40,
// 21 hosts 42.
func TestFineDiveOnSmallProblems(t *testing.T) {
	for _, c := range []struct {
		jobs, hosts int
		work        int64 // integerWork
		fine        bool
	}{
		{100, 9, 0, true},
		{100, 20, 0, true},
		{17, 2, 0, true},
		{200, 9, 0, true},
		{200, 9, 200 * fineDiveWork, true},
		{200, 9, 200*fineDiveWork - 1, false}, // too little work
		{201, 9, 0, false},                    // more than fineDiveJobs
		{100, 21, 0, false},                   // 42 VMs
		{30, 50, 0, false},                    // 100 VMs
		{1000, 200, 0, false},                 // past largeDive
	} {
		p := randomOnHosts(t, 1, c.jobs, c.hosts)
		cg := newColumnGen(p, 0, 0)
		cg.integerWork = c.work
		if cg.ps.n != 2*c.hosts {
			t.Fatalf("%d hosts: %d primary VMs, want %d", c.hosts, cg.ps.n, 2*c.hosts)
		}
		if got := cg.fineDive(); got != c.fine {
			t.Errorf("%d jobs on %d hosts (%d VMs, %d units): fine dive %v, want %v", c.jobs, c.hosts, cg.ps.n, c.work, got, c.fine)
			continue
		}
		// The first step of a dive over 40 positive columns.
		step := cg.diveStep()
		share, rounds, fix := step.share, step.rounds, step.fix
		first := max(1, 40/share)
		switch {
		case step.warm != c.fine:
			t.Errorf("%d jobs on %d hosts: re-solves from the last basis %v, want %v", c.jobs, c.hosts, step.warm, c.fine)
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
