package optimize

import "sort"

// OrderForCompletion reorders a schedule's phases so that the mean job
// completion time is least; the makespan does not change, since it is a sum.
//
// A job finishes at its phase's start plus its own runtime, so the sum of
// completions is Σ_i n_i·S_i + Σ_j t_j, where phase i has n_i jobs and starts
// at S_i. Minimising Σ n_i·S_i over orders is the one-machine problem of
// weighted completion time (Σ n_i·C_i differs from it by the constant
// Σ n_i·d_i), which Smith's rule solves exactly: shortest d_i/n_i first.
// Ties keep the schedule's order, so the result is deterministic.
func OrderForCompletion(p *Problem, s Schedule) Schedule {
	out := Schedule{Phases: append([]Phase(nil), s.Phases...)}
	key := func(ph Phase) float64 { return p.PhaseDuration(ph) / float64(len(ph.Jobs)) }
	sort.SliceStable(out.Phases, func(a, b int) bool { return key(out.Phases[a]) < key(out.Phases[b]) })
	return out
}

// MeanCompletion is the mean over jobs of the time each finishes when the
// schedule's phases run in order: phase start plus the job's runtime.
func (p *Problem) MeanCompletion(s Schedule) float64 {
	if len(p.Jobs) == 0 {
		return 0
	}
	var t, sum float64
	for _, ph := range s.Phases {
		for _, a := range ph.Jobs {
			sum += t + p.Runtime(a.Job, a.VMs, a.Role)
		}
		t += p.PhaseDuration(ph)
	}
	return sum / float64(len(p.Jobs))
}
