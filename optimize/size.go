package optimize

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/packer-sched/packer/model"
)

// Sizing answers the capacity planner's question: the fewest hosts P whose
// plan finishes a workload by a deadline D, and the proof that P − 1 cannot.
//
// Two facts make it cheap. Every constraint of the phase model only loosens
// as hosts are added (more primary VMs, more room for extras), so a schedule
// for P − 1 hosts is one for P hosts: the optimum makespan OPT(P) is
// non-increasing in P, and a proven lower bound above D at P − 1 rules out
// every smaller cluster too. LowerBound is non-increasing in P as well, and
// costs milliseconds where a plan costs seconds. So Size
//
//  1. bisects on LowerBound alone for P_lo, the fewest hosts whose bound is
//     at most D: below it no cluster can meet D;
//  2. plans (Solve) at P_lo, whose plan may meet D and whose own bound (the
//     exact optimum, or column generation's) may rule P_lo out; past the
//     exact solver's size, at the most hosts where column generation's
//     bound is likely to rule out that count and every smaller one;
//  3. plans upwards, jumping to the count the last plan's makespan over
//     LowerBound predicts will meet D, until a plan meets it, then bisects
//     between the last plan that missed and the fewest that met;
//  4. plans the fewest unsettled count while its plan may settle it.
//
// The answer is exact when P_lo reaches P; otherwise it is the honest
// interval [P_lo, P]: P hosts suffice, fewer than P_lo cannot, and the
// counts between are not settled by the bounds. Past the exact solver's
// size the plans are heuristic and their bounds loose, so SizeSettings.Budget
// shares a time budget among a few plans rather than giving many plans too
// little time each.

// Sizing errors, wrapped with the deadline, job or host count in the message.
var (
	// ErrBadDeadline: the deadline is not a positive, finite number of
	// seconds.
	ErrBadDeadline = errors.New("deadline must be a positive number of seconds")
	// ErrJobTooLong: some job alone takes longer than the deadline on every
	// VM count up to MaxHosts hosts.
	ErrJobTooLong = errors.New("a job is longer than the deadline")
	// ErrUnreachable: no plan with at most MaxHosts hosts meets the
	// deadline.
	ErrUnreachable = errors.New("deadline unreachable")
)

// DefaultMaxHosts is SizeSettings.MaxHosts's default.
const DefaultMaxHosts = 100

// sizeTolerance is the relative slack under which a makespan meets the
// deadline and a bound does not exceed it: equal sums added in another order
// must not flip an answer.
const sizeTolerance = 1e-9

// SizeSettings tunes Size. The zero value (and a nil *SizeSettings) is valid.
type SizeSettings struct {
	// MaxHosts is the most hosts Size considers. 0 means DefaultMaxHosts.
	MaxHosts int
	// Method plans each host count; "" means MethodAuto (exact up to
	// Solve.ExactJobs jobs, so the answer is then always exact).
	Method Method
	// Solve configures each plan. Without a Budget its TimeLimit bounds
	// each plan; with one, Size sets each plan's TimeLimit. nil means
	// Solve's defaults.
	Solve *Settings
	// Budget, if positive, is the time the plans of one search share when
	// they are not exact (past Solve.ExactJobs jobs, or with pso or columns):
	// the first gets two fifths of it, the next three a fifth each, so the
	// search ends after about Budget. Only the upward search for a first
	// plan that meets the deadline may go past it, with a tenth of it per
	// further plan. Budget is counted in the plans' time limits: Size reads
	// no clock.
	Budget time.Duration
	// Progress, if not nil, is called after every bound and every plan with
	// the point just learnt.
	Progress func(SizePoint)
}

// SizePoint is what Size learnt about one host count.
type SizePoint struct {
	// Hosts is the host count P.
	Hosts int
	// Area is LowerBound at P (seconds): the cheap area and longest-job
	// bound every count examined has.
	Area float64
	// PlanBound is what the plan at P proved (seconds): its makespan when
	// the plan is the proven optimum (Optimal), else column generation's
	// lower bound; 0 when no plan was made or its method proves none.
	PlanBound float64
	// Bound is the best proven lower bound on any plan's makespan at P: the
	// larger of Area and PlanBound.
	Bound float64
	// Planned tells whether a plan was made at P; Makespan is then its
	// makespan (seconds) and Optimal whether it is the proven optimum.
	Planned  bool
	Makespan float64
	Optimal  bool
}

// SizeResult is Size's answer.
type SizeResult struct {
	// Deadline is D in seconds, as given.
	Deadline float64
	// Hosts is P, the fewest hosts whose plan was found to meet D; Plan is
	// that plan and Makespan its makespan (seconds).
	Hosts    int
	Plan     *Result
	Makespan float64
	// Lo is P_lo, the fewest hosts not proven unable to meet D: every count
	// below it has a lower bound above D. Exact is Lo == Hosts.
	Lo    int
	Exact bool
	// Proof is the bound above D at Lo − 1 that rules it out (seconds); 0
	// when Lo is 1 (no cluster has no hosts).
	Proof float64
	// Curve is every host count examined, by increasing Hosts.
	Curve []SizePoint
	// Cluster is the cluster at Hosts hosts.
	Cluster model.Cluster
	// Plans counts the plans made; Spent is the time limits given to those
	// that were not exact (what the Budget paid for).
	Plans int
	Spent time.Duration
}

// String is the answer in one line: "4 hosts; 3 proven impossible: bound
// 5 h 1 m > deadline 4 h" or "between 3 and 4 hosts: ...".
func (r *SizeResult) String() string {
	switch {
	case r.Exact && r.Lo == 1:
		return fmt.Sprintf("%d host (the fewest possible); plan makespan %s ≤ deadline %s", r.Hosts, model.FormatSeconds(r.Makespan), model.FormatSeconds(r.Deadline))
	case r.Exact:
		return fmt.Sprintf("%d hosts; %d proven impossible: lower bound %s > deadline %s", r.Hosts, r.Hosts-1, model.FormatSeconds(r.Proof), model.FormatSeconds(r.Deadline))
	}
	unsettled := fmt.Sprintf("%d to %d", r.Lo, r.Hosts-1)
	if r.Lo == r.Hosts-1 {
		unsettled = fmt.Sprint(r.Lo)
	}
	fewer := ""
	if r.Lo > 1 {
		fewer = fmt.Sprintf("; fewer than %d are ruled out (lower bound at %d: %s > deadline)", r.Lo, r.Lo-1, model.FormatSeconds(r.Proof))
	}
	return fmt.Sprintf("between %d and %d hosts: %d meet the deadline %s; %s not settled by the bounds%s",
		r.Lo, r.Hosts, r.Hosts, model.FormatSeconds(r.Deadline), unsettled, fewer)
}

// sizer holds one Size search: the workload, the cluster without its host
// count, and what was learnt per host count.
type sizer struct {
	w        *model.Workload
	c        model.Cluster
	deadline float64
	set      SizeSettings
	points   map[int]*SizePoint
	plans    map[int]*Result
	paid     int           // plans made with a share of the budget
	spent    time.Duration // the time limits given to them
}

// Size returns the fewest hosts, at most MaxHosts, on which the workload's
// plan (Solve with set.Method) has makespan ≤ deadline (seconds), for the
// cluster c with its Hosts ignored, and the proof or interval the lower
// bounds give (see the comment at the top of size.go). The cluster's zero
// fields take the paper's values.
//
// Errors: ErrBadDeadline, ErrJobTooLong and ErrUnreachable (wrapped, the
// message naming the deadline, job or host count), a *SettingError for bad
// settings, and the workload's or Solve's own.
func Size(w *model.Workload, c model.Cluster, deadline float64, set *SizeSettings) (*SizeResult, error) {
	z := &sizer{w: w, c: c.WithDefaults(), deadline: deadline, points: map[int]*SizePoint{}, plans: map[int]*Result{}}
	if set != nil {
		z.set = *set
	}
	if err := z.validate(); err != nil {
		return nil, err
	}
	lo, err := z.boundSearch()
	if err != nil {
		return nil, err
	}
	hi, err := z.planSearch(lo)
	if err != nil {
		return nil, err
	}
	return z.result(hi), nil
}

// validate checks the deadline and settings, fills defaults, and checks that
// the cluster and workload are valid at MaxHosts hosts.
func (z *sizer) validate() error {
	if math.IsNaN(z.deadline) || math.IsInf(z.deadline, 0) || z.deadline <= 0 {
		return fmt.Errorf("optimize: size: %w, got %v", ErrBadDeadline, z.deadline)
	}
	switch {
	case z.set.MaxHosts < 0:
		return &SettingError{Field: "MaxHosts", Value: z.set.MaxHosts, Rule: fmt.Sprintf("must be at least 1 (0: %d)", DefaultMaxHosts)}
	case z.set.Budget < 0:
		return &SettingError{Field: "Budget", Value: z.set.Budget, Rule: "must not be negative (0: Solve.TimeLimit per plan)"}
	case z.set.MaxHosts == 0:
		z.set.MaxHosts = DefaultMaxHosts
	}
	if z.set.Method == "" {
		z.set.Method = MethodAuto
	}
	if _, err := ParseMethod(string(z.set.Method)); err != nil {
		return &SettingError{Field: "Method", Value: z.set.Method, Rule: "must be one of " + MethodList()}
	}
	if err := z.set.Solve.Validate(); err != nil {
		return err
	}
	p, err := z.problem(z.set.MaxHosts)
	if err != nil {
		return err
	}
	return z.checkJobs(p)
}

// checkJobs rejects a job that alone, on any VM count the largest cluster
// offers, outlasts the deadline.
func (z *sizer) checkJobs(p *model.Problem) error {
	n := p.Cluster.PrimaryVMs()
	for j, job := range p.Jobs {
		best, at := math.Inf(1), 0
		for x := 1; x <= n; x++ {
			if t := p.Runtime(j, x, model.Primary); t < best {
				best, at = t, x
			}
		}
		if !meets(best, z.deadline) {
			return fmt.Errorf("optimize: size: %w: job %q takes at least %s (on %d VMs), deadline %s, on up to %d hosts × %d disks",
				ErrJobTooLong, job.Name, model.FormatSeconds(best), at, model.FormatSeconds(z.deadline), z.set.MaxHosts, z.c.DisksPerHost)
		}
	}
	return nil
}

// problem is the workload on the cluster with the given host count.
func (z *sizer) problem(hosts int) (*model.Problem, error) {
	c := z.c
	c.Hosts = hosts
	return model.NewProblem(z.w, c)
}

// meets reports whether a makespan meets deadline d, within sizeTolerance.
func meets(makespan, d float64) bool { return makespan <= d*(1+sizeTolerance) }

// result assembles the answer for the plan at hi.
func (z *sizer) result(hi int) *SizeResult {
	r := &SizeResult{Deadline: z.deadline, Hosts: hi, Plan: z.plans[hi], Makespan: z.points[hi].Makespan, Lo: min(z.lo(), hi),
		Plans: len(z.plans), Spent: z.spent}
	r.Exact = r.Lo == hi
	if pt, ok := z.points[r.Lo-1]; ok {
		r.Proof = pt.Bound
	}
	for _, pt := range z.points {
		r.Curve = append(r.Curve, *pt)
	}
	sort.Slice(r.Curve, func(a, b int) bool { return r.Curve[a].Hosts < r.Curve[b].Hosts })
	r.Cluster = z.c
	r.Cluster.Hosts = hi
	return r
}
