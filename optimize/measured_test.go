package optimize

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// rangedJobs: on 2 hosts × 2 disks (N = 4), A = 240/n measured on 1–2 and
// B = 120/n measured on 3–4, neither able to overcommit.
//
//	free:        A on 4 (60 s), then B on 4 (30 s)              = 90 s
//	in range:    A on 2 (120 s), then B on 4 (30 s)             = 150 s
//	             A on 1 beside B on 3: max(240 s, 40 s)         = 240 s
//	             (A on 2 beside B needs 2 + 3 > 4 VMs)
//
// so the in-range optimum is 150 s, the free one 90 s.
func rangedJobs(t *testing.T) *model.Problem {
	a, b := job("A", 240, -1, false, false), job("B", 120, -1, false, false)
	a.Range, b.Range = &model.NodeRange{Min: 1, Max: 2}, &model.NodeRange{Min: 3, Max: 4}
	return problem(t, smallCluster(), a, b)
}

func TestSolveWithinMeasured(t *testing.T) {
	p := rangedJobs(t)
	free, err := Solve(p, MethodExact, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Makespan(free.Schedule); !near(got, 90) {
		t.Fatalf("free optimum %v, want 90", got)
	}
	for _, m := range Methods() {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			res, err := Solve(p, m, &Settings{WithinMeasured: true, Swarm: &pso.Settings{Particles: 20, Iterations: 10, Seed: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if err := inMeasuredRanges(p, res.Schedule); err != nil {
				t.Fatal(err)
			}
			// Sequential puts A on all 4 VMs (outside 1–2): the fallback,
			// A on 2 then B on 4, replaces it. Every other method finds it.
			if got := p.Makespan(res.Schedule); !near(got, 150) {
				t.Errorf("makespan %v, want the in-range optimum 150", got)
			}
			if res.Optimum != nil && !near(*res.Optimum, 150) {
				t.Errorf("optimum %v, want 150 (the restricted model's)", *res.Optimum)
			}
			if res.LowerBound != nil && *res.LowerBound > 150*(1+1e-9) {
				t.Errorf("lower bound %v above the in-range optimum 150", *res.LowerBound)
			}
			if !slices.Contains(res.Notes, measuredNote) {
				t.Errorf("notes lack the restricted model's: %q", res.Notes)
			}
		})
	}
}

// TestSolveWithinMeasuredMisfit: a job measured on 5–8 VMs cannot run on a
// 4-VM cluster inside its range; one error names it and its range.
func TestSolveWithinMeasuredMisfit(t *testing.T) {
	a, b := job("A", 240, -1, false, false), job("B", 120, -1, false, false)
	b.Range = &model.NodeRange{Min: 5, Max: 8}
	_, err := Solve(problem(t, smallCluster(), a, b), MethodAuto, &Settings{WithinMeasured: true})
	if !errors.Is(err, ErrRangeDoesNotFit) || !strings.Contains(err.Error(), "B (measured on 5–8 VMs)") || !strings.Contains(err.Error(), "4 primary VMs") {
		t.Errorf("error %v: want ErrRangeDoesNotFit naming B, 5–8 and the 4 VMs", err)
	}
	if _, err := Solve(problem(t, smallCluster(), a, b), MethodAuto, nil); err != nil {
		t.Errorf("without WithinMeasured: %v", err)
	}
}
