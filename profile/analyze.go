package profile

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/packer-sched/packer/model"
)

// Settings tune Analyze. The zero value (or nil) gives the packing paper's thresholds
// and 95 % intervals.
type Settings struct {
	// Thresholds classify the job at the reference size; zero fields take
	// model.DefaultThresholds (60 % CPU, 100 MB/s, 6 nodes).
	Thresholds model.Thresholds
	// IntervalLevel is the confidence level of the reported intervals for a
	// and b, in (0, 1); default 0.95.
	IntervalLevel float64
	// Form forces one runtime model form (model.Kinds); empty chooses by
	// leave-one-node-count-out prediction error (model.ChooseModel), keeping
	// the power law while it predicts within model.PowerTolerance of the best.
	Form model.Kind
	// Strict makes FitObservationFiles refuse the whole input when one job
	// cannot be fitted (measured at one node count, or too few for Form);
	// otherwise such jobs are skipped and named (Fitted.Skipped), as a real
	// job history always has some.
	Strict bool
	// Shape is the VM shape (vCPUs, memory) the runs were measured on,
	// recorded in every fitted job (model.Job.Shape) so that a plan on
	// VMs of another shape says so; nil records none.
	Shape *model.VMShape
}

func (s *Settings) validate() (Settings, error) {
	var v Settings
	if s != nil {
		v = *s
	}
	v.Thresholds = v.Thresholds.WithDefaults()
	if err := v.Thresholds.Validate(); err != nil {
		return v, fmt.Errorf("profile: %w", err)
	}
	if v.IntervalLevel == 0 {
		v.IntervalLevel = 0.95
	}
	if !(v.IntervalLevel > 0 && v.IntervalLevel < 1) {
		return v, fmt.Errorf("profile: IntervalLevel must lie in (0, 1), got %v", v.IntervalLevel)
	}
	if v.Form != "" {
		if _, err := model.ParseKind(string(v.Form)); err != nil {
			return v, fmt.Errorf("profile: Form: %w", err)
		}
	}
	if v.Shape != nil {
		if err := v.Shape.Validate(); err != nil {
			return v, fmt.Errorf("profile: %w", err)
		}
		shape := *v.Shape // each job its own copy
		v.Shape = &shape
	}
	return v, nil
}

// NodeSummary is the spread of the runs at one node count.
type NodeSummary struct {
	Nodes int
	// Runs counts the successful runs, Failed the failed ones.
	Runs, Failed int
	// Median, Min and Max are wall seconds over the successful runs; zero
	// when there were none.
	Median, Min, Max float64
	// CPUUtil and IOMBps are medians over the successful runs that had them;
	// nil when none had.
	CPUUtil, IOMBps *float64
}

// Result is a fitted, classified job and how it came about.
type Result struct {
	// Job is ready for a workload file: model, class, measured range and
	// the Profile record.
	Job model.Job
	// Fit is the power law's regression on every successful run, reported
	// whichever form was chosen.
	Fit model.Fit
	// Choice is every form's leave-one-out errors and the form chosen for
	// Job.Model.
	Choice model.Choice
	// Nodes summarises the runs per node count, in increasing node count.
	Nodes []NodeSummary
	// Warnings are the reasons to doubt the model (also in Job.Profile).
	Warnings []string
}

// ReferenceSource says where the class's numbers at the reference size come
// from: "measured" when runs were made at that size, "interpolated" (in log
// space) when it lies between measured sizes, and "nearest measured" when it
// lies outside them.
func (r *Result) ReferenceSource() string {
	j := r.Job
	p := j.Profile
	switch ref := p.Thresholds.ReferenceNodes; {
	case p.ReferenceMeasured:
		return "measured"
	case ref < j.Range.Min || ref > j.Range.Max:
		return "nearest measured"
	}
	return "interpolated"
}

// ErrTooFewNodeCounts is returned when the successful runs cover fewer than
// two distinct node counts: no power law can be fitted.
var ErrTooFewNodeCounts = errors.New("profile: successful runs at fewer than two distinct node counts, nothing to fit")

// Analyze fits F(n) = a·n^b to the successful observations of one job (all
// points, repeats included, by model.FitPowerLaw), summarises the spread per
// node count, and classifies the job from the median CPU utilisation and I/O
// rate at the reference size. When the reference size was not measured the
// medians are interpolated linearly in ln n (and in ln value when both
// neighbours are positive), since utilisation and rates change smoothly with
// the scale of the job; outside the measured range the nearest node count is
// used rather than extrapolating a quantity bounded like utilisation.
//
// Failed observations are kept in the profile but not fitted. Analyze is pure:
// it reads no clock and no file.
func Analyze(job string, obs []model.Observation, s *Settings) (*Result, error) {
	set, err := s.validate()
	if err != nil {
		return nil, err
	}
	th := set.Thresholds
	for i, o := range obs {
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("profile: job %q: observation %d: %w", job, i+1, err)
		}
	}
	var nodes, secs []float64
	for _, o := range obs {
		if !o.Failed {
			nodes = append(nodes, float64(o.Nodes))
			secs = append(secs, o.Seconds)
		}
	}
	sum := summarise(obs)
	fit, err := model.FitPowerLaw(nodes, secs)
	if errors.Is(err, model.ErrTooFewPoints) {
		return nil, fmt.Errorf("%w (job %q: %d successful of %d runs)", ErrTooFewNodeCounts, job, len(nodes), len(obs))
	}
	if err != nil {
		return nil, fmt.Errorf("profile: job %q: %w", job, err)
	}
	choice, err := model.ChooseModel(nodes, secs, set.Form)
	if err != nil {
		return nil, fmt.Errorf("profile: job %q: %w", job, err)
	}
	r := &Result{Fit: fit, Choice: choice, Nodes: sum}
	var measured []NodeSummary
	failed := 0
	for _, ns := range sum {
		if ns.Runs > 0 {
			measured = append(measured, ns)
		}
		failed += ns.Failed
	}
	lo, hi := measured[0].Nodes, measured[len(measured)-1].Nodes
	warn := func(format string, args ...any) { r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...)) }
	if len(measured) < 3 {
		warn("only %d distinct node counts measured: two points always fit a line, so R² says nothing; measure at least three", len(measured))
	}
	if fit.R2 < 0.9 {
		warn("R² = %.3f, below 0.9: the power law explains the runtimes poorly", fit.R2)
	}
	if fit.B > 0 {
		warn("b = %.3f is positive: the job got slower with more nodes", fit.B)
	}
	if failed > 0 {
		warn("%d of %d runs failed and were not fitted", failed, len(obs))
	}
	if w := zigzagWarning(choice.Model()); w != "" {
		warn("%s", w)
	}

	cpu, cpuExact, cpuOK := atReference(measured, th.ReferenceNodes, func(n NodeSummary) *float64 { return n.CPUUtil })
	io, ioExact, ioOK := atReference(measured, th.ReferenceNodes, func(n NodeSummary) *float64 { return n.IOMBps })
	p := &model.Profile{
		Observations:      slices.Clone(obs),
		R2:                fit.R2,
		ResidualSE:        fit.ResidualSE,
		Thresholds:        th,
		ReferenceMeasured: (cpuOK || ioOK) && (!cpuOK || cpuExact) && (!ioOK || ioExact),
		Choice:            choiceRecord(choice),
	}
	if a, b, ok := fit.Intervals(set.IntervalLevel); ok {
		p.IntervalLevel, p.AInterval, p.BInterval = set.IntervalLevel, &a, &b
	}
	if cpuOK {
		p.CPUUtil = &cpu
	} else {
		warn("no CPU utilisation measured: not classified as CPU-intensive")
	}
	if ioOK {
		p.IOMBps = &io
	} else {
		warn("no I/O rate measured: not classified as I/O-intensive")
	}
	if (cpuOK || ioOK) && !p.ReferenceMeasured {
		if th.ReferenceNodes < lo || th.ReferenceNodes > hi {
			warn("reference size %d nodes lies outside the measured range %d–%d: classified on the nearest measured node count", th.ReferenceNodes, lo, hi)
		} else {
			warn("reference size %d nodes not measured: CPU and I/O interpolated in log space between its neighbours", th.ReferenceNodes)
		}
	}
	cpuInt, ioInt := th.Classify(cpu, io)
	p.Warnings = r.Warnings
	r.Job = model.Job{
		Name:         job,
		Model:        choice.Model(),
		CPUIntensive: cpuOK && cpuInt,
		IOIntensive:  ioOK && ioInt,
		Range:        &model.NodeRange{Min: lo, Max: hi},
		Shape:        set.Shape,
		Profile:      p,
	}
	return r, nil
}

// zigzagWarning is the warning for a fitted table whose medians zigzag,
// "" for any other model.
func zigzagWarning(m model.Model) string {
	t, ok := m.(*model.Table)
	if !ok {
		return ""
	}
	at, than, more := zigzag(t)
	if at < 0 {
		return ""
	}
	also := ""
	if more > 0 {
		also = fmt.Sprintf(", and %d more node count like it", more)
	}
	return fmt.Sprintf("the table's medians zigzag: slower at %d nodes (%.4g s) than at %d (%.4g s)%s; plan searches with the faster time there, so its bounds hold, and reports plans at the measured times; whether the slowdown is real or noise only more repeats tell",
		t.Nodes[at], t.Times[at], t.Nodes[than], t.Times[than], also)
}

// zigzag finds where a table's medians are not valley-shaped: the first
// node count slower than a smaller one before the fastest count, or than a
// larger one after it (at, and the fastest such other count than), and how
// many more counts are; at is −1 where the medians fall and then rise.
func zigzag(t *model.Table) (at, than, more int) {
	low := 0
	for i, v := range t.Times {
		if v < t.Times[low] {
			low = i
		}
	}
	at, than = -1, -1
	for i := range t.Times {
		w := -1 // the fastest count on the far side of i from low
		lo, hi := 0, i
		if i > low {
			lo, hi = i+1, len(t.Times)
		}
		for k := lo; k < hi; k++ {
			if w < 0 || t.Times[k] < t.Times[w] {
				w = k
			}
		}
		if w < 0 || t.Times[w] >= t.Times[i] {
			continue
		}
		if at < 0 {
			at, than = i, w
		} else {
			more++
		}
	}
	return at, than, more
}

// summarise groups observations by node count, in increasing order.
func summarise(obs []model.Observation) []NodeSummary {
	by := map[int][]model.Observation{}
	for _, o := range obs {
		by[o.Nodes] = append(by[o.Nodes], o)
	}
	keys := make([]int, 0, len(by))
	for n := range by {
		keys = append(keys, n)
	}
	sort.Ints(keys)
	out := make([]NodeSummary, 0, len(keys))
	for _, n := range keys {
		ns := NodeSummary{Nodes: n}
		var secs, cpu, io []float64
		for _, o := range by[n] {
			if o.Failed {
				ns.Failed++
				continue
			}
			ns.Runs++
			secs = append(secs, o.Seconds)
			if o.CPUUtil != nil {
				cpu = append(cpu, *o.CPUUtil)
			}
			if o.IOMBps != nil {
				io = append(io, *o.IOMBps)
			}
		}
		if len(secs) > 0 {
			ns.Median = median(secs)
			ns.Min, ns.Max = slices.Min(secs), slices.Max(secs)
		}
		if len(cpu) > 0 {
			v := median(cpu)
			ns.CPUUtil = &v
		}
		if len(io) > 0 {
			v := median(io)
			ns.IOMBps = &v
		}
		out = append(out, ns)
	}
	return out
}

// median of a non-empty slice; the mean of the middle two for even lengths.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// atReference returns the metric at ref nodes: measured (exact = true),
// interpolated between the nearest measured node counts on either side, or
// taken from the nearest end of the range. ok is false when no node count has
// the metric.
func atReference(sum []NodeSummary, ref int, metric func(NodeSummary) *float64) (v float64, exact, ok bool) {
	type pt struct{ n, v float64 }
	var pts []pt
	for _, ns := range sum {
		if m := metric(ns); m != nil {
			pts = append(pts, pt{float64(ns.Nodes), *m})
		}
	}
	if len(pts) == 0 {
		return 0, false, false
	}
	r := float64(ref)
	if r <= pts[0].n {
		return pts[0].v, r == pts[0].n, true
	}
	last := pts[len(pts)-1]
	if r >= last.n {
		return last.v, r == last.n, true
	}
	for i := 1; i < len(pts); i++ {
		p, q := pts[i-1], pts[i]
		if r == q.n {
			return q.v, true, true
		}
		if r < q.n {
			t := (math.Log(r) - math.Log(p.n)) / (math.Log(q.n) - math.Log(p.n))
			if p.v > 0 && q.v > 0 {
				return math.Exp(math.Log(p.v) + t*(math.Log(q.v)-math.Log(p.v))), false, true
			}
			return p.v + t*(q.v-p.v), false, true
		}
	}
	panic("unreachable: ref lies inside the sorted range")
}

// choiceRecord is the profile's record of how a form other than the power
// law was chosen; nil when the power law was kept, so that such profiles
// read as they always did.
func choiceRecord(c model.Choice) *model.ModelChoice {
	if c.Chosen == model.KindPower {
		return nil
	}
	rec := &model.ModelChoice{Chosen: c.Chosen, Reason: c.Reason}
	for _, f := range c.Forms {
		e := model.FormError{Kind: f.Kind, Refused: f.Refused}
		if f.Folds > 0 {
			e.Median, e.Worst = valuePtr(f.Median), valuePtr(f.Worst)
		}
		rec.LeaveOneOut = append(rec.LeaveOneOut, e)
	}
	return rec
}

// valuePtr is a pointer to a copy of v, for optional JSON numbers.
func valuePtr(v float64) *float64 { return &v }
