package optimize

import (
	"sort"

	"github.com/packer-sched/packer/model"
)

// OrderForCompletion reorders a schedule's phases so that the mean job
// completion time is least; the makespan does not change, since it is a sum.
//
// A job finishes at its phase's start plus its own runtime, so the sum of
// completions is Σ_i n_i·S_i + Σ_j t_j, where phase i has n_i jobs and starts
// at S_i. Minimising Σ n_i·S_i over orders is the one-machine problem of
// weighted completion time (Σ n_i·C_i differs from it by the constant
// Σ n_i·d_i), which Smith's rule solves exactly: shortest d_i/n_i first.
// Ties keep the schedule's order, so the result is deterministic.
func OrderForCompletion(p *model.Problem, s model.Schedule) model.Schedule {
	out := model.Schedule{Phases: append([]model.Phase(nil), s.Phases...)}
	key := func(ph model.Phase) float64 { return p.PhaseDuration(ph) / float64(len(ph.Jobs)) }
	sort.SliceStable(out.Phases, func(a, b int) bool { return key(out.Phases[a]) < key(out.Phases[b]) })
	return out
}
