package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/packer-sched/packer/model"
)

// Version is the plan document format's version. Readers accept documents
// of this version; fields they do not know are ignored.
const Version = 1

// Plan is the plan document: everything apply, simulate and users' scripts need
// to act on a plan, and enough to check it (the jobs' models and the cluster are
// included, so a plan stands alone).
type Plan struct {
	Version int `json:"version"`
	// ID names the plan in VM names and in apply's journal: the workload's name
	// and a hash of the plan's content, lower case, safe in host names.
	ID        string      `json:"id"`
	Workload  string      `json:"workload"`
	Algorithm string      `json:"algorithm"`
	Cluster   Cluster     `json:"cluster"`
	Jobs      []model.Job `json:"jobs"`
	// Makespan is Σ phase durations in seconds: the predicted completion time.
	Makespan float64 `json:"makespan"`
	// SequentialMakespan is Σ_j F_j(N): every job alone on all N VMs in turn.
	SequentialMakespan float64 `json:"sequential_makespan"`
	// SavingPercent is 100·(1 − Makespan/SequentialMakespan).
	SavingPercent float64 `json:"saving_percent"`
	// MeanCompletion is the mean over jobs of the time each job finishes,
	// counted from the plan's start (phase start + the job's runtime).
	MeanCompletion float64 `json:"mean_completion"`
	// Seed, Particles and Iterations are the particle swarm's settings, for
	// plans it made (omitted otherwise): the same settings and workload give
	// the same plan.
	Seed       *uint64 `json:"seed,omitempty"`
	Particles  int     `json:"particles,omitempty"`
	Iterations int     `json:"iterations,omitempty"`
	// Optimum is the least makespan any schedule can have, when it is known
	// (the exact solver proved it); LowerBound is a bound below the optimum
	// otherwise (for example optimize.LowerBound). GapPercent is 100·(Makespan − x)/x for
	// x the optimum, else the lower bound; present when either is.
	Optimum    *float64 `json:"optimum,omitempty"`
	LowerBound *float64 `json:"lower_bound,omitempty"`
	GapPercent *float64 `json:"gap_percent,omitempty"`
	// Notes are facts about how the plan was made that a reader should know
	// (for example, that a pairing is exact or heuristic).
	Notes []string `json:"notes,omitempty"`
	// Interrupted is true when a signal stopped the search before it ended:
	// the plan is the best found so far (checked like any other), and its
	// bound the best proven so far. A note says so too.
	Interrupted bool    `json:"interrupted,omitempty"`
	Phases      []Phase `json:"phases"`
}

// Cluster is the cluster a plan is for, with the derived numbers spelled
// out for readers that do not want to recompute them.
type Cluster struct {
	model.Cluster
	PrimaryVMs     int `json:"primary_vms"`
	MaxExtraVMs    int `json:"max_extra_vms"`
	VCPUsPerVM     int `json:"vcpus_per_vm"`
	MemoryMiBPerVM int `json:"memory_mib_per_vm"`
}

// Phase is one phase: its jobs start together at Start and the phase lasts
// Duration seconds, as long as its slowest job.
type Phase struct {
	Index    int                   `json:"index"`
	Start    float64               `json:"start"`
	Duration float64               `json:"duration"`
	Jobs     []Job                 `json:"jobs"`
	Hosts    []model.HostPlacement `json:"hosts"`
}

// Job is one job's share of a phase.
type Job struct {
	Name string     `json:"name"`
	VMs  int        `json:"vms"`
	Role model.Role `json:"role"`
	// Runtime is the predicted runtime in seconds: F(VMs), times alpha in an
	// overcommitted role.
	Runtime float64 `json:"runtime"`
	// Extrapolated is true when VMs lies outside the job's measured range.
	Extrapolated bool `json:"extrapolated,omitempty"`
}

// New builds the plan document for a solution of problem p (optimize.Solve
// or optimize.NewSolution make one); workload names the plan. It checks the
// schedule (Problem.Check) and each phase's placement (Problem.CheckPlacement)
// and records the solution's notes, swarm settings, and optimum or lower
// bound with the gap to it. Phases run in the schedule's order.
func New(p *model.Problem, workload string, sol model.Solution) (*Plan, error) {
	s := sol.Schedule
	if err := p.Check(s); err != nil {
		return nil, fmt.Errorf("plan: %s: %w", sol.Algorithm, err)
	}
	if len(sol.Placement) != len(s.Phases) {
		return nil, fmt.Errorf("plan: %s: %d phases but %d placements", sol.Algorithm, len(s.Phases), len(sol.Placement))
	}
	c := p.Cluster
	pl := &Plan{
		Version:   Version,
		Workload:  workload,
		Algorithm: sol.Algorithm,
		Cluster: Cluster{Cluster: c, PrimaryVMs: c.PrimaryVMs(), MaxExtraVMs: c.MaxExtraVMs(),
			VCPUsPerVM: c.VCPUsPerVM(), MemoryMiBPerVM: c.MemoryMiBPerVM()},
		Jobs:               p.Jobs,
		SequentialMakespan: p.SequentialMakespan(),
		Notes:              slices.Clone(sol.Notes),
	}
	var t, completion float64
	for i, ph := range s.Phases {
		if err := p.CheckPlacement(ph, sol.Placement[i]); err != nil {
			return nil, fmt.Errorf("plan: %s: phases[%d]: %w", sol.Algorithm, i, err)
		}
		pp := Phase{Index: i, Start: t, Duration: p.PhaseDuration(ph), Hosts: sol.Placement[i]}
		for _, a := range ph.Jobs {
			job := p.Jobs[a.Job]
			rt := p.Runtime(a.Job, a.VMs, a.Role)
			pp.Jobs = append(pp.Jobs, Job{Name: job.Name, VMs: a.VMs, Role: a.Role, Runtime: rt, Extrapolated: job.Extrapolated(a.VMs)})
			completion += t + rt
			if job.Extrapolated(a.VMs) {
				pl.Notes = append(pl.Notes, ExtrapolationNote(job, a.VMs))
			}
		}
		pl.Phases = append(pl.Phases, pp)
		t += pp.Duration
	}
	if len(pl.Notes) > len(sol.Notes) {
		pl.Notes = append(pl.Notes, extrapolationSummary)
	}
	pl.Makespan = t
	pl.MeanCompletion = completion / float64(len(p.Jobs))
	pl.SavingPercent = saving(pl.Makespan, pl.SequentialMakespan)
	pl.ID = planID(pl)
	if sol.Seed != nil {
		seed := *sol.Seed
		pl.Seed, pl.Particles, pl.Iterations = &seed, sol.Particles, sol.Iterations
	}
	if sol.Optimum != nil {
		pl.SetOptimum(*sol.Optimum)
	}
	if sol.LowerBound != nil {
		pl.SetLowerBound(*sol.LowerBound)
	}
	return pl, nil
}

// ExtrapolationNote names a job run on vms VMs outside the range its model
// was measured on, and how far outside: "job sort runs on 1 VM, measured on
// 2–12: its runtime is extrapolated 1 VM below the measured range". New adds
// one per such job, then extrapolationSummary.
func ExtrapolationNote(job model.Job, vms int) string {
	r := job.Range
	side, by := "below", r.Min-vms
	if vms > r.Max {
		side, by = "above", vms-r.Max
	}
	return fmt.Sprintf("job %s runs on %s, measured on %d–%d: its runtime is extrapolated %s %s the measured range",
		job.Name, countVMs(vms), r.Min, r.Max, countVMs(by), side)
}

// extrapolationSummary follows the extrapolation notes: what rests on them.
const extrapolationSummary = "the makespan, and any optimum or bound, rest on those extrapolations; packer plan --within-measured keeps every job inside its measured range"

// countVMs is "1 VM" or "n VMs".
func countVMs(n int) string {
	if n == 1 {
		return "1 VM"
	}
	return fmt.Sprintf("%d VMs", n)
}

func saving(makespan, sequential float64) float64 {
	if sequential <= 0 {
		return 0
	}
	return 100 * (1 - makespan/sequential)
}

// planID is the workload name reduced to [a-z0-9-] and the first 8 hex digits
// of a hash of the cluster, the jobs and the phases: the same plan always gets
// the same ID, and a different plan for the same workload a different one.
func planID(pl *Plan) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	_ = enc.Encode(pl.Cluster)
	_ = enc.Encode(pl.Jobs)
	_ = enc.Encode(pl.Phases)
	var b strings.Builder
	for _, r := range strings.ToLower(pl.Workload) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if len(name) > 24 {
		name = strings.Trim(name[:24], "-")
	}
	if name == "" {
		name = "plan"
	}
	return name + "-" + hex.EncodeToString(h.Sum(nil))[:8]
}

// Problem rebuilds the planning problem the plan was made for.
func (pl *Plan) Problem() *model.Problem {
	return &model.Problem{Jobs: pl.Jobs, Cluster: pl.Cluster.Cluster}
}

// Schedule rebuilds the schedule from the plan's phases.
func (pl *Plan) Schedule() (model.Schedule, error) {
	idx := make(map[string]int, len(pl.Jobs))
	for i, j := range pl.Jobs {
		idx[j.Name] = i
	}
	var s model.Schedule
	for _, ph := range pl.Phases {
		var out model.Phase
		for _, j := range ph.Jobs {
			i, ok := idx[j.Name]
			if !ok {
				return model.Schedule{}, fmt.Errorf("phases[%d]: job %q is not among the plan's jobs", ph.Index, j.Name)
			}
			out.Jobs = append(out.Jobs, model.Assignment{Job: i, VMs: j.VMs, Role: j.Role})
		}
		s.Phases = append(s.Phases, out)
	}
	return s, nil
}

// ErrInvalid is wrapped by every error Verify and Parse report.
var ErrInvalid = errors.New("invalid plan")

// Verify checks that a plan document is internally consistent and feasible:
// the cluster and jobs are valid; every job is in exactly one phase; each
// phase respects the packing paper's constraints (model.Problem.Check); every machine holds at
// most k primary VMs on distinct disks 0..k−1 and at most ⌊host VMs/r⌋ extra VMs,
// all diskless; each job's VMs in the placement match its entry, numbered
// 0..n−1; and runtimes, durations, starts, the makespans, the saving and the
// mean completion agree with the models to a relative 1e-9.
func (pl *Plan) Verify() error {
	if pl.Version != Version {
		return fmt.Errorf("%w: version %d, this packer reads version %d", ErrInvalid, pl.Version, Version)
	}
	if !validID(pl.ID) {
		return fmt.Errorf("%w: id %q: want 1–40 characters of a–z, 0–9 and inner hyphens (it names VMs and files)", ErrInvalid, pl.ID)
	}
	c := pl.Cluster.Cluster
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	w := model.Workload{Name: pl.Workload, Jobs: pl.Jobs}
	if err := w.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	p := pl.Problem()
	s, err := pl.Schedule()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := p.Check(s); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	near := func(a, b float64) bool {
		return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b))
	}
	var t, completion float64
	for i, ph := range pl.Phases {
		at := fmt.Sprintf("phases[%d]", i)
		if ph.Index != i {
			return fmt.Errorf("%w: %s: index is %d", ErrInvalid, at, ph.Index)
		}
		if !near(ph.Start, t) {
			return fmt.Errorf("%w: %s: start %v, but the phases before it end at %v", ErrInvalid, at, ph.Start, t)
		}
		var dur float64
		for k, j := range ph.Jobs {
			rt := p.Runtime(s.Phases[i].Jobs[k].Job, j.VMs, j.Role)
			if !near(j.Runtime, rt) {
				return fmt.Errorf("%w: %s: job %q: runtime %v, its model gives %v", ErrInvalid, at, j.Name, j.Runtime, rt)
			}
			dur = max(dur, rt)
			completion += t + rt
		}
		if !near(ph.Duration, dur) {
			return fmt.Errorf("%w: %s: duration %v, its slowest job takes %v", ErrInvalid, at, ph.Duration, dur)
		}
		t += dur
		if err := p.CheckPlacement(s.Phases[i], ph.Hosts); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, at, err)
		}
	}
	if err := pl.verifyBound(near); err != nil {
		return err
	}
	switch {
	case !near(pl.Makespan, t):
		return fmt.Errorf("%w: makespan %v, the phases add up to %v", ErrInvalid, pl.Makespan, t)
	case !near(pl.SequentialMakespan, p.SequentialMakespan()):
		return fmt.Errorf("%w: sequential_makespan %v, the models give %v", ErrInvalid, pl.SequentialMakespan, p.SequentialMakespan())
	case !near(pl.SavingPercent, saving(t, pl.SequentialMakespan)):
		return fmt.Errorf("%w: saving_percent %v, the makespans give %v", ErrInvalid, pl.SavingPercent, saving(t, pl.SequentialMakespan))
	case !near(pl.MeanCompletion, completion/float64(len(pl.Jobs))):
		return fmt.Errorf("%w: mean_completion %v, the phases give %v", ErrInvalid, pl.MeanCompletion, completion/float64(len(pl.Jobs)))
	}
	return nil
}

// verifyBound checks that an optimum or lower bound lies below the makespan
// and that the gap agrees with it.
func (pl *Plan) verifyBound(near func(a, b float64) bool) error {
	ref, what := pl.LowerBound, "lower_bound"
	if pl.Optimum != nil {
		ref, what = pl.Optimum, "optimum"
	}
	for _, v := range []struct {
		name string
		x    *float64
	}{{"optimum", pl.Optimum}, {"lower_bound", pl.LowerBound}} {
		if v.x != nil && (math.IsNaN(*v.x) || math.IsInf(*v.x, 0) || *v.x <= 0 || *v.x > pl.Makespan*(1+1e-9)) {
			return fmt.Errorf("%w: %s %v must be positive and at most the makespan %v", ErrInvalid, v.name, *v.x, pl.Makespan)
		}
	}
	switch {
	case ref == nil && pl.GapPercent != nil:
		return fmt.Errorf("%w: gap_percent %v without an optimum or lower_bound", ErrInvalid, *pl.GapPercent)
	case ref != nil && pl.GapPercent == nil:
		return fmt.Errorf("%w: %s without gap_percent", ErrInvalid, what)
	case ref != nil && math.Abs(*pl.GapPercent-gapPercent(pl.Makespan, *ref)) > 1e-9*max(1, math.Abs(*pl.GapPercent)):
		return fmt.Errorf("%w: gap_percent %v, the makespan and %s give %v", ErrInvalid, *pl.GapPercent, what, gapPercent(pl.Makespan, *ref))
	}
	return nil
}

// gapPercent is 100·(makespan − ref)/ref.
func gapPercent(makespan, ref float64) float64 { return 100 * (makespan - ref) / ref }

// SetOptimum records the proven optimum and the plan's gap to it.
func (pl *Plan) SetOptimum(opt float64) {
	g := gapPercent(pl.Makespan, opt)
	pl.Optimum, pl.GapPercent = &opt, &g
}

// SetLowerBound records a lower bound and, unless an optimum is recorded, the
// plan's gap to it.
func (pl *Plan) SetLowerBound(lb float64) {
	pl.LowerBound = &lb
	if pl.Optimum == nil {
		g := gapPercent(pl.Makespan, lb)
		pl.GapPercent = &g
	}
}

// MarshalIndent returns the plan as an indented JSON document ending in a
// newline; a document of more than CompactBytes is left compact, on one
// line: indenting is most of the cost of writing one (5,000 jobs on 200
// hosts: 1.4 s of 1.8 s, and 240 MB rather than about 150 MB), and no one
// reads such a plan by eye.
func (pl *Plan) MarshalIndent() ([]byte, error) {
	b, err := json.Marshal(pl)
	if err != nil {
		return nil, err
	}
	if len(b) > CompactBytes {
		return append(b, '\n'), nil
	}
	var out bytes.Buffer
	out.Grow(2 * len(b))
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// CompactBytes is the size past which MarshalIndent leaves a plan compact.
const CompactBytes = 32 << 20

// Parse decodes a plan document and verifies it; name is used in errors.
func Parse(data []byte, name string) (*Plan, error) {
	data = model.TrimBOM(data)
	if err := model.WrongFile(data, model.FilePlan); err != nil {
		return nil, &model.InputError{File: name, Err: fmt.Errorf("%w: %w", ErrInvalid, err)}
	}
	var pl Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&pl); err != nil {
		return nil, &model.InputError{File: name, Err: fmt.Errorf("%w: %v", ErrInvalid, err)}
	}
	// A second document (or any text) after the plan is a file pasted
	// together by mistake: refuse it rather than apply half of it.
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		rest := bytes.TrimLeft(data[end:], " \t\r\n")
		at := model.JSONPosition(data, int64(len(data)-len(rest)))
		return nil, &model.InputError{File: name, Err: fmt.Errorf("%w: data after the plan document, at %s", ErrInvalid, at)}
	}
	if err := pl.Verify(); err != nil {
		return nil, &model.InputError{File: name, Err: err}
	}
	return &pl, nil
}

// MaxFileBytes is the largest plan document ReadFile reads: 64 MiB, some
// hundred thousand jobs' placements.
const MaxFileBytes = 64 << 20

// ReadFile reads and verifies a plan document; one of more than MaxFileBytes
// is refused before it is parsed.
func ReadFile(path string) (*Plan, error) {
	data, err := model.ReadFileLimit(path, MaxFileBytes, "a plan document")
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// validID reports whether id can name VMs, host names and state files: 1–40
// characters of a–z, 0–9 and hyphens, not starting or ending with a hyphen.
func validID(id string) bool {
	if id == "" || len(id) > 40 || id[0] == '-' || id[len(id)-1] == '-' {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
