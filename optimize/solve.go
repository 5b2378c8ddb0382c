package optimize

import (
	"fmt"

	"github.com/packer-sched/packer/model"
)

// NewSolution checks a schedule, normalizes it (model.Normalize, in place)
// and places every phase (Place): the solution a plan document records
// (plan.New), without notes or bounds. Solvers' schedules and hand-made ones
// alike go through it.
func NewSolution(p *model.Problem, s model.Schedule, algorithm string) (model.Solution, error) {
	if err := p.Check(s); err != nil {
		return model.Solution{}, fmt.Errorf("optimize: %s: %w", algorithm, err)
	}
	s = model.Normalize(s)
	sol := model.Solution{Algorithm: algorithm, Schedule: s, Placement: make([][]model.HostPlacement, len(s.Phases))}
	for i, ph := range s.Phases {
		hosts, err := Place(p, ph)
		if err != nil {
			return model.Solution{}, err
		}
		sol.Placement[i] = hosts
	}
	return sol, nil
}
