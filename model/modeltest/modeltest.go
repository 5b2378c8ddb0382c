// Package modeltest holds the small hand-worked fixtures that the tests of
// model, optimize, plan and the readers of input files share. Tests only.
package modeltest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/packer-sched/packer/model"
	"gonum.org/v1/gonum/floats/scalar"
)

// SmallCluster: P = 2 hosts × k = 2 disks, so N = 4 primary VMs and, with
// r = 2, P·⌊k/r⌋ = 2 extra VMs; alpha = 1.2.
func SmallCluster() model.Cluster {
	return model.Cluster{Hosts: 2, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.2, CoresPerHost: 4, MemoryMiBPerHost: 4096}
}

// Job is a job with the power law F(n) = a·n^b and the given classes.
func Job(name string, a, b float64, cpu, io bool) model.Job {
	return model.Job{Name: name, Model: model.PowerLaw{A: a, B: b}, CPUIntensive: cpu, IOIntensive: io}
}

// Problem is the problem of jobs on c, failing the test if it is invalid.
func Problem(t testing.TB, c model.Cluster, jobs ...model.Job) *model.Problem {
	t.Helper()
	p, err := model.NewProblem(&model.Workload{Name: "t", Jobs: jobs}, c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Near reports whether a and b agree within 1e-9, absolute or relative.
func Near(a, b float64) bool { return scalar.EqualWithinAbsOrRel(a, b, 1e-9, 1e-9) }

// RandomProblem is m jobs with random power laws (a in 10–5010, b in
// −1.2…0) and classes on a random cluster of 1–8 hosts × 1–3 disks, r ≤ k,
// alpha in 1–2: the shapes the solvers' property tests range over.
func RandomProblem(t testing.TB, rng *rand.Rand, m int) *model.Problem {
	k := 1 + rng.IntN(3)
	c := model.Cluster{Hosts: 1 + rng.IntN(8), DisksPerHost: k, ExtraRatio: 1 + rng.IntN(k),
		Alpha: 1 + rng.Float64(), CoresPerHost: 4, MemoryMiBPerHost: 8192}
	var jobs []model.Job
	for i := range m {
		jobs = append(jobs, Job(fmt.Sprintf("j%d", i), 10+rng.Float64()*5000, -1.2+rng.Float64()*1.2, rng.IntN(2) == 0, rng.IntN(2) == 0))
	}
	return Problem(t, c, jobs...)
}

// NamesFile fails the test unless err is a *model.InputError naming file:
// what every reader of an input file promises for its errors.
func NamesFile(t testing.TB, err error, file string) {
	t.Helper()
	var in *model.InputError
	if !errors.As(err, &in) || in.File != file {
		t.Fatalf("error %v is not an InputError naming %s", err, file)
	}
}
