package sim

import (
	"fmt"
	"github.com/packer-sched/packer/sim/internal/engine"
	"math"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/stat"
)

// TraceKind names what happened in a TraceEvent.
type TraceKind uint8

// The traced events.
const (
	TraceArrive TraceKind = iota // a job is submitted
	TraceStart                   // a task starts on a node
	TraceEnd                     // a task ends
	TraceKill                    // a running task is killed and will run again
	TraceFinish                  // a job's last task ends
)

// String is the event's name in traces: arrive, start, end, kill or finish.
func (k TraceKind) String() string {
	return [...]string{"arrive", "start", "end", "kill", "finish"}[k]
}

// TraceEvent is one event of a run. Task and Node are −1 for job events;
// Locality is meaningful for task events.
type TraceEvent struct {
	Time     float64
	Kind     TraceKind
	Job      int
	Task     int
	Node     int
	Locality Locality
}

// Tracer receives a run's events in order. It is an interface rather than a
// file so the core stays free of effects: the CLI writes CSV, tests record.
type Tracer interface {
	Event(e TraceEvent)
}

// LocalityCounts counts completed map tasks by where they ran.
type LocalityCounts struct {
	Node   int `json:"node_local"`
	Rack   int `json:"rack_local"`
	Remote int `json:"remote"`
	None   int `json:"no_input"`
}

// WithInput is the number of map tasks that read a block.
func (l LocalityCounts) WithInput() int { return l.Node + l.Rack + l.Remote }

// NodeFraction is the fraction of map tasks with input that ran node-local; 0
// when there are none.
func (l LocalityCounts) NodeFraction() float64 {
	if l.WithInput() == 0 {
		return 0
	}
	return float64(l.Node) / float64(l.WithInput())
}

// NodeShare is NodeFraction as every output for people prints it: a
// percentage to one decimal ("91.8 %"), or "-" when no map task read a
// block (all no_input, or no maps), where a share of none is no number.
// The CSVs leave that cell empty; JSON has the counts.
func (l LocalityCounts) NodeShare() string { return Share(l.Node, l.WithInput()) }

// Share is k of n as a percentage to one decimal ("12.5 %"), or "-" when n
// is 0.
func Share(k, n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(k)/float64(n), 'f', 1, 64) + " %"
}

func (l *LocalityCounts) add(m LocalityCounts) {
	l.Node += m.Node
	l.Rack += m.Rack
	l.Remote += m.Remote
	l.None += m.None
}

// JobResult is one job's outcome. Times are seconds from the run's start.
type JobResult struct {
	Name     string  `json:"name"`
	User     string  `json:"user,omitempty"`
	Submit   float64 `json:"submit"`
	Start    float64 `json:"start"`
	Finish   float64 `json:"finish"`
	Response float64 `json:"response"` // Finish − Submit
	// Slowdown is Response ÷ the job's time alone on the empty cluster; 0 until
	// Summarize sets it.
	Slowdown float64        `json:"slowdown"`
	Locality LocalityCounts `json:"locality"`
}

// Result is one policy's run.
type Result struct {
	Policy string `json:"policy"`
	Seed   uint64 `json:"seed"`
	// Makespan is when the last job finishes, in seconds from time 0.
	Makespan float64 `json:"makespan"`
	// Events is the number of events the core processed.
	Events int64 `json:"events"`
	Tasks  int   `json:"tasks"`
	// BusySlotSeconds are slot-seconds spent running tasks, map and reduce
	// (killed attempts included: the slot was busy).
	BusySlotSeconds [2]float64 `json:"busy_slot_seconds"`
	// Utilisation is, for map and for reduce slots, busy slot-seconds ÷ (the
	// cluster's slots of that kind × Makespan).
	Utilisation [2]float64     `json:"utilisation"`
	Locality    LocalityCounts `json:"locality"`
	Summary     Summary        `json:"summary"`
	Jobs        []JobResult    `json:"jobs"`
	// Notes say what a reader should know about the run (Notes, and
	// slowdowns below 1), each starting with the policy's name.
	Notes []string `json:"notes,omitempty"`
}

// Summary are the per-policy statistics over jobs. Quantiles are empirical
// (gonum's stat.Empirical: the smallest value with at least that fraction of
// jobs at or below it).
type Summary struct {
	MeanResponse   float64 `json:"mean_response"`
	MedianResponse float64 `json:"median_response"`
	P95Response    float64 `json:"p95_response"`
	MeanSlowdown   float64 `json:"mean_slowdown"`
	MedianSlowdown float64 `json:"median_slowdown"`
	P95Slowdown    float64 `json:"p95_slowdown"`
	// V95 is the Tyrex paper's slowdown variability: P95Slowdown ÷ MedianSlowdown.
	V95 float64 `json:"v95"`
}

// Summarize sets every job's slowdown from its alone time (alone[j], as Alone
// computes) and fills the Summary. With nil alone only response times are
// summarised.
func (r *Result) Summarize(alone []float64) {
	resp := make([]float64, len(r.Jobs))
	slow := make([]float64, 0, len(r.Jobs))
	for j := range r.Jobs {
		resp[j] = r.Jobs[j].Response
		if alone != nil && alone[j] > 0 {
			r.Jobs[j].Slowdown = r.Jobs[j].Response / alone[j]
			slow = append(slow, r.Jobs[j].Slowdown)
		}
	}
	var s Summary
	s.MeanResponse, s.MedianResponse, s.P95Response = describe(resp)
	if len(slow) > 0 {
		s.MeanSlowdown, s.MedianSlowdown, s.P95Slowdown = describe(slow)
		if s.MedianSlowdown > 0 {
			s.V95 = s.P95Slowdown / s.MedianSlowdown
		}
	}
	r.Summary = s
}

// describe returns the mean, median and 95th percentile of xs (reordered).
func describe(xs []float64) (mean, median, p95 float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	slices.Sort(xs)
	return stat.Mean(xs, nil), stat.Quantile(0.5, stat.Empirical, xs, nil), stat.Quantile(0.95, stat.Empirical, xs, nil)
}

// Alone is every job's time alone on the whole empty cluster: each job is
// simulated by itself, submitted at 0, under FIFO, with the same settings, on
// the cluster's own nodes (without a replayed plan's extra VMs), and with every
// map task at its node-local duration (IgnoreLocality). These are the
// denominators of the slowdowns. Locality is ideal because a baseline that
// FIFO placed off-rack could be beaten by a policy that waits for local slots
// (delay scheduling, HybS): slowdowns of 0.5 (RemoteFactor 2) measured the
// baseline's bad luck, not the policy. Slowdowns can still fall a little
// below 1 where another task order packs the slots better (see Notes).
//
// The jobs run side by side, as many at once as there are cores and
// Settings.MaxMemory holds of the workload's estimate.
func Alone(w *Workload, set *Settings) ([]float64, error) {
	var limit int64
	if set != nil {
		limit = set.MaxMemory
	}
	return aloneOn(w, set, atOnce(0, len(w.Jobs), limit, EstimateMemory(w)))
}

// aloneOn is Alone with k jobs run at once: each job's run is its own, so
// the times do not depend on k. Progress, if set, hears of the pass as a
// whole (policy AloneProgress): tasks of the jobs done of all the tasks.
func aloneOn(w *Workload, set *Settings, k int) ([]float64, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	pr := &aloneProgress{all: w.Tasks()}
	if set != nil {
		pr.report = set.Progress
	}
	a, err := newAloneRunner(w, set, k, pr)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(w.Jobs))
	err = forEach(len(w.Jobs), k, func(j int) (err error) {
		out[j], err = a.time(j)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// aloneRunner runs the jobs of a validated workload each by itself, as
// Alone does, up to k at once. Each run is compiled in the memory of an
// earlier one that ended (engine.Compile), from a store of at most k: on the
// FB-2010 day's 3000 nodes, allocating and filling the per-node arrays for
// each of its 24 000 jobs cost several times running them. Which memory a
// job gets makes no difference: engine.Compile lays out the same state in any.
type aloneRunner struct {
	w        *Workload
	st       Settings
	store    chan *aloneRun
	progress *aloneProgress
}

// aloneRun is the memory one alone run lays out in, kept for the next: the
// engine's state and the policy.
type aloneRun struct {
	s    State
	fifo FIFO
}

// newAloneRunner is the runner of w's jobs with the settings (nil: the
// defaults), k at once, reporting to pr.
func newAloneRunner(w *Workload, set *Settings, k int, pr *aloneProgress) (*aloneRunner, error) {
	st, err := set.withDefaults()
	if err != nil {
		return nil, err
	}
	st.Trace, st.IgnoreLocality, st.Progress = nil, true, nil
	return &aloneRunner{w: w, st: st, store: make(chan *aloneRun, max(1, k)), progress: pr}, nil
}

// time is job j's time alone, Run(one, &FIFO{}, st)'s makespan without
// building the Result; the state goes back to the store after a run that
// ended well (a failed one is dropped, whatever it left). One is valid when
// the workload is; its memory is checked, as Run would.
func (a *aloneRunner) time(j int) (float64, error) {
	job := a.w.Jobs[j]
	job.Arrival = 0
	c := a.w.Cluster
	c.Extras = nil // a plan's overcommitted extra VMs are not the empty cluster
	one := &Workload{Name: a.w.Name, Cluster: c, Jobs: []Job{job}}
	if err := checkMemory(one, a.st.MaxMemory); err != nil {
		return 0, err
	}
	var r *aloneRun
	select {
	case r = <-a.store:
	default:
		r = &aloneRun{}
	}
	r.s.w = one
	r.s.e = engine.Compile(r.s.e, input(one), config(&a.st, &r.fifo), engine.DefaultOptions())
	if err := r.s.e.Run(hooks(&r.s, &r.fifo)); err != nil {
		return 0, err
	}
	makespan := r.s.e.LastEnd() // Result.Makespan; read before another run takes r
	select {
	case a.store <- r:
	default:
	}
	a.progress.add(one.Tasks())
	return makespan, nil
}

// aloneProgress reports an alone pass as a whole to report (if not nil):
// tasks of the jobs done of all, one report at a time, never going back.
type aloneProgress struct {
	mu        sync.Mutex
	done, all int
	report    func(Progress)
}

func (p *aloneProgress) add(tasks int) {
	if p.report == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += tasks
	p.report(Progress{Policy: AloneProgress, TasksDone: p.done, Tasks: p.all})
}

// IdleShare is the share of slots busy under which IdleNote speaks: with
// both kinds of slot busy less than this, every policy finds free slots for
// nearly every task at once, and their results cannot differ much.
const IdleShare = 0.30

// BusyTarget is the share of the busier kind of slot that IdleNote's
// suggested node count would keep busy.
const BusyTarget = 0.70

// IdleCluster says that a comparison's cluster was mostly idle. The busiest
// run of each kind counts: the note is given only if no run had either kind
// of slot IdleShare busy.
type IdleCluster struct {
	// Utilisation is, for map and reduce slots, the highest Utilisation
	// over the runs.
	Utilisation [2]float64 `json:"utilisation"`
	// Nodes is the cluster's node count.
	Nodes int `json:"nodes"`
	// SuggestedNodes is ⌈Nodes × u ÷ BusyTarget⌉, u the busier kind's
	// Utilisation: the same busy slot-seconds over the same makespan on
	// that many nodes keep about BusyTarget of those slots busy. A smaller
	// cluster may stretch the makespan, which lowers the share again.
	SuggestedNodes int `json:"suggested_nodes"`
	// Note is the sentence the command line prints.
	Note string `json:"note"`
}

// IdleNote is the note of results on w's cluster whose slots were all
// under IdleShare busy, or nil when a run was busier, or there were no runs.
// Results of another workload (a plan replay's extra VMs) are the caller's
// to leave out.
func IdleNote(w *Workload, results []*Result) *IdleCluster {
	if len(results) == 0 {
		return nil
	}
	var u [2]float64
	for _, r := range results {
		for k := range u {
			u[k] = max(u[k], r.Utilisation[k])
		}
	}
	if u[Map] >= IdleShare || u[Reduce] >= IdleShare {
		return nil
	}
	nodes := w.Cluster.WithDefaults().Nodes
	busier := max(u[Map], u[Reduce])
	n := max(1, int(math.Ceil(float64(nodes)*busier/BusyTarget-1e-9)))
	pct := func(v float64) string { return strconv.FormatFloat(100*v, 'f', 0, 64) + " %" }
	var kinds string
	hasReduce := slices.ContainsFunc(results, func(r *Result) bool { return r.BusySlotSeconds[Reduce] > 0 })
	if hasReduce {
		kinds = fmt.Sprintf("map slots %s, reduce slots %s busy", pct(u[Map]), pct(u[Reduce]))
	} else {
		kinds = fmt.Sprintf("map slots %s busy", pct(u[Map]))
	}
	kind := "map"
	if u[Reduce] > u[Map] {
		kind = "reduce"
	}
	note := fmt.Sprintf("%s: makespans cannot differ much; try --nodes %d (%d × %s ÷ %s: %s slots about %s busy)",
		kinds, n, nodes, strconv.FormatFloat(100*busier, 'f', 1, 64)+" %", pct(BusyTarget), kind, pct(BusyTarget))
	return &IdleCluster{Utilisation: u, Nodes: nodes, SuggestedNodes: n, Note: note}
}
