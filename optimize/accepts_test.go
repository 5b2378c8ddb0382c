package optimize

import (
	"errors"
	"fmt"
	"testing"

	"github.com/packer-sched/packer/model"
)

// jobsProblem is a problem of n identical jobs on the packing paper's
// 9-host cluster.
func jobsProblem(t *testing.T, n int) *model.Problem {
	t.Helper()
	w := &model.Workload{Name: fmt.Sprintf("n%d", n)}
	for i := range n {
		w.Jobs = append(w.Jobs, model.Job{Name: fmt.Sprintf("j%d", i), Model: model.PowerLaw{A: 1000, B: -0.7}})
	}
	p, err := model.NewProblem(w, model.Cluster{Hosts: 9, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAccepts(t *testing.T) {
	atLimit, over := jobsProblem(t, MaxExactJobs), jobsProblem(t, 20)
	for _, m := range Methods() {
		if err := Accepts(m, atLimit); err != nil {
			t.Errorf("%s, %d jobs: %v", m, MaxExactJobs, err)
		}
		err := Accepts(m, over)
		if m != MethodExact && err != nil {
			t.Errorf("%s, 20 jobs: %v", m, err)
		}
	}
	err := Accepts(MethodExact, over)
	var r *Rejection
	if !errors.As(err, &r) || !errors.Is(err, ErrTooManyJobs) || err.Error() != "20 jobs, exact takes at most 18" {
		t.Errorf("exact, 20 jobs: %v", err)
	}
	if err := Accepts("magic", atLimit); !errors.Is(err, ErrUnknownMethod) {
		t.Errorf("magic: %v", err)
	}
}

// TestAcceptsAgreesWithSolve: what Accepts rejects, Solve fails with the
// same sentinel; what it accepts at the limit, Solve plans.
func TestAcceptsAgreesWithSolve(t *testing.T) {
	over := jobsProblem(t, MaxExactJobs+1)
	if _, err := Solve(over, MethodExact, nil); !errors.Is(err, ErrTooManyJobs) || !errors.Is(Accepts(MethodExact, over), ErrTooManyJobs) {
		t.Errorf("Solve: %v; Accepts: %v", err, Accepts(MethodExact, over))
	}
	small := jobsProblem(t, 6)
	for _, m := range Methods() {
		if Accepts(m, small) != nil {
			continue
		}
		if _, err := Solve(small, m, nil); err != nil {
			t.Errorf("%s accepted 6 jobs but Solve failed: %v", m, err)
		}
	}
}
