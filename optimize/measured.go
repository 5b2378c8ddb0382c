package optimize

import (
	"errors"
	"fmt"
	"strings"

	"github.com/packer-sched/packer/model"
)

// ErrRangeDoesNotFit is wrapped by Solve's error when Settings.WithinMeasured
// is set and some job's measured range starts above the cluster's N primary
// VMs: no phase can give that job a count it was measured on.
var ErrRangeDoesNotFit = errors.New("measured range does not fit the cluster")

// measuredNote is Solve's note on a plan kept within measured ranges.
const measuredNote = "within measured ranges: every job runs on a VM count inside the range it was measured on (--within-measured); the optimum or lower bound holds for this restricted model, and a plan free to extrapolate may be shorter"

// withinMeasured returns the problem Solve plans when Settings.WithinMeasured
// is set, and its fallback schedule: every job alone on min(N, max) primary
// VMs, the largest count of its range the cluster has, each job's runtime
// measured or interpolated. That fallback lasts S = Σ_j F_j(min(N, max_j)).
//
// In the returned problem a job with a measured range [min, max] takes, on n
// VMs outside it, S + F(n clamped into the range): more than S, so a phase
// holding it lasts longer than the whole fallback plan. Every solver, exact or
// not, then prefers in-range counts without knowing about ranges: the optimum
// of the restricted problem is the in-range optimum, its lower bounds bound
// that optimum, and a plan no better than S is replaced by the fallback.
// Inside the ranges the runtimes are the jobs' own. Jobs without a range keep
// their models. ErrRangeDoesNotFit (wrapped) names every job whose range
// starts above N.
func withinMeasured(p *model.Problem) (*model.Problem, model.Schedule, error) {
	n := p.Cluster.PrimaryVMs()
	var fallback model.Schedule
	var misfits []string
	for j, job := range p.Jobs {
		x := n
		if r := job.Range; r != nil {
			if r.Min > n {
				misfits = append(misfits, fmt.Sprintf("%s (measured on %d–%d VMs)", job.Name, r.Min, r.Max))
			}
			x = min(n, r.Max)
		}
		fallback.Phases = append(fallback.Phases, model.Phase{Jobs: []model.Assignment{{Job: j, VMs: x, Role: model.Primary}}})
	}
	if len(misfits) > 0 {
		return nil, model.Schedule{}, fmt.Errorf("optimize: %w: the cluster has %d primary VMs, fewer than the smallest count measured for %s; plan without --within-measured, or on more hosts or disks",
			ErrRangeDoesNotFit, n, strings.Join(misfits, ", "))
	}
	s := p.Makespan(fallback)
	q := &model.Problem{Jobs: make([]model.Job, len(p.Jobs)), Cluster: p.Cluster}
	for j, job := range p.Jobs {
		q.Jobs[j] = job
		if job.Range != nil {
			q.Jobs[j].Model = rangeModel{Model: job.Model, r: *job.Range, outside: s}
		}
	}
	return q, fallback, nil
}

// rangeModel is a job's model inside its measured range r; outside it, the
// model at the nearer end of r plus outside seconds (withinMeasured).
type rangeModel struct {
	model.Model
	r       model.NodeRange
	outside float64
}

func (m rangeModel) Seconds(n int) float64 {
	switch {
	case n <= 0:
		return 0
	case n < m.r.Min:
		return m.outside + m.Model.Seconds(m.r.Min)
	case n > m.r.Max:
		return m.outside + m.Model.Seconds(m.r.Max)
	}
	return m.Model.Seconds(n)
}

// inMeasuredRanges reports the first assignment of s outside its job's
// measured range, as an error; nil if there is none.
func inMeasuredRanges(p *model.Problem, s model.Schedule) error {
	for _, ph := range s.Phases {
		for _, a := range ph.Jobs {
			if job := p.Jobs[a.Job]; job.Extrapolated(a.VMs) {
				return fmt.Errorf("optimize: within measured ranges: job %q on %d VMs, measured on %d–%d", job.Name, a.VMs, job.Range.Min, job.Range.Max)
			}
		}
	}
	return nil
}
