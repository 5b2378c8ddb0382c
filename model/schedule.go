package model

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Role is how a job's VMs take part in a phase.
type Role string

// The roles of the phase model of the packing paper (Aboulnaga et al.,
// "Packing the Most Onto Your Cloud", CloudDB 2009).
const (
	// Primary VMs have a physical disk of their own and share no CPU.
	Primary Role = "primary"
	// Host VMs are primary VMs of an I/O-intensive job that carry extra VMs on
	// their machines; the job runs Alpha times slower (B_j = 1 in the paper).
	Host Role = "host"
	// Extra VMs are diskless VMs of a CPU-intensive job squeezed beside host
	// VMs; the job runs Alpha times slower (B'_j = 1 in the paper).
	Extra Role = "extra"
)

// Overcommitted reports whether the role pays the overcommit penalty.
func (r Role) Overcommitted() bool { return r == Host || r == Extra }

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r == Primary || r == Host || r == Extra }

// Problem is a phase-planning problem: M jobs with their models and classes, and
// the cluster they share.
type Problem struct {
	Jobs    []Job
	Cluster Cluster
}

// NewProblem validates the workload and cluster and returns the problem.
func NewProblem(w *Workload, c Cluster) (*Problem, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	// Finite parameters can still overflow: 1e308·n^5 is +Inf. Not every
	// form is monotone (Ernest's can turn upwards), so every VM count a plan
	// can use is checked.
	for i, j := range w.Jobs {
		for n := 1; n <= c.PrimaryVMs(); n++ {
			if t := c.Alpha * j.Seconds(n); math.IsInf(t, 0) || math.IsNaN(t) {
				return nil, fmt.Errorf("%w: jobs[%d]: job %q: model %s overflows (times alpha %g) on %d VMs",
					ErrInvalidWorkload, i, j.Name, j.Model, c.Alpha, n)
			}
		}
	}
	if err := checkTotals(w.Jobs, c); err != nil {
		return nil, err
	}
	return &Problem{Jobs: w.Jobs, Cluster: c}, nil
}

// Runtime is job j's predicted time on vms VMs in the given role: F_j(vms), or
// Alpha·F_j(vms) when the role is overcommitted.
func (p *Problem) Runtime(j, vms int, role Role) float64 {
	t := p.Jobs[j].Seconds(vms)
	if role.Overcommitted() {
		t *= p.Cluster.Alpha
	}
	return t
}

// Assignment places one job in a phase: on VMs VMs in the given role.
type Assignment struct {
	Job  int // index into Problem.Jobs
	VMs  int
	Role Role
}

// Phase is a set of jobs that start together; the phase lasts as long as its
// slowest job.
type Phase struct {
	Jobs []Assignment
}

// Schedule is a sequence of phases, run one after another.
type Schedule struct {
	Phases []Phase
}

// PhaseDuration is max over the phase's jobs of their runtimes.
func (p *Problem) PhaseDuration(ph Phase) float64 {
	var d float64
	for _, a := range ph.Jobs {
		d = max(d, p.Runtime(a.Job, a.VMs, a.Role))
	}
	return d
}

// Makespan is the sum of the phase durations: the packing paper's objective.
func (p *Problem) Makespan(s Schedule) float64 {
	var t float64
	for _, ph := range s.Phases {
		t += p.PhaseDuration(ph)
	}
	return t
}

// Sequential is the baseline schedule: every job alone on all N primary VMs,
// one after the other, in workload order.
func Sequential(p *Problem) Schedule {
	n := p.Cluster.PrimaryVMs()
	s := Schedule{Phases: make([]Phase, len(p.Jobs))}
	for j := range p.Jobs {
		s.Phases[j] = Phase{Jobs: []Assignment{{Job: j, VMs: n, Role: Primary}}}
	}
	return s
}

// SequentialMakespan is Σ_j F_j(N), the makespan of Sequential.
func (p *Problem) SequentialMakespan() float64 { return p.Makespan(Sequential(p)) }

// ErrInfeasible is wrapped by every constraint violation Check reports.
var ErrInfeasible = errors.New("infeasible schedule")

// Check verifies a schedule against the packing paper's constraints (section 5.2, with
// the typos corrected): every job in exactly one phase with at least one VM; at
// most N primary (primary and host) VMs per phase; only jobs that CanHost in
// the host role and only jobs that CanBeExtra in the extra role; and per phase
// r·extras ≤ host VMs, with no more extras than the machines can carry
// (P·⌊k/r⌋), since an extra VM needs r host VMs on its own machine; and, since
// every VM on an overcommitted machine is priced at alpha and every other at
// full speed, host ≤ k·extras and primary ≤ k·(P − O), O being
// Cluster.OvercommittedHosts (checkOvercommit).
func (p *Problem) Check(s Schedule) error {
	c := p.Cluster
	n := c.PrimaryVMs()
	seen := make([]int, len(p.Jobs))
	for i := range seen {
		seen[i] = -1
	}
	for pi, ph := range s.Phases {
		if len(ph.Jobs) == 0 {
			return fmt.Errorf("%w: phase %d is empty", ErrInfeasible, pi)
		}
		var primary, host, extra int
		for _, a := range ph.Jobs {
			if a.Job < 0 || a.Job >= len(p.Jobs) {
				return fmt.Errorf("%w: phase %d: job index %d out of range", ErrInfeasible, pi, a.Job)
			}
			job := p.Jobs[a.Job]
			if seen[a.Job] >= 0 {
				return fmt.Errorf("%w: job %q is in phase %d and phase %d", ErrInfeasible, job.Name, seen[a.Job], pi)
			}
			seen[a.Job] = pi
			if a.VMs < 1 {
				return fmt.Errorf("%w: phase %d: job %q has %d VMs", ErrInfeasible, pi, job.Name, a.VMs)
			}
			switch a.Role {
			case Primary:
				primary += a.VMs
			case Host:
				if !job.CanHost() {
					return fmt.Errorf("%w: phase %d: job %q (class %s) cannot host extra VMs: only I/O-intensive, not CPU-intensive jobs can", ErrInfeasible, pi, job.Name, job.Class())
				}
				host += a.VMs
			case Extra:
				if !job.CanBeExtra() {
					return fmt.Errorf("%w: phase %d: job %q (class %s) cannot run on extra VMs: only CPU-intensive, not I/O-intensive jobs can", ErrInfeasible, pi, job.Name, job.Class())
				}
				extra += a.VMs
			default:
				return fmt.Errorf("%w: phase %d: job %q has unknown role %q", ErrInfeasible, pi, job.Name, a.Role)
			}
		}
		if primary+host > n {
			return fmt.Errorf("%w: phase %d uses %d primary VMs, the cluster has %d", ErrInfeasible, pi, primary+host, n)
		}
		if extra > c.ExtrasFor(host) {
			return fmt.Errorf("%w: phase %d has %d extra VMs but its %d host VMs carry at most %d (r = %d, at most %d per machine)",
				ErrInfeasible, pi, extra, host, c.ExtrasFor(host), c.ExtraRatio, c.ExtrasPerHost())
		}
		if err := checkOvercommit(c, pi, primary, host, extra); err != nil {
			return err
		}
	}
	var missing []string
	for j, pi := range seen {
		if pi < 0 {
			missing = append(missing, p.Jobs[j].Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: jobs not scheduled: %s", ErrInfeasible, strings.Join(missing, ", "))
	}
	return nil
}

// checkOvercommit checks that the phase's machines split into overcommitted
// ones, holding only host and extra VMs, and clear ones, holding only primary
// VMs (Cluster.OvercommittedHosts says why): every machine with host VMs needs
// an extra beside them, so host ≤ k·extra, and the primary VMs must fit on the
// machines the overcommitted ones leave, primary ≤ k·(P − O).
func checkOvercommit(c Cluster, pi, primary, host, extra int) error {
	if host > c.DisksPerHost*extra {
		return fmt.Errorf("%w: phase %d has %d host VMs but %d extra VMs: every machine with host VMs needs an extra VM beside them, so at most k = %d host VMs per extra",
			ErrInfeasible, pi, host, extra, c.DisksPerHost)
	}
	o := c.OvercommittedHosts(host, extra)
	if room := c.DisksPerHost * (c.Hosts - o); primary > room {
		return fmt.Errorf("%w: phase %d uses %d primary VMs, but its %d host and %d extra VMs overcommit %d machines, leaving %d disks on machines without extra VMs",
			ErrInfeasible, pi, primary, host, extra, o, room)
	}
	return nil
}

// Normalize sorts each phase's jobs by job index, in place, so that equal
// schedules compare equal and plans list jobs in workload order; it returns s.
func Normalize(s Schedule) Schedule {
	for _, ph := range s.Phases {
		sort.Slice(ph.Jobs, func(a, b int) bool { return ph.Jobs[a].Job < ph.Jobs[b].Job })
	}
	return s
}

// MeanCompletion is the mean over jobs of the time each finishes when the
// schedule's phases run in order: phase start plus the job's runtime.
func (p *Problem) MeanCompletion(s Schedule) float64 {
	if len(p.Jobs) == 0 {
		return 0
	}
	var t, sum float64
	for _, ph := range s.Phases {
		for _, a := range ph.Jobs {
			sum += t + p.Runtime(a.Job, a.VMs, a.Role)
		}
		t += p.PhaseDuration(ph)
	}
	return sum / float64(len(p.Jobs))
}
