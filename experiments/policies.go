package experiments

import "github.com/packer-sched/packer/sim"

// Every scheduling policy the experiments run is built here, so that the
// experiments name policies in one vocabulary and this file alone changes
// if policies come to be built from a registry.

func fifo() sim.Policy { return &sim.FIFO{} }

// fair is max-min fair sharing skipping up to delay offers for locality
// (0: no delay scheduling).
func fair(delay int) sim.Policy { return &sim.Fair{Delay: delay} }

// taskFair is the Tyrex paper's FAIR: fair by running tasks.
func taskFair() sim.Policy { return &sim.TaskFair{} }

// hybs is HybS with the given weights.
func hybs(alpha, beta, gamma float64) sim.Policy {
	return &sim.HybS{Alpha: alpha, Beta: beta, Gamma: gamma}
}

// tyrexStatic is Tyrex with one P1 timer (slot-seconds).
func tyrexStatic(timer float64) sim.Policy { return &sim.Tyrex{Timers: []float64{timer}} }

// tyrexDynamic is Tyrex with dynamically set timers.
func tyrexDynamic() sim.Policy { return &sim.Tyrex{Dynamic: true} }

// dpSettings are the knobs of a DP (dynamic proportional share) policy.
type dpSettings struct {
	spending, budget map[string]float64
	defaultBudget    float64
	changes          []sim.DPChange
	preempt, conserv bool
}

// dp builds a DP policy; the concrete type is returned because dp-budget
// reads its budgets' exhaustion times afterwards.
func dp(s dpSettings) *sim.DP {
	return &sim.DP{Spending: s.spending, Budget: s.budget, DefaultBudget: s.defaultBudget,
		Changes: s.changes, Preempt: s.preempt, WorkConserving: s.conserv}
}
