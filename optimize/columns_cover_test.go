package optimize

import (
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
)

// coverRest covers every job left exactly once, keeps the phases it was
// given, and uses the generated columns: with columns from a few rounds on
// the table, its plan beats running every job left alone.
func TestCoverRestPartitions(t *testing.T) {
	p := randomOnHosts(t, 6, 150, 80)
	cg := newColumnGen(p, 0, 0)
	for round := 1; round <= 6; round++ {
		cg.lp.solve(50*len(p.Jobs), nil)
		cg.price(round)
	}
	m := len(p.Jobs)
	covered := make([]bool, m)
	var s model.Schedule
	// One generated column of several jobs is fixed, as a dive would.
	for c := m; c < len(cg.phases); c++ {
		if len(cg.phases[c].Jobs) > 1 {
			s.Phases = append(s.Phases, cg.phases[c])
			for _, a := range cg.phases[c].Jobs {
				covered[a.Job] = true
			}
			break
		}
	}
	if s.Phases == nil {
		t.Fatal("six rounds generated no column of two jobs or more")
	}
	out := cg.coverRest(s, slices.Clone(covered))
	if err := p.Check(out); err != nil {
		t.Fatalf("coverRest's schedule: %v", err)
	}
	if !slices.EqualFunc(out.Phases[:1], s.Phases, func(a, b model.Phase) bool { return slices.Equal(a.Jobs, b.Jobs) }) {
		t.Fatal("coverRest changed the phase it was given")
	}
	alone := p.Makespan(s)
	for j, c := range covered {
		if !c {
			alone += cg.lp.cost[j]
		}
	}
	if got := p.Makespan(out); got >= alone {
		t.Fatalf("coverRest's plan %.1f s, every job left alone %.1f s", got, alone)
	}
}
