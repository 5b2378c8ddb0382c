// Package modeltest holds the small hand-worked fixtures that the tests of
// model, optimize and plan share. Tests only.
package modeltest

import (
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
