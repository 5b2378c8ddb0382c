package optimize

import "testing"

// TestFineDiveOnSmallProblems: the dive fixes one column a step, prices up
// to fineDiveRounds rounds and fixes further columns only at λ ≥
// fineDiveFix exactly where the jobs are at most fineDiveJobs and the
// pricing table's side at most fineDiveSide; the coarse dive's settings
// elsewhere. The sides, worked by hand for the paper's cluster (k = 2, so
// N = 2·hosts primary VMs, side N/scale + 1): 9 hosts 19, 20 hosts 41, 21
// hosts 43, 50 hosts 101, 200 hosts 101 (units of 4 VMs).
func TestFineDiveOnSmallProblems(t *testing.T) {
	for _, c := range []struct {
		jobs, hosts int
		fine        bool
	}{
		{100, 9, true},
		{100, 20, true},
		{17, 2, true},
		{101, 9, false},    // more than fineDiveJobs
		{100, 21, false},   // side 43
		{200, 9, false},    // more than fineDiveJobs
		{30, 50, false},    // side 101
		{1000, 200, false}, // past largeDive too
	} {
		p := randomOnHosts(t, 1, c.jobs, c.hosts)
		cg := newColumnGen(p, 0, 0)
		if got := cg.fineDive(); got != c.fine {
			t.Errorf("%d jobs on %d hosts (side %d): fine dive %v, want %v", c.jobs, c.hosts, cg.ps.n/cg.scale+1, got, c.fine)
			continue
		}
		// The first step of a dive over 40 positive columns.
		share, rounds, fix := cg.stepShare(), cg.stepRounds(), cg.fixAt()
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
		}
	}
}
