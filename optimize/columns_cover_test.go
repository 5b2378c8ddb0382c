package optimize

import (
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
)

// pricedGen is column generation on m random jobs on 80 hosts after the
// given pricing rounds, each on a solved LP: columns for coverRest to use.
func pricedGen(t *testing.T, seed uint64, m, rounds int) (*model.Problem, *columnGen) {
	t.Helper()
	p := randomOnHosts(t, seed, m, 80)
	cg := newColumnGen(p, 0, 0)
	priceRounds(cg, rounds, 50*m)
	return p, cg
}

// coverRest covers every job left exactly once, keeps the phases it was
// given, and uses the generated columns: with columns from a few rounds on
// the table, its plan beats running every job left alone.
func TestCoverRestPartitions(t *testing.T) {
	p, cg := pricedGen(t, 6, 150, 6)
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

// A dive that leaves more jobs than the pair scheduler takes (300, none
// covered) is finished by coverRest, not by running them alone: the plan
// covers every job once, in fewer phases and a shorter makespan than alone.
func TestFinishCoversALargeRest(t *testing.T) {
	p, cg := pricedGen(t, 7, maxFinishJobs+44, 4)
	m := len(p.Jobs)
	out := cg.finish(model.Schedule{}, make([]bool, m))
	if err := p.Check(out); err != nil {
		t.Fatalf("finish's schedule: %v", err)
	}
	var alone float64
	for j := range m {
		alone += cg.lp.cost[j]
	}
	if got := p.Makespan(out); len(out.Phases) >= m || got >= alone {
		t.Fatalf("finish: %d phases, %.1f s; every job alone: %d phases, %.1f s", len(out.Phases), got, m, alone)
	}
	// coverRest's phases, not the pair scheduler's two jobs a phase.
	if most := slices.MaxFunc(out.Phases, func(a, b model.Phase) int { return len(a.Jobs) - len(b.Jobs) }); len(most.Jobs) <= 2 {
		t.Fatalf("finish's largest phase holds %d jobs: not coverRest's", len(most.Jobs))
	}
}

// Past largeDive jobs, finish keeps the shorter of the pair scheduler's
// plan and coverRest's for a rest it could give the pair scheduler (250
// of 420 jobs here, the others covered alone): on a large cluster that is
// coverRest's.
func TestFinishPrefersTheCoverPastLargeDive(t *testing.T) {
	p, cg := pricedGen(t, 8, largeDive+20, 4)
	m := len(p.Jobs)
	covered := make([]bool, m)
	var s model.Schedule
	var rest []int
	for j := range m {
		if j < m-250 {
			covered[j] = true
			s.Phases = append(s.Phases, cg.phases[j])
		} else {
			rest = append(rest, j)
		}
	}
	out := cg.finish(s, slices.Clone(covered))
	if err := p.Check(out); err != nil {
		t.Fatalf("finish's schedule: %v", err)
	}
	pair := cg.finishPairs(slices.Clone(s.Phases), rest)
	cover := cg.coverRest(s, slices.Clone(covered))
	got, pm, cm := p.Makespan(out), p.Makespan(pair), p.Makespan(cover)
	if got != min(pm, cm) {
		t.Fatalf("finish %.1f s, pair scheduler %.1f s, coverRest %.1f s: not the shorter", got, pm, cm)
	}
	if cm >= pm {
		t.Fatalf("coverRest %.1f s, pair scheduler %.1f s: the cover should win on 80 hosts", cm, pm)
	}
}

// halfCover, worked by hand: it counts only columns disjoint from the
// covered jobs and from those before them, and stops at half the jobs left.
func TestHalfCoverHandWorked(t *testing.T) {
	cols := [][]int{{0, 1}, {1, 2}, {3}, {4, 5, 6}, {7}}
	sure := []int{0, 1, 2, 3, 4}
	for _, c := range []struct {
		covered []int
		left    int
		want    int
	}{
		{nil, 8, 4},         // {0,1}, {1,2} overlaps, {3}: 3 < 4, {4,5,6}: 6
		{nil, 4, 1},         // {0,1} is half of 4
		{[]int{3}, 5, 4},    // {0,1}: 2 < 2.5, {1,2} overlaps, {3} covered, {4,5,6}
		{[]int{0, 4}, 6, 3}, // {0,1} and {4,5,6} covered: {1,2}, {3}
		{nil, 100, 5},       // all of them
	} {
		covered := make([]bool, 8)
		for _, j := range c.covered {
			covered[j] = true
		}
		before := slices.Clone(covered)
		if got := halfCover(sure, cols, covered, c.left); got != c.want {
			t.Errorf("covered %v, %d left: %d columns, want %d", c.covered, c.left, got, c.want)
		}
		if !slices.Equal(covered, before) {
			t.Fatal("halfCover changed covered")
		}
	}
}
