package model

import (
	"fmt"
	"math"
)

// checkTotals refuses a workload whose runtimes, each finite, add up past
// what a float64 holds on cluster c. Planners, bounds and the plan document
// form sums such as the sequential makespan Σ_j F_j(N), the area bound
// Σ_j n·α·F_j(n) (n ≤ N) and the mean completion time (M completions, each at
// most the makespan), so every one of them stays finite when
// max(N, M)·Σ_j max_n α·F_j(n) does. That is checked here, once, naming the
// job at which the running sum passes the limit.
func checkTotals(jobs []Job, c Cluster) error {
	limit := math.MaxFloat64 / float64(max(c.PrimaryVMs(), len(jobs), 1))
	var sum float64
	for i, j := range jobs {
		var worst float64
		for n := 1; n <= c.PrimaryVMs(); n++ {
			worst = max(worst, c.Alpha*j.Seconds(n))
		}
		if sum += worst; !(sum <= limit) {
			field, v := largestParameter(j.Model)
			return fmt.Errorf("%w: jobs[%d].%s: %v: the jobs' total runtime overflows (job %q; Σ alpha·F_j(n) times %d must stay below %.3g)",
				ErrInvalidWorkload, i, field, v, j.Name, max(c.PrimaryVMs(), len(jobs)), math.MaxFloat64)
		}
	}
	return nil
}

// largestParameter names the model field that sets the job's scale, for
// messages: the field a user would lower to shrink the runtimes.
func largestParameter(m Model) (field string, v float64) {
	switch m := m.(type) {
	case PowerLaw:
		return "model.a", m.A
	case Amdahl:
		if m.C > m.A {
			return "model.c", m.C
		}
		return "model.a", m.A
	case Ernest:
		k := 0
		for i, t := range m.Theta {
			if t > m.Theta[k] {
				k = i
			}
		}
		return fmt.Sprintf("model.theta[%d]", k), m.Theta[k]
	case *Table:
		if len(m.Times) == 0 {
			break
		}
		k := 0
		for i, t := range m.Times {
			if t > m.Times[k] {
				k = i
			}
		}
		return fmt.Sprintf("model.seconds[%d]", k), m.Times[k]
	}
	return "model", m.Seconds(1)
}
