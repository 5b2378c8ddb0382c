package sim

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Entry is one policy of a comparison, as listed.
type Entry struct {
	// Name is the name as listed, e.g. "fair:5".
	Name string
	// Policy is the policy the name built; nil for a plan replay, which
	// Compare builds through Comparison.Replay.
	Policy Policy
	// Barrier is a plan replay's: phases run one after another.
	Barrier bool
}

// Replays reports whether the entry is a plan replay.
func (e Entry) Replays() bool { return e.Policy == nil }

// ErrDuplicatePolicy is the error of a list that names one policy twice,
// by the same name or by two names for the same policy.
var ErrDuplicatePolicy = errors.New("duplicate policy")

// ParsePolicies builds every policy of a list of names with the options
// (nil is the zero PolicyOptions). It rejects unknown names
// (ErrUnknownPolicy), and a name listed twice or two names that build the
// same policy (ErrDuplicatePolicy), since their rows would be one.
func ParsePolicies(names []string, o *PolicyOptions) ([]Entry, error) {
	var out []Entry
	labels := map[string]string{} // policy name → the name that built it
	for _, n := range names {
		for _, e := range out {
			if e.Name == n {
				return nil, fmt.Errorf("%w: %q is listed twice", ErrDuplicatePolicy, n)
			}
		}
		info, _, err := LookupPolicy(n)
		if err != nil {
			return nil, err
		}
		if info.Replay {
			out = append(out, Entry{Name: n, Barrier: info.Barrier})
			continue
		}
		p, err := ParsePolicy(n, o)
		if err != nil {
			return nil, err
		}
		if prev, dup := labels[p.Name()]; dup {
			return nil, fmt.Errorf("%w: %q and %q are the same policy (%s)", ErrDuplicatePolicy, prev, n, p.Name())
		}
		labels[p.Name()] = n
		out = append(out, Entry{Name: n, Policy: p})
	}
	return out, nil
}

// Comparison is one workload run under several policies, each run fresh
// from the same seed, so that their results differ only by policy.
type Comparison struct {
	// Workload is what every policy but the plan replays runs.
	Workload *Workload
	// Entries are the policies, in order (ParsePolicies).
	Entries []Entry
	// Settings apply to every run; Trace is ignored (see Trace).
	Settings Settings
	// Replay builds a plan replay, its workload and policy (ReplayPlan on the
	// plan's workload); nil makes a replay entry fail with ErrNeedsPlan. Its
	// errors are returned as they are.
	Replay func(barrier bool) (*Workload, Policy, error)
	// Trace, if not nil, gives each run its tracer, by policy name and the
	// workload run; the runs are then made one at a time, in order.
	Trace func(policy string, w *Workload) Tracer
	// Parallel is the most runs Compare makes at once (atOnce); 0 means
	// GOMAXPROCS. The outcomes do not depend on it.
	Parallel int
}

// Outcome is one policy's run with what produced it.
type Outcome struct {
	Entry    Entry
	Workload *Workload
	Result   *Result
}

// AloneProgress is the policy name Settings.Progress hears for the pass
// that computes the jobs' alone times (Alone, Compare).
const AloneProgress = "alone times"

// Compare runs every entry and summarises each result against its
// workload's alone times (Alone; the plan replays share theirs). The runs
// are independent and seeded alike, so they run side by side (Parallel)
// and the outcomes, in the entries' order, are the same however many do.
// Errors of Run, such as ErrStalled, are returned as they are: the first
// entry's that failed. The entries must not share a Policy value (as
// ParsePolicies makes them): their runs go at once.
func Compare(c *Comparison) ([]Outcome, error) {
	out := make([]Outcome, len(c.Entries))
	policies := make([]Policy, len(c.Entries))
	for i, e := range c.Entries {
		w, p := c.Workload, e.Policy
		if e.Replays() {
			if c.Replay == nil {
				return nil, fmt.Errorf("%w: %q", ErrNeedsPlan, e.Name)
			}
			var err error
			if w, p, err = c.Replay(e.Barrier); err != nil {
				return nil, err
			}
		}
		out[i], policies[i] = Outcome{Entry: e, Workload: w}, p
	}
	// A workload too big for the limit is refused before the alone runs,
	// each of one job, would pass the check and take their time.
	var need int64
	for _, o := range out {
		if err := o.Workload.Validate(); err != nil {
			return nil, err
		}
		if err := checkMemory(o.Workload, c.Settings.MaxMemory); err != nil {
			return nil, err
		}
		need = max(need, EstimateMemory(o.Workload))
	}
	set := c.Settings
	set.Trace = nil
	k := atOnce(c.Parallel, len(out)+1, set.MaxMemory, need)
	if k > 1 {
		set.Progress = syncProgress(set.Progress)
	}
	alone, chunks, err := aloneChunks(out, &set, k)
	if err != nil {
		return nil, err
	}
	doChunk := func(i int) error {
		ch := chunks[i]
		for j := ch.lo; j < ch.hi; j++ {
			t, err := ch.runner.time(j)
			if err != nil {
				return err
			}
			ch.into[j] = t
		}
		return nil
	}
	doRun := func(i int) error {
		st := set
		if c.Trace != nil {
			st.Trace = c.Trace(policies[i].Name(), out[i].Workload)
		}
		var err error
		out[i].Result, err = Run(out[i].Workload, policies[i], &st)
		return err
	}
	// The alone times are needed only to summarise, so their runs fill the
	// gaps the policies' runs leave, started first as the longest. Numbered
	// runs first, the error is the first entry's that failed.
	if c.Trace != nil {
		// Tracers write their files in order and need not be safe to share.
		if err = forEach(len(out), 1, doRun); err == nil {
			err = forEach(len(chunks), k, doChunk)
		}
	} else {
		err = forEach(len(out)+len(chunks), k, func(i int) error {
			if i < len(out) {
				return doRun(i)
			}
			return doChunk(i - len(out))
		})
	}
	if err != nil {
		return nil, err
	}
	for i, o := range out {
		r := o.Result
		r.Summarize(alone[o.Entry.Replays()])
		r.Notes = append(Notes(policies[i], o.Workload), slowdownNote(r)...)
	}
	for i, j := range SameAs(Results(out, nil)) {
		if j >= 0 {
			r := out[i].Result
			r.Notes = append(r.Notes, fmt.Sprintf("%s: every job starts and finishes as under %s: their rows and slowdown lines are the same", r.Policy, out[j].Result.Policy))
		}
	}
	return out, nil
}

// SameAs says which results repeat an earlier one: SameAs(rs)[i] is the
// index of the first result before i whose every job starts, finishes
// and responds when it does under rs[i] (within RankTolerance), with the
// same slowdown (within a relative 1e-9; same jobs, by name, in the same
// order), or −1 if none. Such runs have the same responses,
// slowdowns and makespan: a table shows them as equal rows, and a chart
// draws one line over the other.
func SameAs(rs []*Result) []int {
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = -1
		for j := range i {
			if out[j] < 0 && sameStarts(rs[j], r) {
				out[i] = j
				break
			}
		}
	}
	return out
}

// sameStarts reports whether a and b start, finish and slow down the same
// jobs alike (SameAs).
func sameStarts(a, b *Result) bool {
	if len(a.Jobs) != len(b.Jobs) {
		return false
	}
	for k := range a.Jobs {
		x, y := &a.Jobs[k], &b.Jobs[k]
		if x.Name != y.Name || math.Abs(x.Start-y.Start) > RankTolerance || math.Abs(x.Finish-y.Finish) > RankTolerance ||
			math.Abs(x.Response-y.Response) > RankTolerance || cmpValue(x.Slowdown, y.Slowdown) != 0 {
			return false
		}
	}
	return true
}

// aloneChunk is a run of jobs lo..hi−1 whose alone times go into into.
type aloneChunk struct {
	runner *aloneRunner
	lo, hi int
	into   []float64
}

// aloneChunks splits the jobs of each kind of workload (the policies' and
// the plan replays', which share theirs) into about four runs of jobs per
// core (k), for the alone pass with the settings, and returns where each
// kind's times will be. The workloads must be valid.
func aloneChunks(out []Outcome, set *Settings, k int) (map[bool][]float64, []aloneChunk, error) {
	alone := map[bool][]float64{}
	pr := &aloneProgress{report: set.Progress}
	var chunks []aloneChunk
	for _, o := range out {
		r := o.Entry.Replays()
		if alone[r] != nil {
			continue
		}
		w := o.Workload
		runner, err := newAloneRunner(w, set, k, pr)
		if err != nil {
			return nil, nil, err
		}
		alone[r] = make([]float64, len(w.Jobs))
		pr.all += w.Tasks()
		size := max(1, (len(w.Jobs)+4*k-1)/(4*k))
		for lo := 0; lo < len(w.Jobs); lo += size {
			chunks = append(chunks, aloneChunk{runner: runner, lo: lo, hi: min(len(w.Jobs), lo+size), into: alone[r]})
		}
	}
	return alone, chunks, nil
}

// atOnce is how many of n runs that each need about need bytes go side by
// side: want (0: GOMAXPROCS), at most n, and no more than limit holds (0:
// no limit); at least 1. The estimate's margin over measured peaks (over 2×,
// EstimateMemory) is what leaves the collector its headroom above each
// run's live heap.
func atOnce(want, n int, limit, need int64) int {
	k := want
	if k <= 0 {
		k = runtime.GOMAXPROCS(0)
	}
	k = min(k, n)
	if limit > 0 && need > 0 {
		k = int(min(int64(k), limit/need))
	}
	return max(1, k)
}

// syncProgress makes report safe to call from runs side by side: one call
// at a time. nil stays nil.
func syncProgress(report func(Progress)) func(Progress) {
	if report == nil {
		return nil
	}
	var mu sync.Mutex
	return func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		report(p)
	}
}

// forEach calls f(0) … f(n−1), k at a time (each call in its own goroutine
// when k > 1), and returns, once all have returned, the error of the lowest
// i that failed. Calls past a failed i are skipped: that error is then the
// same however many run at once, and nothing past it runs for nothing. A
// panic in a call is raised again in the caller, as it would be with k = 1.
func forEach(n, k int, f func(i int) error) error {
	var mu sync.Mutex
	failed, first := n, error(nil)
	var panicked any
	call := func(i int) {
		mu.Lock()
		skip := i > failed
		mu.Unlock()
		if skip {
			return
		}
		err := f(i)
		mu.Lock()
		if err != nil && i < failed {
			failed, first = i, err
		}
		mu.Unlock()
	}
	if k <= 1 {
		for i := range n {
			call(i)
		}
		return first
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(k, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					mu.Lock()
					if panicked == nil {
						panicked = p
					}
					failed = -1 // skip everything left
					mu.Unlock()
					for range next {
					}
				}
			}()
			for i := range next {
				call(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
	return first
}

// RankMetric is a number Rank orders policies by, lower better.
type RankMetric struct {
	// Name is how --rank-by names it, e.g. "p95-slowdown".
	Name string
	// Label names it in sentences, e.g. "p95 slowdown".
	Label string
	// Seconds is true for times, false for ratios.
	Seconds bool
	// Of is the metric of a run, from its Result.
	Of func(r *Result) float64
	// Jobs is the metric over some of a run's jobs (a size class), the same
	// statistic as Of over all of them; NaN over no jobs.
	Jobs func(js []JobResult) float64
}

// RankMetrics are the metrics Rank knows, as LookupRankMetric finds them.
var RankMetrics = []RankMetric{
	{Name: "makespan", Label: "makespan", Seconds: true, Of: func(r *Result) float64 { return r.Makespan },
		Jobs: func(js []JobResult) float64 { return jobStat(js, finish, maxOf) }},
	{Name: "mean-response", Label: "mean response", Seconds: true, Of: func(r *Result) float64 { return r.Summary.MeanResponse },
		Jobs: func(js []JobResult) float64 { return jobStat(js, response, meanOf) }},
	{Name: "median-response", Label: "median response", Seconds: true, Of: func(r *Result) float64 { return r.Summary.MedianResponse },
		Jobs: func(js []JobResult) float64 { return jobStat(js, response, medianOf) }},
	{Name: "p95-response", Label: "p95 response", Seconds: true, Of: func(r *Result) float64 { return r.Summary.P95Response },
		Jobs: func(js []JobResult) float64 { return jobStat(js, response, p95Of) }},
	{Name: "mean-slowdown", Label: "mean slowdown", Of: func(r *Result) float64 { return r.Summary.MeanSlowdown },
		Jobs: func(js []JobResult) float64 { return jobStat(js, slowdown, meanOf) }},
	{Name: "median-slowdown", Label: "median slowdown", Of: func(r *Result) float64 { return r.Summary.MedianSlowdown },
		Jobs: func(js []JobResult) float64 { return jobStat(js, slowdown, medianOf) }},
	{Name: "p95-slowdown", Label: "p95 slowdown", Of: func(r *Result) float64 { return r.Summary.P95Slowdown },
		Jobs: func(js []JobResult) float64 { return jobStat(js, slowdown, p95Of) }},
	{Name: "v95", Label: "V95", Of: func(r *Result) float64 { return r.Summary.V95 },
		Jobs: func(js []JobResult) float64 {
			if m := jobStat(js, slowdown, medianOf); m > 0 {
				return jobStat(js, slowdown, p95Of) / m
			}
			return math.NaN()
		}},
}

// The per-job numbers and statistics of RankMetrics' Jobs. Slowdowns of 0
// (not summarised) are left out, as Summarize leaves them out.
var (
	finish   = func(j JobResult) float64 { return j.Finish }
	response = func(j JobResult) float64 { return j.Response }
	slowdown = func(j JobResult) float64 {
		if j.Slowdown > 0 {
			return j.Slowdown
		}
		return math.NaN()
	}
	maxOf    = func(xs []float64) float64 { return slices.Max(xs) }
	meanOf   = func(xs []float64) float64 { m, _, _ := describe(xs); return m }
	medianOf = func(xs []float64) float64 { _, m, _ := describe(xs); return m }
	p95Of    = func(xs []float64) float64 { _, _, p := describe(xs); return p }
)

// jobStat is stat over the jobs' numbers that are not NaN; NaN if none.
func jobStat(js []JobResult, num func(JobResult) float64, stat func([]float64) float64) float64 {
	var xs []float64
	for _, j := range js {
		if v := num(j); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat(xs)
}

// ErrUnknownMetric is the error of a metric Rank does not know.
var ErrUnknownMetric = errors.New("unknown metric")

// RankMetricNames are RankMetrics' names, in order.
func RankMetricNames() []string {
	var out []string
	for _, m := range RankMetrics {
		out = append(out, m.Name)
	}
	return out
}

// LookupRankMetric is the metric of that name (ErrUnknownMetric if none).
func LookupRankMetric(name string) (RankMetric, error) {
	for _, m := range RankMetrics {
		if m.Name == name {
			return m, nil
		}
	}
	return RankMetric{}, fmt.Errorf("%w %q; want one of %s", ErrUnknownMetric, name, strings.Join(RankMetricNames(), ", "))
}

// SizeClass is a class of jobs by task count (maps and reduces).
type SizeClass struct {
	Name string
	// MaxTasks is the class's largest task count; 0 is no bound.
	MaxTasks int
}

// SizeClasses are Rank's classes, smallest first; a job is in the first
// whose MaxTasks it does not exceed: small 1–10 tasks, medium 11–100,
// large more than 100. On the FB-2010 day (256 MiB blocks) they hold 18,377,
// 3,381 and 2,684 of its 24,442 jobs.
var SizeClasses = []SizeClass{{"small", 10}, {"medium", 100}, {"large", 0}}

// String is the class with its bounds, e.g. "medium 11–100 tasks".
func (c SizeClass) String() string {
	i := slices.Index(SizeClasses, c)
	switch {
	case c.MaxTasks == 0 && i > 0:
		return fmt.Sprintf("%s > %d tasks", c.Name, SizeClasses[i-1].MaxTasks)
	case i > 0:
		return fmt.Sprintf("%s %d–%d tasks", c.Name, SizeClasses[i-1].MaxTasks+1, c.MaxTasks)
	case c.MaxTasks == 0:
		return c.Name
	}
	return fmt.Sprintf("%s ≤ %d tasks", c.Name, c.MaxTasks)
}

// sizeClass is the index in SizeClasses of a job of n tasks.
func sizeClass(n int) int {
	for i, c := range SizeClasses {
		if c.MaxTasks == 0 || n <= c.MaxTasks {
			return i
		}
	}
	return len(SizeClasses) - 1
}

// Ranking orders a comparison's policies by a metric, and says why each
// lost to the best: how its jobs fared, by size class, against the best's.
type Ranking struct {
	// Metric is the metric's name (RankMetric.Name).
	Metric string `json:"metric"`
	// Against is the best policy (the first listed of those tied best),
	// whose jobs the others' are compared with.
	Against string `json:"against"`
	// Places are the policies, best first; equal values keep the order
	// they were given in.
	Places []Place `json:"places"`
	metric RankMetric
}

// Place is one policy's rank.
type Place struct {
	// Rank is 1 for the best; policies with equal values share a rank.
	Rank   int     `json:"rank"`
	Policy string  `json:"policy"`
	Value  float64 `json:"value"`
	// Classes compare the policy's jobs with Against's, one per size class
	// that has jobs; none for Against itself.
	Classes []ClassChange `json:"classes,omitempty"`
}

// ClassChange is how a size class's jobs fared under a policy against the
// best one.
type ClassChange struct {
	Class string `json:"class"`
	Jobs  int    `json:"jobs"`
	// Faster and Slower count the jobs whose response is shorter or longer
	// than under Against by more than RankTolerance.
	Faster int `json:"faster"`
	Slower int `json:"slower"`
	// Value and AgainstValue are the metric over the class's jobs under the
	// policy and under Against (RankMetric.Jobs).
	Value        float64 `json:"value"`
	AgainstValue float64 `json:"against_value"`
	// ResponseChange is the mean over the class's jobs of their response
	// less their response under Against, in seconds.
	ResponseChange float64 `json:"response_change"`
}

// RankTolerance is the difference in seconds below which Rank counts a
// job's responses under two policies equal: the same times summed in
// another order differ in their last bits.
const RankTolerance = 1e-6

// ErrRankJobs is the error of results Rank cannot compare job by job.
var ErrRankJobs = errors.New("results do not hold the workload's jobs")

// Rank orders results by the metric (lower is better) and compares every
// result's jobs, by size class (SizeClasses, of w's task counts), with the
// best's. Each result must hold w's jobs in w's order, as the runs of a
// Comparison on w do (ErrRankJobs); a metric that is not a name of
// RankMetrics is ErrUnknownMetric.
func Rank(w *Workload, results []*Result, metric string) (*Ranking, error) {
	m, err := LookupRankMetric(metric)
	if err != nil {
		return nil, err
	}
	if len(results) == 0 {
		return nil, errors.New("sim: rank: no results")
	}
	class := make([]int, len(w.Jobs))
	for i, j := range w.Jobs {
		class[i] = sizeClass(j.Maps.N() + j.Reduces.N())
	}
	for _, r := range results {
		if len(r.Jobs) != len(w.Jobs) {
			return nil, fmt.Errorf("sim: rank: %w: %s has %d jobs, workload %s %d", ErrRankJobs, r.Policy, len(r.Jobs), w.Name, len(w.Jobs))
		}
		for i := range r.Jobs {
			if r.Jobs[i].Name != w.Jobs[i].Name {
				return nil, fmt.Errorf("sim: rank: %w: %s's job %d is %q, workload %s's %q", ErrRankJobs, r.Policy, i, r.Jobs[i].Name, w.Name, w.Jobs[i].Name)
			}
		}
	}
	order := make([]int, len(results))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpValue(m.Of(results[a]), m.Of(results[b])) })
	best := results[order[0]]
	rk := &Ranking{Metric: m.Name, Against: best.Policy, metric: m}
	for k, i := range order {
		r := results[i]
		p := Place{Rank: k + 1, Policy: r.Policy, Value: m.Of(r)}
		if k > 0 && cmpValue(p.Value, rk.Places[k-1].Value) == 0 {
			p.Rank = rk.Places[k-1].Rank
		}
		if k > 0 {
			p.Classes = classChanges(m, class, r, best)
		}
		rk.Places = append(rk.Places, p)
	}
	return rk, nil
}

// cmpValue orders metric values, lower first, NaN last; values within a
// relative 1e-9 of each other are equal.
func cmpValue(a, b float64) int {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return cmpBool(math.IsNaN(a), math.IsNaN(b))
	case math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b)):
		return 0
	case a < b:
		return -1
	}
	return 1
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// classChanges compares r's jobs with best's, one ClassChange per size
// class with jobs; class[i] is job i's class.
func classChanges(m RankMetric, class []int, r, best *Result) []ClassChange {
	var out []ClassChange
	for c := range SizeClasses {
		var mine, theirs []JobResult
		ch := ClassChange{Class: SizeClasses[c].Name}
		var sum float64
		for i, k := range class {
			if k != c {
				continue
			}
			mine, theirs = append(mine, r.Jobs[i]), append(theirs, best.Jobs[i])
			d := r.Jobs[i].Response - best.Jobs[i].Response
			sum += d
			if d < -RankTolerance {
				ch.Faster++
			} else if d > RankTolerance {
				ch.Slower++
			}
		}
		if len(mine) == 0 {
			continue
		}
		ch.Jobs, ch.ResponseChange = len(mine), sum/float64(len(mine))
		ch.Value, ch.AgainstValue = m.Jobs(mine), m.Jobs(theirs)
		out = append(out, ch)
	}
	return out
}

// RankWidth is the widest line Lines writes for policy names of up to 20
// characters: a longer name widens the table of reasons with it.
const RankWidth = 100

// Lines are the ranking for printing: one line per policy, best first,
// then why, as a table: for each other policy and size class, the metric
// over the class's jobs against the best's over the same jobs, how many of
// them ran faster or slower, and the change in their mean response; then
// what the sizes and columns mean, wrapped to RankWidth.
func (rk *Ranking) Lines() []string {
	m := rk.metric
	if m.Name == "" {
		m, _ = LookupRankMetric(rk.Metric)
	}
	value := func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "-"
		case m.Seconds:
			return strconv.FormatFloat(v, 'f', 1, 64) + " s"
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	width := 0
	for _, p := range rk.Places {
		width = max(width, utf8.RuneCountInString(p.Policy))
	}
	lines := []string{fmt.Sprintf("Ranked by %s (lower is better):", m.Label)}
	for _, p := range rk.Places {
		lines = append(lines, fmt.Sprintf("  %d. %s  %s", p.Rank, pad(p.Policy, width), value(p.Value)))
	}
	if len(rk.Places) < 2 {
		return lines
	}
	header := []string{"policy", "size", "jobs", m.Label, rk.Against + "'s", "faster", "slower", "mean response"}
	rows := [][]string{header}
	for _, p := range rk.Places[1:] {
		for _, c := range p.Classes {
			rows = append(rows, []string{p.Policy, c.Class, strconv.Itoa(c.Jobs), value(c.Value), value(c.AgainstValue),
				strconv.Itoa(c.Faster), strconv.Itoa(c.Slower), fmt.Sprintf("%+.1f s", c.ResponseChange)})
		}
	}
	lines = append(lines, "Why, against "+rk.Against+", by job size:")
	lines = append(lines, alignColumns(rows, 2)...)
	var classes []string
	for _, c := range SizeClasses {
		classes = append(classes, c.String())
	}
	note := "Sizes: " + strings.Join(classes, ", ") + ". Faster and slower count the class's jobs whose " +
		"response is shorter or longer than under " + rk.Against + "; mean response is the change in their mean."
	return append(lines, wrapLine(note, RankWidth)...)
}

// pad is s followed by spaces to width runes.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
}

// alignColumns lays rows out in columns two spaces apart after indent
// spaces: the first two columns (names) left-aligned, the others (numbers)
// right-aligned; trailing spaces are trimmed.
func alignColumns(rows [][]string, indent int) []string {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	out := make([]string, len(rows))
	for k, r := range rows {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", indent))
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			if i < 2 {
				b.WriteString(pad(c, widths[i]))
			} else {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)) + c)
			}
		}
		out[k] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// wrapLine breaks s at spaces into lines of at most width runes (a longer
// word stays whole).
func wrapLine(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width:
			out, line = append(out, line), w
		default:
			line += " " + w
		}
	}
	return append(out, line)
}
