package optimize

import (
	"errors"
	"fmt"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// Limits on what the solvers tabulate, so that a mistyped --hosts or
// --particles ends with an error naming it instead of exhausting memory.
const (
	// MaxRuntimeTable is the most runtimes the phase solver tabulates,
	// M·(2N + P·⌊k/r⌋) (one per job, role and VM count), about 256 MiB with
	// the sorted candidate list beside them.
	MaxRuntimeTable = 1 << 24
	// MaxSwarmCoordinates is the most particle coordinates a swarm holds,
	// particles × 2M (positions, velocities and personal bests: about
	// 400 MiB).
	MaxSwarmCoordinates = 1 << 24
)

// ErrTooLarge is wrapped by CheckSize's errors.
var ErrTooLarge = errors.New("problem too large for memory")

// CheckSize rejects a problem, or swarm settings (nil: pso's defaults), whose
// tables would exceed MaxRuntimeTable or MaxSwarmCoordinates, saying how far
// hosts, disks or particles may go for these jobs. Solve calls it first.
func CheckSize(p *model.Problem, swarm *pso.Settings) error {
	m, c := len(p.Jobs), p.Cluster
	perHost := 2*c.DisksPerHost + c.ExtrasPerHost() // VM counts tabulated per host and job
	if m > 0 && float64(m)*float64(c.Hosts)*float64(perHost) > MaxRuntimeTable {
		return fmt.Errorf("optimize: %w: %d jobs on %d hosts × %d disks need %.3g runtimes tabulated, more than %d: at most %d hosts with %d disks, or %d disks per host on %d hosts",
			ErrTooLarge, m, c.Hosts, c.DisksPerHost, float64(m)*float64(c.Hosts)*float64(perHost), MaxRuntimeTable,
			MaxRuntimeTable/(m*perHost), c.DisksPerHost, max(1, int(MaxRuntimeTable/(float64(m)*float64(c.Hosts)*3))), c.Hosts)
	}
	particles := 1500
	if swarm != nil && swarm.Particles > 0 {
		particles = swarm.Particles
	}
	if float64(particles)*float64(2*m) > MaxSwarmCoordinates {
		return fmt.Errorf("optimize: %w: %d particles × %d coordinates (2 per job) exceed %d: at most %d particles for %d jobs",
			ErrTooLarge, particles, 2*m, MaxSwarmCoordinates, MaxSwarmCoordinates/max(1, 2*m), m)
	}
	return nil
}
