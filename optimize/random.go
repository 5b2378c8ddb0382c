package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/packer-sched/packer/model"
)

// RandomWorkload returns m random jobs for tests and benchmarks, the same for
// the same seed. The jobs resemble the packing paper's: runtime on 6 VMs log-uniform in
// 100–4000 s, exponent b uniform in [−1.1, −0.4] (diminishing returns for most,
// slightly better than linear for a few big ones), and classes drawn so that
// overcommitting is often possible: 35 % CPU-only, 35 % I/O-only, 15 % both,
// 15 % neither.
func RandomWorkload(seed uint64, m int) *model.Workload {
	rng := rand.New(rand.NewPCG(seed, 0x7061636b6572)) // "packer"
	w := &model.Workload{Name: fmt.Sprintf("random-m%d-seed%d", m, seed),
		Description: fmt.Sprintf("%d random jobs (optimize.RandomWorkload, seed %d)", m, seed)}
	for j := range m {
		at6 := 100 * math.Pow(40, rng.Float64())
		b := -1.1 + 0.7*rng.Float64()
		job := model.Job{Name: fmt.Sprintf("job-%02d", j+1), Model: model.PowerLaw{A: at6 * math.Pow(6, -b), B: b}}
		switch u := rng.Float64(); {
		case u < 0.35:
			job.CPUIntensive = true
		case u < 0.70:
			job.IOIntensive = true
		case u < 0.85:
			job.CPUIntensive, job.IOIntensive = true, true
		}
		w.Jobs = append(w.Jobs, job)
	}
	return w
}

// MaxRandomJobs bounds the jobs a random workload name may ask for: the
// optimizer's own limits stop far below it, and a typo of a few digits must
// not allocate gigabytes.
const MaxRandomJobs = 100_000

// RandomByName returns RandomWorkload(S, M) for a name of the form
// random-mM-seedS (the name RandomWorkload gives its workload), so that the
// command line can plan the workloads the tests and benchmarks use, as
// -w random-m20-seed1; ok is false for any other name.
func RandomByName(name string) (w *model.Workload, ok bool, err error) {
	var m int
	var seed uint64
	if n, _ := fmt.Sscanf(name, "random-m%d-seed%d", &m, &seed); n != 2 || fmt.Sprintf("random-m%d-seed%d", m, seed) != name {
		return nil, false, nil
	}
	if m < 1 || m > MaxRandomJobs {
		return nil, true, fmt.Errorf("optimize: workload %s: %d jobs, want 1 to %d", name, m, MaxRandomJobs)
	}
	return RandomWorkload(seed, m), true, nil
}
