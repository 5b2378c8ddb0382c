package experiments

import "github.com/packer-sched/packer/sim"

// The experiments of the HybS paper (Nguyen et al., UCC 2012): a hybrid of
// priority by waiting time, size and deadline against FIFO and fair sharing.

// hybsSetup is what a HybS experiment runs on: its workload generator.
type hybsSetup struct {
	workload func(seed uint64) *sim.Workload
}

func hybsExperiments() []Experiment {
	return []Experiment{
		hybsExperiment("hybs-exp1", "experiment 1: 21 Grid, TeraSort and WordCount jobs on 36 map slots", "2.4× faster than fair", HybSExp1, true),
		hybsExperiment("hybs-exp2", "experiment 2: 95 TeraSort jobs of 50–148 maps of 4–6 s", "2.1× faster than fair", HybSExp2, false),
	}
}

// hybsExperiment is one HybS experiment; alpha adds the paper's claim for
// experiment 1 that α = 1 responds faster than α = 0 (Figure 3, and 7 % in
// its simulator, Figure 8).
func hybsExperiment(name, title, claim string, gen func(uint64) *sim.Workload, alpha bool) Experiment {
	reported := []string{"", "", claim, ""}
	if alpha {
		reported[3] = "α = 1 about 7 % faster than α = 0"
	}
	return Experiment{
		Name: name, Paper: HybSPaper, Title: title,
		Columns:  []string{"mean response (s)", "fair ÷ this"},
		Rows:     []string{"fifo", "fair", "hybs(1,-1,-1)", "hybs(0,-1,-1)"},
		Reported: reported,
		Run:      hybsSetup{gen}.run,
		Check: func(med Table) []Check {
			cs := []Check{{Claim: "hybs(1,-1,-1) has a lower mean response time than fair", Holds: med[2][0] < med[1][0]}}
			if alpha {
				cs = append(cs, Check{Claim: "hybs(1,-1,-1) has a lower mean response time than hybs(0,-1,-1)", Holds: med[2][0] < med[3][0]})
			}
			return cs
		},
	}
}

func (h hybsSetup) run(seed uint64, small bool) (Table, error) {
	rs, err := runPolicies(h.workload(seed), seed, false, fifo(), fair(0), hybs(1, -1, -1), hybs(0, -1, -1))
	if err != nil {
		return nil, err
	}
	fairMean := rs[1].Summary.MeanResponse
	out := make(Table, len(rs))
	for i, r := range rs {
		out[i] = []float64{r.Summary.MeanResponse, fairMean / r.Summary.MeanResponse}
	}
	return out, nil
}
