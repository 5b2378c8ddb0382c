package sim

import (
	"errors"
	"fmt"
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
	// workload run.
	Trace func(policy string, w *Workload) Tracer
}

// Outcome is one policy's run with what produced it.
type Outcome struct {
	Entry    Entry
	Workload *Workload
	Result   *Result
}

// Compare runs every entry in order and summarises each result against its
// workload's alone times (Alone; the plan replays share theirs). Errors of
// Run, such as ErrStalled, are returned as they are.
func Compare(c *Comparison) ([]Outcome, error) {
	alone := map[bool][]float64{} // by Replays: both replays run the same tasks
	var out []Outcome
	for _, e := range c.Entries {
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
		st := c.Settings
		st.Trace = nil
		if c.Trace != nil {
			st.Trace = c.Trace(p.Name(), w)
		}
		r, err := Run(w, p, &st)
		if err != nil {
			return nil, err
		}
		if alone[e.Replays()] == nil {
			set := c.Settings
			set.Trace = nil
			if alone[e.Replays()], err = Alone(w, &set); err != nil {
				return nil, err
			}
		}
		r.Summarize(alone[e.Replays()])
		r.Notes = append(Notes(p, w), slowdownNote(r)...)
		out = append(out, Outcome{Entry: e, Workload: w, Result: r})
	}
	return out, nil
}
