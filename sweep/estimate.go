package sweep

import (
	"math"
	"time"

	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/sim"
)

// The cost model of Estimate, from runs on a 2-core virtual machine
// (docs/sweeping.md gives them) with a margin of about 2 on each, since a
// batch system kills a task that outlives its --time or outgrows its
// --mem, and a cluster's cores may be slower.
const (
	// simSecondsPerTask is a simulate point's CPU time per task: one run of
	// the policy and the jobs' alone times. Measured: 0.4–0.6 s for the
	// SWIM FB-2009 sample's 504,000 tasks under fifo, fair and tyrex-dynamic,
	// reading the workload included (about 1 µs a task).
	simSecondsPerTask = 2e-6
	// psoSecondsPerEval and psoSecondsPerJobEval give the swarm's CPU time
	// per particle evaluation: measured 9 s of CPU for W5 (5 jobs) and 33 s
	// for random-m50-seed1, both at 1,500 particles × 200 iterations.
	psoSecondsPerEval    = 40e-6
	psoSecondsPerJobEval = 4e-6
	// columnsSecondsPerJob is column generation's (auto past 16 jobs)
	// time per job with no time limit: 7 s measured at 50 jobs.
	columnsSecondsPerJob = 0.3
	// exactSeconds is the exact solver's (auto up to 16 jobs): 0.02 s
	// measured on W5, and its search grows fast with the jobs.
	exactSeconds = 60
	// quickSeconds is pair's and sequential's.
	quickSeconds = 0.1
	// baseBytes is a shard process's heap before any run: the runtime,
	// packer's tables, a point's result.
	baseBytes = 128 << 20
	// loadedBytesPerFileByte is a loaded workload's heap per byte of its
	// file: a number of a few characters becomes an 8-byte float, a name
	// a string header and its bytes. Measured: the FB-2010 day's 4.7 MB
	// file is about 10 MB loaded.
	loadedBytesPerFileByte = 4
	// startSeconds is a shard's start: the binary, reading the workloads.
	startSeconds = 60
)

// Estimate is what running some points takes on one core.
type Estimate struct {
	// Seconds is the CPU time of the points run one after another.
	Seconds float64
	// Bytes is the peak memory: the shard's base, its largest workload
	// loaded (loadedBytesPerFileByte a byte of its file; a shard holds one
	// at a time) and
	// the largest point's run (sim.EstimateMemory, already about 2.5 × the
	// resident memory measured).
	Bytes int64
	// Points is how many points.
	Points int
}

// Duration is Seconds as a time.Duration.
func (e Estimate) Duration() time.Duration { return time.Duration(e.Seconds * float64(time.Second)) }

// cost is one point's CPU seconds and run memory.
type cost struct {
	seconds float64
	bytes   int64
}

// pointCosts estimates every point once, loading the workloads one at a
// time in the points' order.
func (s *Sweep) pointCosts() []cost {
	if s.costs != nil {
		return s.costs
	}
	s.costs = make([]cost, len(s.points))
	for i, p := range s.points {
		in, err := s.workload(p.Workload)
		if err != nil {
			continue // Load refuses it first
		}
		if s.Run == Plan {
			s.costs[i] = cost{seconds: planSeconds(p, len(in.jobs.Jobs))}
			continue
		}
		w := in.tasks
		if w == nil {
			if w, err = sim.FromModel(in.jobs, p.Options.cluster(p.Size), p.Options.waves()); err != nil {
				continue // the point records its error at once
			}
		} else {
			c := *w
			c.Cluster = overlay(c.Cluster, p.Options.cluster(p.Size))
			w = &c
		}
		s.costs[i] = cost{seconds: float64(w.Tasks()) * simSecondsPerTask, bytes: sim.EstimateMemory(w)}
	}
	return s.costs
}

func planSeconds(p Point, jobs int) float64 {
	m, _ := optimize.ParseMethod(p.Policy)
	if m == optimize.MethodAuto && jobs <= optimize.AutoExactJobs {
		m = optimize.MethodExact
	}
	switch m {
	case optimize.MethodSwarm:
		evals := float64(orDefault(p.Options.Particles, 1500)) * float64(orDefault(p.Options.Iterations, 200)+1)
		return capped(p, evals*(psoSecondsPerEval+float64(jobs)*psoSecondsPerJobEval))
	case optimize.MethodExact:
		return exactSeconds
	case optimize.MethodAuto, optimize.MethodColumns:
		s := columnsSecondsPerJob * float64(jobs)
		if m == optimize.MethodAuto {
			// Solve seeds column generation with a swarm where autoSwarm
			// says so: AutoSwarmEvaluations counts it.
			evals := optimize.AutoSwarmEvaluations(jobs, p.Options.planCluster(p.Size), p.Options.solverSettings(p.Seed).Swarm)
			s += float64(evals) * (psoSecondsPerEval + float64(jobs)*psoSecondsPerJobEval)
		}
		return capped(p, s)
	}
	return quickSeconds
}

// capped is s, or the point's time limit if one is set and shorter.
func capped(p Point, s float64) float64 {
	if p.Options.TimeLimit > 0 {
		return math.Min(s, p.Options.TimeLimit)
	}
	return s
}

// Estimate sizes shard sh (All: the whole sweep) for a batch system.
func (s *Sweep) Estimate(sh Shard) Estimate {
	costs := s.pointCosts()
	e := Estimate{Seconds: startSeconds}
	var loaded, peak int64
	for _, p := range sh.Select(s.points) {
		e.Seconds += costs[p.Index].seconds
		peak = max(peak, costs[p.Index].bytes)
		loaded = max(loaded, loadedBytesPerFileByte*s.sizes[p.Workload])
		e.Points++
	}
	e.Bytes = baseBytes + loaded + peak
	return e
}

// Largest is the estimate of the costliest of n shards: the one that
// sets every task's --time and --mem.
func (s *Sweep) Largest(n int) Estimate {
	var worst Estimate
	for i := range n {
		e := s.Estimate(Shard{i, n})
		worst.Seconds = max(worst.Seconds, e.Seconds)
		worst.Bytes = max(worst.Bytes, e.Bytes)
		worst.Points = max(worst.Points, e.Points)
	}
	return worst
}
