package sim

import (
	"fmt"
	"math"
)

// Settings tune a run. The zero value is valid: every field's doc gives its
// default. Times are seconds of simulated (logical) time.
type Settings struct {
	// Seed is the master seed. Block placement and everything else random is
	// derived from it, so one seed names one run.
	Seed uint64
	// Heartbeat is the period, in seconds, at which every node offers its free
	// slots, as Hadoop's TaskTrackers do; node i's first heartbeat comes at
	// i·Heartbeat/nodes, which spreads them without randomness. 0 (the default)
	// offers a node's slots at once whenever a task on it ends, and all free
	// slots when a job arrives or its reduces become ready.
	Heartbeat float64
	// IdleRetry is how long, in seconds, a slot that a policy left idle on
	// purpose (Later, as delay scheduling does) waits before it is offered again
	// when there are no heartbeats. Default 1 s.
	IdleRetry float64
	// RackFactor and RemoteFactor multiply the duration of a map task that runs
	// rack-local or off-rack. The Delay Scheduling paper reports local tasks running up to 2× faster
	// than remote ones, so the defaults are 1.2 (in-rack bandwidth is much higher
	// than cross-rack) and 2.
	RackFactor, RemoteFactor float64
	// ReduceSlowstart, if above 0, lets a job's reduces launch once that
	// fraction of its maps is done (Hadoop 1's
	// mapred.reduce.slowstart.completed.maps, 0.05 there) instead of after all
	// of them: an early reduce holds its slot, copying, and its own duration
	// starts only when the job's maps are done and shuffled. 0 (the default)
	// launches reduces after the maps and the shuffle. At most 1.
	ReduceSlowstart float64
	// IgnoreLocality runs every map task as if it read no block: no factor, and
	// locality counted as "none". Hand-worked traces use it.
	IgnoreLocality bool
	// Trace, if not nil, receives every event of the run in order.
	Trace Tracer
	// MaxMemory, in bytes, refuses (ErrTooBig) a workload whose estimated
	// memory (EstimateMemory) is above it, before anything is allocated. 0
	// (the default) is no limit. (packer simulate's default is the least of
	// the limits the machine, a container and the process set.)
	MaxMemory int64
	// Progress, if not nil, is called about every ProgressEvery events and
	// once at the end of the run. It must not modify the run.
	Progress func(Progress)
}

// ProgressEvery is how many events pass between Progress calls: about a
// tenth of a second of a fast run.
const ProgressEvery = 1 << 20

// Progress is how far a run has come.
type Progress struct {
	// Policy is the policy's name.
	Policy string
	// Time is the simulated time in seconds.
	Time float64
	// TasksDone and Tasks count the tasks ended and in all.
	TasksDone, Tasks int
}

// MinTick and MaxTick bound the periodic times (Heartbeat, IdleRetry), in seconds.
const (
	MinTick = 1e-3
	MaxTick = 1e6
)

// The defaults a zero field of Settings stands for.
const (
	DefaultIdleRetry    = 1   // seconds
	DefaultRackFactor   = 1.2 // times a node-local map's duration
	DefaultRemoteFactor = 2   // times a node-local map's duration
)

// Validate reports the first field of s, in the order of the struct, that
// no run accepts, as a *SettingError; a nil s is the zero Settings. Run and
// Compare make the same check, but only once they start, so a caller that
// writes files or works long first calls Validate up front.
func (s *Settings) Validate() error {
	_, err := s.withDefaults()
	return err
}

// withDefaults validates s and returns a copy with defaults filled in; a nil
// s is the zero Settings. Its errors are *SettingError.
func (s *Settings) withDefaults() (Settings, error) {
	var out Settings
	if s != nil {
		out = *s
	}
	// A period below a millisecond makes t + period == t at the large times
	// a day-long trace reaches, and the loop never advances; one above
	// MaxTick drowns the task times in rounding. NaN fails every comparison.
	tick := fmt.Sprintf("must be 0 or between %g and %g seconds", MinTick, MaxTick)
	isTick := func(v float64) bool { return v >= MinTick && v <= MaxTick }
	for _, f := range []struct {
		name string
		v    *float64
		def  float64
		rule string
		ok   func(float64) bool
	}{
		{"Heartbeat", &out.Heartbeat, 0, tick, isTick},
		{"IdleRetry", &out.IdleRetry, DefaultIdleRetry, tick, isTick},
		// Non-local tasks are not faster than local ones.
		{"RackFactor", &out.RackFactor, DefaultRackFactor, "must be at least 1 and finite", isFactor},
		{"RemoteFactor", &out.RemoteFactor, DefaultRemoteFactor, "must be at least 1 and finite", isFactor},
	} {
		if *f.v == 0 {
			*f.v = f.def
		} else if !f.ok(*f.v) {
			return out, settingError(f.name, *f.v, f.rule)
		}
	}
	if !(out.ReduceSlowstart >= 0 && out.ReduceSlowstart <= 1) {
		return out, settingError("ReduceSlowstart", out.ReduceSlowstart, "must be between 0 and 1")
	}
	if out.MaxMemory < 0 {
		return out, settingError("MaxMemory", out.MaxMemory, "must not be negative")
	}
	return out, nil
}

// isFactor is the rule of a duration factor: finite and at least 1.
func isFactor(v float64) bool { return v >= 1 && !math.IsInf(v, 0) }
