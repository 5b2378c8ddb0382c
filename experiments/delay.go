package experiments

import (
	"fmt"

	"github.com/packer-sched/packer/sim"
)

// The experiment of the delay scheduling paper (Zaharia et al., EuroSys
// 2010): skipping a few scheduling offers buys small jobs data locality.

// delaySkips are the skip counts D compared, 0 being naive fair sharing.
var delaySkips = []int{0, 1, 5, 10, 40}

func delayLocality() Experiment {
	rows := make([]string, len(delaySkips))
	for i, d := range delaySkips {
		rows[i] = fmt.Sprintf("fair D=%d", d)
	}
	return Experiment{
		Name: "delay-locality", Paper: DelayPaper,
		Title:    "a big job and 100 small ones on 100 nodes: node-local maps of the small jobs by skip count D",
		Columns:  []string{"small jobs node-local", "small jobs response (s)"},
		Rows:     rows,
		Reported: []string{"naive fair: head-of-line, low locality", "", "", "1 − (1 − p)^D: 0.65 for p = 0.1", "0.99 for p = 0.1"},
		Run:      runDelayLocality,
		Check: func(med Table) []Check {
			return []Check{
				{Claim: "small jobs' locality grows with D, from below 0.3 naive to above 0.75 at D = 40", Holds: med[0][0] < 0.3 && med[len(med)-1][0] > 0.75 && med[3][0] > med[0][0]},
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
		out[i] = []float64{l.NodeFraction(), meanResponse(r, func(j sim.JobResult) bool { return j.Name != "big" })}
	}
	return out, nil
}
