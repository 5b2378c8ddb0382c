package sim

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
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
	return out, nil
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
