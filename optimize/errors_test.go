package optimize

import (
	"errors"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
)

// TestSettingsValidate: each rule of Settings names its field in a
// *SettingError wrapping ErrInvalidSetting, Solve refuses the same, and
// Validate leaves the settings as they were.
func TestSettingsValidate(t *testing.T) {
	p := threeJobs(t)
	for _, c := range []struct {
		set   Settings
		field string
	}{
		{Settings{ExactJobs: -1}, "ExactJobs"},
		{Settings{ExactJobs: MaxExactJobs + 1}, "ExactJobs"},
		{Settings{TimeLimit: -time.Second}, "TimeLimit"},
		{Settings{ExactJobs: 3, TimeLimit: -time.Second}, "TimeLimit"},
	} {
		for _, err := range []error{c.set.Validate(), solveErr(p, c.set)} {
			var se *SettingError
			if !errors.As(err, &se) || se.Field != c.field || !errors.Is(err, ErrInvalidSetting) {
				t.Errorf("%+v: error %v, want a *SettingError for %s", c.set, err, c.field)
			}
		}
	}
	set := &Settings{}
	if err := set.Validate(); err != nil || set.ExactJobs != 0 {
		t.Errorf("zero settings: %v, ExactJobs %d after Validate", err, set.ExactJobs)
	}
	var none *Settings
	if err := none.Validate(); err != nil {
		t.Errorf("nil settings: %v", err)
	}
	if got, want := (&Settings{TimeLimit: -time.Second}).Validate().Error(), "optimize: settings: TimeLimit must not be negative (0: no limit), got -1s"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

func solveErr(p *model.Problem, set Settings) error {
	_, err := Solve(p, MethodPair, &set)
	return err
}
