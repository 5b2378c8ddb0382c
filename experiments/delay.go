package experiments

import (
	"fmt"
	"math"

	"github.com/packer-sched/packer/sim"
)

// The experiment of the delay scheduling paper (Zaharia et al., EuroSys
// 2010): skipping a few scheduling offers buys small jobs data locality.

// delaySkips are the skip counts D compared, 0 being naive fair sharing.
var delaySkips = []int{0, 1, 5, 10, 40}

// delayP is the share of the nodes with a small job's data: 3 replicas on
// DelayNodes nodes. Algorithm 2 gives a job D + 1 looks at a slot (it
// refuses D non-local ones and takes the next), so the expected locality is
// 1 − (1 − p)^(D+1), one look more than the paper's 1 − (1 − p)^D.
const delayP = 3.0 / DelayNodes

func delayLocality() Experiment {
	rows := make([]string, len(delaySkips))
	for i, d := range delaySkips {
		rows[i] = fmt.Sprintf("fair D=%d", d)
	}
	return Experiment{
		Name: "delay-locality", Paper: DelayPaper,
		Title: "a big job and 100 one-map small ones on 30 nodes, each small job's data on 3 (p = 0.1): " +
			"node-local maps of the small jobs by skip count D",
		Columns:  []string{"small jobs node-local", "1 − (1 − p)^(D+1)", "small jobs response (s)"},
		Rows:     rows,
		Reported: []string{"naive fair: head-of-line, low locality", "", "", "1 − (1 − p)^D: 0.65 for p = 0.1", "0.99 for p = 0.1"},
		Run:      runDelayLocality,
		Check: func(med Table) []Check {
			near := true
			for _, r := range med {
				near = near && math.Abs(r[0]-r[1]) <= 0.1
			}
			return []Check{
				{Claim: "small jobs' locality grows with D, from below 0.3 naive to above 0.75 at D = 40", Holds: med[0][0] < 0.3 && med[len(med)-1][0] > 0.75 && med[3][0] > med[0][0]},
				{Claim: "at every D, within 0.1 of 1 − (1 − p)^(D+1), p = 0.1", Holds: near},
			}
		},
	}
}

func runDelayLocality(seed uint64, small bool) (Table, error) {
	w := DelaySmallJobs(seed)
	ps := make([]sim.Policy, len(delaySkips))
	for i, d := range delaySkips {
		ps[i] = fair(d)
	}
	rs, err := runPolicies(w, seed, false, ps...)
	if err != nil {
		return nil, err
	}
	out := make(Table, len(delaySkips))
	for i, r := range rs {
		var l sim.LocalityCounts
		for _, j := range r.Jobs[1:] { // job 0 is the big one
			l.Node += j.Locality.Node
			l.Rack += j.Locality.Rack
			l.Remote += j.Locality.Remote
		}
		want := 1 - math.Pow(1-delayP, float64(delaySkips[i]+1))
		out[i] = []float64{l.NodeFraction(), want, meanResponse(r, func(j sim.JobResult) bool { return j.Name != "big" })}
	}
	return out, nil
}
