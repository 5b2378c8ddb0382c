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
		hybsExperiment("hybs-exp1", "experiment 1: 21 Grid, TeraSort and WordCount jobs on 36 map slots", "2.4× faster than fair", HybSExp1),
		hybsExperiment("hybs-exp2", "experiment 2: 95 TeraSort jobs of 50–148 maps of 4–6 s", "2.1× faster than fair", HybSExp2),
	}
}

func hybsExperiment(name, title, claim string, gen func(uint64) *sim.Workload) Experiment {
	return Experiment{
		Name: name, Paper: HybSPaper, Title: title,
		Columns:  []string{"mean response (s)", "fair ÷ this"},
		Rows:     []string{"fifo", "fair", "hybs(1,-1,-1)", "hybs(0,-1,-1)"},
		Reported: []string{"", "", claim, ""},
		Run:      hybsSetup{gen}.run,
		Check: func(med Table) []Check {
			return []Check{{Claim: "hybs(1,-1,-1) has a lower mean response time than fair", Holds: med[2][0] < med[1][0]}}
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
