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
	// (the default) is no limit; DefaultMaxMemory gives one from the machine.
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

// withDefaults validates s and returns a copy with defaults filled in; a nil
// s is the zero Settings.
func (s *Settings) withDefaults() (Settings, error) {
	var out Settings
	if s != nil {
		out = *s
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Heartbeat", out.Heartbeat}, {"IdleRetry", out.IdleRetry}, {"RackFactor", out.RackFactor}, {"RemoteFactor", out.RemoteFactor}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return out, fmt.Errorf("sim: settings: %s must be finite and not negative, got %v", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Heartbeat", out.Heartbeat}, {"IdleRetry", out.IdleRetry}} {
		// A period below a millisecond makes t + period == t at the large
		// times a day-long trace reaches, and the loop never advances; one
		// above MaxTick drowns the task times in rounding.
		if f.v != 0 && (f.v < MinTick || f.v > MaxTick) {
			return out, fmt.Errorf("sim: settings: %s must be 0 or between %g and %g seconds, got %v", f.name, MinTick, MaxTick, f.v)
		}
	}
	if out.MaxMemory < 0 {
		return out, fmt.Errorf("sim: settings: MaxMemory must not be negative, got %d", out.MaxMemory)
	}
	if out.IdleRetry == 0 {
		out.IdleRetry = 1
	}
	if out.RackFactor == 0 {
		out.RackFactor = 1.2
	}
	if out.RemoteFactor == 0 {
		out.RemoteFactor = 2
	}
	if !(out.ReduceSlowstart >= 0 && out.ReduceSlowstart <= 1) {
		return out, fmt.Errorf("sim: settings: ReduceSlowstart must be between 0 and 1, got %v", out.ReduceSlowstart)
	}
	if out.RackFactor < 1 || out.RemoteFactor < 1 {
		return out, fmt.Errorf("sim: settings: RackFactor and RemoteFactor must be at least 1 (non-local tasks are not faster), got %v and %v", out.RackFactor, out.RemoteFactor)
	}
	return out, nil
}

// derive returns a seed for one component, so components draw from
// independent streams of the one master seed (splitmix64 finaliser).
func derive(seed uint64, component uint64) uint64 {
	z := seed + component*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
