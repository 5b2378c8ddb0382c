package optimize

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
)

// ErrOutOfMemory is wrapped by every *MemoryError.
var ErrOutOfMemory = errors.New("optimize: not enough memory")

// MemoryError refuses a problem whose tables Solve estimates (EstimateMemory)
// would not fit Settings.MaxMemory. Error gives one line naming the
// method, the estimate, the biggest table and the limit with its source.
type MemoryError struct {
	Method  Method
	Need    int64  // the estimate, bytes
	Largest string // the biggest part of it, e.g. "the master LP's basis inverse (5,000 × 5,000)"
	Limit   int64  // Settings.MaxMemory
	Source  string // Settings.MemorySource, or ""
}

func (e *MemoryError) Error() string {
	src := ""
	if e.Source != "" {
		src = " (" + e.Source + ")"
	}
	return fmt.Sprintf("optimize: %s would need about %s, mostly %s, more than the memory limit of %s%s; plan fewer jobs at a time, choose another --algorithm, or raise the limit",
		e.Method, human(e.Need), e.Largest, human(e.Limit), src)
}

// Unwrap returns ErrOutOfMemory.
func (e *MemoryError) Unwrap() error { return ErrOutOfMemory }

func human(b int64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.1f GB", float64(b)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(b)/1e6)
}

// MemoryPart is one table in EstimateMemory's estimate.
type MemoryPart struct {
	What  string
	Bytes float64
}

// EstimateMemory estimates the bytes Solve holds at once for p with method
// (swarm: the settings of the swarm that pso and auto run; nil means pso's
// defaults), part by part,
// without allocating any of it: the runtime tables of the phase solver, the
// pair scheduler's costs, the swarm's particles, column generation's master
// LP and the placed plan. The estimates count the tables' elements, each
// with the bytes Go stores it in, and leave out what is small beside them.
func EstimateMemory(p *model.Problem, method Method, swarm *pso.Settings) []MemoryPart {
	m, c := float64(len(p.Jobs)), p.Cluster
	n, e := c.PrimaryVMs(), c.ExtrasFor(c.PrimaryVMs())
	withSwarm := method == MethodSwarm
	if method == MethodAuto {
		method = MethodColumns
		if len(p.Jobs) <= AutoExactJobs {
			method = MethodExact
		}
		withSwarm = method == MethodColumns && autoSwarm(len(p.Jobs), p.Cluster, swarm)
	}
	vms := float64(n + e)
	// The placed plan: at most one phase per job, each with at most N + E
	// VMs, each a few words (model.HostPlacement), and the plan document's
	// JSON of them, about 100 bytes a VM; phases beyond M/2 are rare (the
	// pair plan has about M/2), so half of that bound.
	parts := []MemoryPart{{"the placed plan and its document", m / 2 * vms * (48 + 100)}}
	phaseSolver := MemoryPart{"the phase solver's runtime tables", m * float64(2*n+e+3) * 8 * 3}
	pair := MemoryPart{"the pair scheduler's costs", pairBytes(len(p.Jobs), n)}
	switch method {
	case MethodExact:
		parts = append(parts, phaseSolver)
	case MethodPair:
		parts = append(parts, pair)
	case MethodSwarm, MethodColumns:
		parts = append(parts, phaseSolver, pair)
	}
	if withSwarm {
		particles := 1500
		if swarm != nil && swarm.Particles > 0 {
			particles = swarm.Particles
		}
		workers := runtime.GOMAXPROCS(0)
		if swarm != nil && swarm.Workers > 0 {
			workers = swarm.Workers
		}
		parts = append(parts, MemoryPart{fmt.Sprintf("the swarm's %d particles × %d coordinates", particles, 2*len(p.Jobs)),
			float64(particles)*2*m*8*3 + float64(workers)*m*8*8})
	}
	if method == MethodColumns {
		// B⁻¹ (M × M) and the refactorisation's [B | I] (M × 2M) below
		// luJobs jobs; from luJobs on the master LP's sparse factors and
		// etas (stale caps them near 2·luStale·M entries of 16 bytes) and
		// a dive's dense LP of fewer jobs. The pricing traces (one byte
		// per job and table cell, on each pricing goroutine) and the
		// columns. The large-neighbourhood steps index every candidate
		// duration (lnsSub.at: 8 bytes each, at most M·(2N + E) of them).
		dense := min(m, luJobs-1)
		lp, what := 3*dense*dense*8, fmt.Sprintf("%d × %d basis inverse, refactored beside it", len(p.Jobs), len(p.Jobs))
		if len(p.Jobs) >= luJobs {
			lp += 2 * luStale * m * 16
			what = fmt.Sprintf("sparse factors of its %d × %d basis", len(p.Jobs), len(p.Jobs))
		}
		parts = append(parts, MemoryPart{"column generation's master LP (" + what + ")",
			lp + float64(pricingWorkers())*m*maxCells + m*float64(2*n+e)*8})
		if levelWorth(n) {
			// Each job's weights and fractions at each length.
			parts = append(parts, MemoryPart{"the level bound's tables", m * levelMax * 20})
		}
	}
	return parts
}

// checkMemory refuses, before anything is allocated, a problem whose
// estimate exceeds set.MaxMemory.
func checkMemory(p *model.Problem, method Method, swarm *pso.Settings, set *Settings) error {
	if set.MaxMemory <= 0 {
		return nil
	}
	parts := EstimateMemory(p, method, swarm)
	var total float64
	largest := parts[0]
	for _, pt := range parts {
		total += pt.Bytes
		if pt.Bytes > largest.Bytes {
			largest = pt
		}
	}
	if total <= float64(set.MaxMemory) {
		return nil
	}
	return &MemoryError{Method: method, Need: int64(min(total, 1<<62)), Largest: largest.What, Limit: set.MaxMemory, Source: set.MemorySource}
}
