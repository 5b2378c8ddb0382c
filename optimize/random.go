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
