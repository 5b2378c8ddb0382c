package sim_test

import (
	"errors"
	"math"
	"testing"

	"github.com/packer-sched/packer/sim"
)

// TestSettingsValidate: every rule of Settings names its field in a
// *SettingError that wraps ErrInvalidSetting, and the zero value and the
// defaults pass.
func TestSettingsValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		set   sim.Settings
		field string
	}{
		{sim.Settings{Heartbeat: -1}, "Heartbeat"},
		{sim.Settings{Heartbeat: 1e-20}, "Heartbeat"}, // below MinTick: t + period == t
		{sim.Settings{Heartbeat: 2e6}, "Heartbeat"},
		{sim.Settings{Heartbeat: nan}, "Heartbeat"},
		{sim.Settings{IdleRetry: -1}, "IdleRetry"},
		{sim.Settings{IdleRetry: inf}, "IdleRetry"},
		{sim.Settings{RackFactor: 0.5}, "RackFactor"}, // rack-local faster than local
		{sim.Settings{RackFactor: -1}, "RackFactor"},
		{sim.Settings{RackFactor: inf}, "RackFactor"},
		{sim.Settings{RemoteFactor: 0.99}, "RemoteFactor"},
		{sim.Settings{RemoteFactor: nan}, "RemoteFactor"},
		{sim.Settings{ReduceSlowstart: 1.5}, "ReduceSlowstart"},
		{sim.Settings{ReduceSlowstart: -0.1}, "ReduceSlowstart"},
		{sim.Settings{ReduceSlowstart: nan}, "ReduceSlowstart"},
		{sim.Settings{MaxMemory: -1}, "MaxMemory"},
	} {
		err := c.set.Validate()
		var se *sim.SettingError
		if !errors.As(err, &se) || se.Field != c.field || se.Input != "settings" || !errors.Is(err, sim.ErrInvalidSetting) {
			t.Errorf("%+v: error %v, want a *SettingError for %s", c.set, err, c.field)
		}
	}
	for _, set := range []*sim.Settings{nil, {}, {Heartbeat: sim.MinTick, IdleRetry: sim.MaxTick, RackFactor: 1, RemoteFactor: 1, ReduceSlowstart: 1}} {
		if err := set.Validate(); err != nil {
			t.Errorf("%+v: %v", set, err)
		}
	}
}

// TestSettingErrorLine: one line naming the field, the rule and the value
// as given.
func TestSettingErrorLine(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{(&sim.Settings{RackFactor: 0.5}).Validate(), "sim: settings: RackFactor must be at least 1 and finite, got 0.5"},
		{(&sim.PolicyOptions{Spending: map[string]float64{"bob": 0}}).Validate(), `sim: policy options: Spending["bob"] must be positive and finite, got 0`},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

// TestPolicyOptionsFields: every rule of PolicyOptions names its field, and
// the key of a bad map entry; of two bad entries the first by key.
func TestPolicyOptionsFields(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		o          sim.PolicyOptions
		field, key string
	}{
		{sim.PolicyOptions{Delay: -1}, "Delay", ""},
		{sim.PolicyOptions{RackDelay: -1}, "RackDelay", ""},
		{sim.PolicyOptions{Spending: map[string]float64{"b": -1, "a": 0}}, "Spending", "a"},
		{sim.PolicyOptions{Spending: map[string]float64{"a": math.Inf(1)}}, "Spending", "a"},
		{sim.PolicyOptions{TyrexTimer: -1}, "TyrexTimer", ""},
		{sim.PolicyOptions{TyrexTimer: nan}, "TyrexTimer", ""},
		{sim.PolicyOptions{HybSLevels: map[string]float64{"j": 1.5}}, "HybSLevels", "j"},
		{sim.PolicyOptions{HybSWaited: map[string]float64{"j": -1}}, "HybSWaited", "j"},
	} {
		err := c.o.Validate()
		var se *sim.SettingError
		if !errors.As(err, &se) || se.Field != c.field || se.Key != c.key || se.Input != "policy options" || !errors.Is(err, sim.ErrInvalidSetting) {
			t.Errorf("%+v: error %v, want a *SettingError for %s[%q]", c.o, err, c.field, c.key)
		}
	}
}
