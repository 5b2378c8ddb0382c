package sim_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim"
)

// TestParsePolicyRoundTrip: every registered name builds a policy of that
// name (the plan replays are built from a plan instead), afresh each time.
func TestParsePolicyRoundTrip(t *testing.T) {
	for _, info := range sim.BuiltinPolicies {
		p, err := sim.ParsePolicy(info.Name, nil)
		if info.Replay {
			if !errors.Is(err, sim.ErrNeedsPlan) {
				t.Errorf("%s: error %v, want ErrNeedsPlan", info.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", info.Name, err)
			continue
		}
		if p.Name() != info.Name {
			t.Errorf("ParsePolicy(%q).Name() = %q", info.Name, p.Name())
		}
		if q, _ := sim.ParsePolicy(info.Name, nil); q == p {
			t.Errorf("%s: two parses share one policy value", info.Name)
		}
		if info.Usage == "" {
			t.Errorf("%s: no usage line", info.Name)
		}
	}
}

func TestParsePolicyFairForms(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"fair", "fair"}, {"fair:0", "fair"}, {"fair:5", "fair D=5"}, {"fair:5+3", "fair D=5+3"}, {"fair:05", "fair D=5"},
	} {
		p, err := sim.ParsePolicy(c.name, nil)
		if err != nil || p.Name() != c.want {
			t.Errorf("ParsePolicy(%q) = %v, %v; want %s", c.name, p, err, c.want)
		}
	}
}

// TestParsePolicyUnknown: a name no entry takes fails with every name in the
// message, and the nearest one if it is close.
func TestParsePolicyUnknown(t *testing.T) {
	for _, c := range []struct{ name, hint string }{
		{"lottery", ""}, {"", ""}, {"fiar", "fair"}, {"hybs-fifo", "hybs-fcfs"}, {"FIFO", ""},
		{"fair:", "fair"}, {"fair:x", "fair:D"}, {"fair:-1", "fair:D"}, {"fair:1+", "fair:D"}, {"fair:1+-2", "fair:D+R"},
		{"fifo:3", "fifo"}, {"plan:1", "plan"}, {"x", ""},
	} {
		_, err := sim.ParsePolicy(c.name, nil)
		if !errors.Is(err, sim.ErrUnknownPolicy) {
			t.Errorf("%q: error %v, want ErrUnknownPolicy", c.name, err)
			continue
		}
		msg := err.Error()
		for _, n := range sim.PolicyNames() {
			if !strings.Contains(msg, n) {
				t.Errorf("%q: message lacks %q: %s", c.name, n, msg)
			}
		}
		if hinted := strings.Contains(msg, "did you mean"); hinted != (c.hint != "") || (c.hint != "" && !strings.Contains(msg, `did you mean "`+c.hint+`"?`)) {
			t.Errorf("%q: %s; want hint %q", c.name, msg, c.hint)
		}
	}
}

// TestParsePolicyOptions checks by hand which option reaches which policy.
func TestParsePolicyOptions(t *testing.T) {
	o := &sim.PolicyOptions{Delay: 3, RackDelay: 2, Spending: map[string]float64{"a": 2}, TyrexTimer: 50,
		HybSLevels: map[string]float64{"j": 0.5}, HybSWaited: map[string]float64{"j": 30}}
	get := func(name string) sim.Policy {
		p, err := sim.ParsePolicy(name, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return p
	}
	if f := get("fair").(*sim.Fair); f.Delay != 3 || f.RackDelay != 2 {
		t.Errorf("fair: D=%d R=%d, want the options' 3 and 2", f.Delay, f.RackDelay)
	}
	if f := get("fair:7").(*sim.Fair); f.Delay != 7 || f.RackDelay != 0 {
		t.Errorf("fair:7: D=%d R=%d, want the name's 7 and 0", f.Delay, f.RackDelay)
	}
	for _, name := range []string{"dp", "dp-preempt"} {
		d := get(name).(*sim.DP)
		if !reflect.DeepEqual(d.Spending, o.Spending) || !math.IsInf(d.DefaultBudget, 1) || !d.WorkConserving ||
			d.Preempt != (name == "dp-preempt") || d.Label != name {
			t.Errorf("%s: %+v", name, d)
		}
	}
	if ty := get("tyrex-static").(*sim.Tyrex); ty.Dynamic || !reflect.DeepEqual(ty.Timers, []float64{50}) {
		t.Errorf("tyrex-static: %+v, want timer 50", ty)
	}
	if ty, _ := sim.ParsePolicy("tyrex-static", nil); !reflect.DeepEqual(ty.(*sim.Tyrex).Timers, []float64{sim.DefaultTyrexTimer}) {
		t.Errorf("tyrex-static without options: timers %v, want the default", ty.(*sim.Tyrex).Timers)
	}
	if ty := get("tyrex-dynamic").(*sim.Tyrex); !ty.Dynamic {
		t.Error("tyrex-dynamic is not dynamic")
	}
	// The presets' exponents (α, β, γ), as the HybS paper's variants.
	for name, abc := range map[string][3]float64{"hybs": {1, -1, -1}, "hybs-fcfs": {1, 0, 0}, "hybs-sjf": {0, -1, 0}, "hybs-smallest": {0, 0, -1}} {
		h := get(name).(*sim.HybS)
		if [3]float64{h.Alpha, h.Beta, h.Gamma} != abc || h.Delta != 0 || h.Label != name ||
			!reflect.DeepEqual(h.Levels, o.HybSLevels) || !reflect.DeepEqual(h.Waited, o.HybSWaited) {
			t.Errorf("%s: %+v, want exponents %v and the options' levels and waits", name, h, abc)
		}
	}
	if _, ok := sim.HybSPreset("hybs-lifo"); ok {
		t.Error("HybSPreset accepts an unknown name")
	}
}

func TestPolicyOptionsValidate(t *testing.T) {
	nan := math.NaN()
	for i, o := range []sim.PolicyOptions{
		{Delay: -1}, {RackDelay: -1}, {Spending: map[string]float64{"a": 0}}, {Spending: map[string]float64{"a": math.Inf(1)}},
		{TyrexTimer: -1}, {TyrexTimer: nan}, {TyrexTimer: math.Inf(1)},
		{HybSLevels: map[string]float64{"j": 1.5}}, {HybSLevels: map[string]float64{"j": nan}}, {HybSWaited: map[string]float64{"j": -1}},
	} {
		if _, err := sim.ParsePolicy("fifo", &o); err == nil || !strings.HasPrefix(err.Error(), "sim: policy options: ") {
			t.Errorf("case %d %+v: error %v", i, o, err)
		}
	}
	var zero *sim.PolicyOptions
	if err := zero.Validate(); err != nil {
		t.Errorf("nil options: %v", err)
	}
}

func TestParsePolicies(t *testing.T) {
	es, err := sim.ParsePolicies([]string{"fifo", "plan", "fair:2", "plan-no-barrier"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name)
		if e.Replays() != strings.HasPrefix(e.Name, "plan") || e.Barrier != (e.Name == "plan") {
			t.Errorf("%s: replays %v, barrier %v", e.Name, e.Replays(), e.Barrier)
		}
	}
	if strings.Join(got, ",") != "fifo,plan,fair:2,plan-no-barrier" {
		t.Errorf("entries %v", got)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"fair:3", "fair:3"}, `"fair:3" is listed twice`},
		{[]string{"plan", "plan"}, `"plan" is listed twice`},
		{[]string{"fair:1", "fair:01"}, `"fair:1" and "fair:01" are the same policy (fair D=1)`},
		{[]string{"fair", "fair:0"}, `"fair" and "fair:0" are the same policy (fair)`},
	} {
		if _, err := sim.ParsePolicies(c.names, nil); !errors.Is(err, sim.ErrDuplicatePolicy) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.names, err, c.want)
		}
	}
	if _, err := sim.ParsePolicies([]string{"fifo", "lottery"}, nil); !errors.Is(err, sim.ErrUnknownPolicy) {
		t.Errorf("lottery: error %v", err)
	}
}
