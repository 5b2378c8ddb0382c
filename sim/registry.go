package sim

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/model"
)

// PolicyOptions carry what a policy's name leaves open: the parameters a
// command line sets by flags rather than in the name. The zero value is
// valid; every field's doc gives its default.
type PolicyOptions struct {
	// Delay and RackDelay are delay scheduling's skip counts D and R for the
	// bare name "fair" (fair:D and fair:D+R name their own); 0 and 0 (the
	// default) is naive fair sharing.
	Delay, RackDelay int
	// Spending gives dp's queues (users) their spending rates per slot per
	// allocation interval; a user not named spends 1. Budgets are unlimited.
	Spending map[string]float64
	// TyrexTimer is tyrex-static's P1 timer in slot-seconds; 0 is 200.
	TyrexTimer float64
	// HybSLevels and HybSWaited give hybs's service levels, in [0, 1], and
	// the seconds a job had already waited when submitted, by job name (the
	// HybS paper's workload files carry both). A job not named, or of level
	// 0, has level 1; a job not named has no prior wait.
	HybSLevels, HybSWaited map[string]float64
}

// DefaultTyrexTimer is tyrex-static's P1 timer in slot-seconds when
// PolicyOptions.TyrexTimer is 0.
const DefaultTyrexTimer = 200

// Validate rejects options no policy could run with: the first bad field
// (scalars first, then map entries in key order), as a *SettingError.
func (o *PolicyOptions) Validate() error {
	if o == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Delay", o.Delay}, {"RackDelay", o.RackDelay}} {
		if f.v < 0 {
			return optionError(f.name, "", f.v, "must not be negative")
		}
	}
	finite := func(v float64) bool { return !math.IsInf(v, 0) }
	if t := o.TyrexTimer; !(t >= 0 && finite(t)) { // 0 is DefaultTyrexTimer
		return optionError("TyrexTimer", "", t, "must be positive and finite")
	}
	for _, f := range []struct {
		name string
		m    map[string]float64
		rule string
		ok   func(float64) bool
	}{
		{"Spending", o.Spending, "must be positive and finite", func(r float64) bool { return r > 0 && finite(r) }},
		{"HybSLevels", o.HybSLevels, "must be in [0, 1]", func(l float64) bool { return l >= 0 && l <= 1 }},
		{"HybSWaited", o.HybSWaited, "must be finite and not negative", func(w float64) bool { return w >= 0 && finite(w) }},
	} {
		for _, k := range slices.Sorted(maps.Keys(f.m)) {
			if v := f.m[k]; !f.ok(v) {
				return optionError(f.name, k, v, f.rule)
			}
		}
	}
	return nil
}

// PolicyInfo is one entry of the policy registry.
type PolicyInfo struct {
	// Name is the policy's name, e.g. "fair" or "hybs-fcfs".
	Name string
	// Params, if any, are the written forms of the parameter Name:param
	// takes, e.g. "D" and "D+R" for fair:D and fair:D+R.
	Params []string
	// Usage is a one-line description.
	Usage string
	// Replay marks the plan replays (plan, plan-no-barrier): they are built
	// from a plan by ReplayPlan, with Barrier, and run their own workload, so
	// ParsePolicy cannot build them alone.
	Replay, Barrier bool

	build func(param string, o *PolicyOptions) (Policy, bool)
}

// Forms are the names that select this entry: Name, and Name:P for each
// form P of its parameter ("fair:D", "fair:D+R").
func (p PolicyInfo) Forms() []string {
	out := []string{p.Name}
	for _, f := range p.Params {
		out = append(out, p.Name+":"+f)
	}
	return out
}

// BuiltinPolicies is the registry: every policy packer can name, in the
// order help text lists them. It is the one list that flag parsing, help
// and "unknown policy" errors all read.
var BuiltinPolicies = []PolicyInfo{
	{Name: "fifo", Usage: "Hadoop 1's default: priority, then submit time", build: plain(func(*PolicyOptions) Policy { return &FIFO{} })},
	{Name: "fair", Params: []string{"D", "D+R"}, Usage: "max-min fair sharing; a delay D > 0 adds delay scheduling (the Delay Scheduling paper), R further skips before off-rack tasks", build: buildFair},
	{Name: "sequential", Usage: "one job at a time on the whole cluster (the packing paper's baseline)", build: plain(func(*PolicyOptions) Policy { return &Sequential{} })},
	{Name: "plan", Usage: "replay the plan: each job on its plan VMs, phases one after another", Replay: true, Barrier: true},
	{Name: "plan-no-barrier", Usage: "replay the plan: each job as soon as its plan VMs are free", Replay: true},
	{Name: "dp", Usage: "Dynamic Proportional Share (Sandholm & Lai): slots by spending rate, work-conserving, budgets unlimited", build: plain(func(o *PolicyOptions) Policy { return newDP("dp", o) })},
	{Name: "dp-preempt", Usage: "dp with preemption of queues above their share", build: plain(func(o *PolicyOptions) Policy { return newDP("dp-preempt", o) })},
	{Name: "hybs", Usage: "HybS (Nguyen et al., UCC 2012): priority by waiting time, run time and task count (α = 1, β = γ = −1)", build: buildHybS("hybs")},
	{Name: "hybs-fcfs", Usage: "HybS by waiting time only (α = 1)", build: buildHybS("hybs-fcfs")},
	{Name: "hybs-sjf", Usage: "HybS by mean map time only, shortest first (β = −1)", build: buildHybS("hybs-sjf")},
	{Name: "hybs-smallest", Usage: "HybS by unscheduled tasks only, fewest first (γ = −1)", build: buildHybS("hybs-smallest")},
	{Name: "fair-by-tasks", Usage: "slots in proportion to a job's task count (the Tyrex paper's FAIR)", build: plain(func(*PolicyOptions) Policy { return &TaskFair{} })},
	{Name: "tyrex-static", Usage: "Tyrex (Ghiț & Epema, CCGrid 2016): 30 % / 70 % partitions, jobs move on after a P1 timer", build: plain(newTyrexStatic)},
	{Name: "tyrex-dynamic", Usage: "Tyrex moving jobs by the variability of their task times (DYNAMICTAGS)", build: plain(func(*PolicyOptions) Policy { return &Tyrex{Dynamic: true} })},
}

// plain adapts a constructor that takes no parameter in the name.
func plain(f func(o *PolicyOptions) Policy) func(string, *PolicyOptions) (Policy, bool) {
	return func(param string, o *PolicyOptions) (Policy, bool) {
		if param != "" {
			return nil, false
		}
		return f(o), true
	}
}

// buildFair reads "" (the options' delays), "D" or "D+R".
func buildFair(param string, o *PolicyOptions) (Policy, bool) {
	if param == "" {
		return &Fair{Delay: o.Delay, RackDelay: o.RackDelay}, true
	}
	ds, rs, hasRack := strings.Cut(param, "+")
	d, err := strconv.Atoi(ds)
	if err != nil || d < 0 {
		return nil, false
	}
	r := 0
	if hasRack {
		if r, err = strconv.Atoi(rs); err != nil || r < 0 {
			return nil, false
		}
	}
	return &Fair{Delay: d, RackDelay: r}, true
}

func newDP(name string, o *PolicyOptions) Policy {
	return &DP{Spending: o.Spending, DefaultBudget: math.Inf(1), WorkConserving: true, Preempt: name == "dp-preempt", Label: name}
}

func newTyrexStatic(o *PolicyOptions) Policy {
	t := o.TyrexTimer
	if t == 0 {
		t = DefaultTyrexTimer
	}
	return &Tyrex{Timers: []float64{t}}
}

func buildHybS(name string) func(string, *PolicyOptions) (Policy, bool) {
	return plain(func(o *PolicyOptions) Policy {
		h, _ := HybSPreset(name)
		h.Levels, h.Waited = o.HybSLevels, o.HybSWaited
		return h
	})
}

// ErrUnknownPolicy is the error of a name no registry entry takes.
var ErrUnknownPolicy = errors.New("unknown policy")

// ErrNeedsPlan is the error of ParsePolicy for a plan replay: those are
// built from a plan with ReplayPlan (Compare does it through its Replay).
var ErrNeedsPlan = errors.New("sim: a plan replay is built from a plan, not by name")

// LookupPolicy returns the registry entry a name selects and the parameter
// after the colon, if any. A name no entry takes is ErrUnknownPolicy, with
// the list of names and the nearest one.
func LookupPolicy(name string) (PolicyInfo, string, error) {
	base, param, hasParam := strings.Cut(name, ":")
	for _, p := range policies() {
		if p.Name == base && (!hasParam || (len(p.Params) > 0 && param != "")) {
			return p, param, nil
		}
	}
	return PolicyInfo{}, "", unknownPolicy(name)
}

// ParsePolicy builds the policy a name selects, with the options (nil is
// the zero PolicyOptions) for what the name leaves open. Every Policy it
// returns is fresh. Plan replays are ErrNeedsPlan.
func ParsePolicy(name string, o *PolicyOptions) (Policy, error) {
	if o == nil {
		o = &PolicyOptions{}
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	p, param, err := LookupPolicy(name)
	if err != nil {
		return nil, err
	}
	if p.Replay {
		return nil, fmt.Errorf("%w: %q", ErrNeedsPlan, name)
	}
	pol, ok := p.build(param, o)
	if !ok {
		return nil, unknownPolicy(name)
	}
	return pol, nil
}

// PolicyNames lists every form a name may take, in registry order: "fifo",
// "fair", "fair:D", "fair:D+R", ...
func PolicyNames() []string {
	var out []string
	for _, p := range policies() {
		out = append(out, p.Forms()...)
	}
	return out
}

// unknownPolicy names the choices and, if one is close, suggests it.
func unknownPolicy(name string) error {
	names := PolicyNames()
	hint := ""
	if s := model.NearestName(name, names); s != "" {
		hint = fmt.Sprintf("; did you mean %q?", s)
	}
	return fmt.Errorf("%w %q (want one of %s%s)", ErrUnknownPolicy, name, strings.Join(names, ", "), hint)
}
