package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/pso"
	"github.com/packer-sched/packer/sim"
)

// MaxPoints bounds a sweep's cross product: past it a sweep is refused
// before any run, since one mistyped axis (a thousand seeds instead of ten)
// would otherwise fill a batch queue. 100,000 points of a second each are a
// day on a hundred cores.
const MaxPoints = 100_000

// MaxFileBytes bounds a sweep file; one is a few hundred bytes.
const MaxFileBytes = 1 << 20

// The kinds of run a sweep's points make.
const (
	Simulate = "simulate"
	Plan     = "plan"
)

// File is a sweep file: the axes of the cross product. Every list is an
// axis; an empty one has one value, the default. Its JSON form:
//
//	{"name": "fb09", "run": "simulate", "workloads": ["fb09-1h.json", "W1"],
//	 "nodes": [10, 20], "policies": ["fifo", "fair", "fair:5"], "seeds": [1, 2],
//	 "options": [{"name": "now"}, {"name": "hb3", "heartbeat": 3}]}
type File struct {
	// Name names the sweep in job names and shard files: letters, digits,
	// '-', '_' and '.', at most 50.
	Name string `json:"name"`
	// Run is "simulate" (packer simulate's runs) or "plan" (packer plan's).
	Run string `json:"run"`
	// Workloads are built-in names or files (paths relative to the sweep
	// file's directory): simulation workloads or packer workloads to
	// simulate, packer workloads (or random-mM-seedS) to plan.
	Workloads []string `json:"workloads"`
	// Nodes are the simulated cluster sizes (simulate; none: the workload's).
	Nodes []int `json:"nodes,omitempty"`
	// Hosts are the planned cluster sizes (plan; none: the paper's 9).
	Hosts []int `json:"hosts,omitempty"`
	// Policies are simulate's policy names (sim.PolicyNames), plan replays
	// excepted.
	Policies []string `json:"policies,omitempty"`
	// Algorithms are plan's (optimize.Methods).
	Algorithms []string `json:"algorithms,omitempty"`
	// Seeds seed block placement (simulate) or the swarm (plan); none: [1].
	Seeds []uint64 `json:"seeds,omitempty"`
	// Options are named sets of the remaining settings; none: one set of
	// defaults named "default".
	Options []Options `json:"options,omitempty"`
}

// Options are the settings of one option set. A zero field is the
// command's default. The simulate fields are packer simulate's flags of
// the same names; the plan fields packer plan's.
type Options struct {
	Name string `json:"name"`

	Racks        int     `json:"racks,omitempty"`
	MapSlots     int     `json:"map_slots,omitempty"`
	ReduceSlots  int     `json:"reduce_slots,omitempty"`
	Replication  int     `json:"replication,omitempty"`
	Waves        int     `json:"waves,omitempty"`
	Heartbeat    float64 `json:"heartbeat,omitempty"`
	RackFactor   float64 `json:"rack_factor,omitempty"`
	RemoteFactor float64 `json:"remote_factor,omitempty"`
	Slowstart    float64 `json:"slowstart,omitempty"`
	Delay        int     `json:"delay,omitempty"`
	RackDelay    int     `json:"rack_delay,omitempty"`
	TyrexTimer   float64 `json:"tyrex_timer,omitempty"`

	Disks          int     `json:"disks,omitempty"`
	Ratio          int     `json:"ratio,omitempty"`
	Alpha          float64 `json:"alpha,omitempty"`
	Cores          int     `json:"cores,omitempty"`
	Memory         int     `json:"memory,omitempty"`
	Particles      int     `json:"particles,omitempty"`
	Iterations     int     `json:"iterations,omitempty"`
	TimeLimit      float64 `json:"time_limit,omitempty"`
	WithinMeasured bool    `json:"within_measured,omitempty"`
}

// defaultWaves is packer simulate's --waves default.
const defaultWaves = 4

// InputError is bad input in a sweep file: which file, which field (a
// JSON path such as options[1].heartbeat), which value, and why. Its
// Error is one line.
type InputError struct {
	File, Field, Value, Reason string
}

func (e *InputError) Error() string {
	switch {
	case e.Field == "":
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	case e.Value == "":
		return fmt.Sprintf("%s: %s: %s", e.File, e.Field, e.Reason)
	}
	return fmt.Sprintf("%s: %s = %s: %s", e.File, e.Field, e.Value, e.Reason)
}

// bad makes an InputError; value is shown as JSON.
func bad(file, field string, value any, format string, args ...any) *InputError {
	v, _ := json.Marshal(value)
	return &InputError{File: file, Field: field, Value: string(v), Reason: oneLine(fmt.Sprintf(format, args...))}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,49}$`)

// Parse reads a sweep file strictly (an unknown field is an error),
// fills the defaults and checks every value, so that a point cannot fail
// for a reason the file shows. file names the file in errors.
func Parse(data []byte, file string) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, &InputError{File: file, Reason: fmt.Sprintf("%d bytes, more than a sweep file may hold (%d)", len(data), MaxFileBytes)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, decodeError(data, file, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &InputError{File: file, Reason: "more than one JSON value (a sweep file is one object)"}
	}
	if err := f.check(file); err != nil {
		return nil, err
	}
	return &f, nil
}

// decodeError words a JSON error as an InputError with the line or field.
func decodeError(data []byte, file string, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &InputError{File: file, Reason: fmt.Sprintf("line %d: %v", 1+bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")), err)}
	case errors.As(err, &typ):
		return &InputError{File: file, Field: typ.Field, Value: "a JSON " + typ.Value, Reason: "want " + typeName(typ.Type.String())}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &InputError{File: file, Reason: "empty or cut short (want one JSON object)"}
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &InputError{File: file, Field: strings.Trim(f, `"`), Reason: "unknown field (a sweep file has name, run, workloads, nodes, hosts, policies, algorithms, seeds, options)"}
	}
	return &InputError{File: file, Reason: oneLine(err.Error())}
}

func typeName(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "sweep."):
		return "an object"
	}
	return "a number (" + t + ")"
}

// check fills the defaults and validates every axis.
func (f *File) check(file string) error {
	if !namePattern.MatchString(f.Name) {
		return bad(file, "name", f.Name, "want 1 to 50 letters, digits, '-', '_' or '.', starting with a letter or digit")
	}
	if len(f.Seeds) == 0 {
		f.Seeds = []uint64{1}
	}
	if len(f.Options) == 0 {
		f.Options = []Options{{Name: "default"}}
	}
	var err error
	switch f.Run {
	case Simulate:
		err = f.checkSimulate(file)
	case Plan:
		err = f.checkPlan(file)
	default:
		return bad(file, "run", f.Run, "want %q or %q", Simulate, Plan)
	}
	if err != nil {
		return err
	}
	if err := checkWorkloads(file, f.Workloads); err != nil {
		return err
	}
	if err := unique(file, "seeds", f.Seeds); err != nil {
		return err
	}
	if err := f.checkOptionNames(file); err != nil {
		return err
	}
	if n := f.count(); n > MaxPoints {
		return &InputError{File: file, Reason: fmt.Sprintf("the axes cross to %.0f points, more than a sweep may have (%d)", n, MaxPoints)}
	}
	return nil
}

// count is the number of points, as a float so that it cannot overflow.
func (f *File) count() float64 {
	return float64(len(f.Workloads)) * float64(max(1, len(f.Nodes)+len(f.Hosts))) *
		float64(len(f.Policies)+len(f.Algorithms)) * float64(len(f.Seeds)) * float64(len(f.Options))
}

func checkWorkloads(file string, ws []string) error {
	if len(ws) == 0 {
		return &InputError{File: file, Field: "workloads", Reason: "name at least one workload (a built-in name or a file)"}
	}
	for i, w := range ws {
		if strings.TrimSpace(w) == "" || w == "-" {
			return bad(file, fmt.Sprintf("workloads[%d]", i), w, "want a built-in name or a file (a sweep reads no standard input)")
		}
	}
	return unique(file, "workloads", ws)
}

func unique[T comparable](file, field string, xs []T) error {
	for i, x := range xs {
		if slices.Index(xs, x) < i {
			return bad(file, fmt.Sprintf("%s[%d]", field, i), x, "listed twice")
		}
	}
	return nil
}

func (f *File) checkOptionNames(file string) error {
	for i, o := range f.Options {
		if !namePattern.MatchString(o.Name) {
			return bad(file, fmt.Sprintf("options[%d].name", i), o.Name, "want 1 to 50 letters, digits, '-', '_' or '.'")
		}
		for j := range i {
			if f.Options[j].Name == o.Name {
				return bad(file, fmt.Sprintf("options[%d].name", i), o.Name, "listed twice")
			}
		}
	}
	return nil
}

// checkSimulate checks a simulate sweep's axes: cluster sizes, policies
// (built with every option set) and each option set's settings.
func (f *File) checkSimulate(file string) error {
	if len(f.Hosts) > 0 || len(f.Algorithms) > 0 {
		field := map[bool]string{true: "hosts", false: "algorithms"}[len(f.Hosts) > 0]
		return &InputError{File: file, Field: field, Reason: `belongs to "run": "plan" sweeps (a simulate sweep has nodes and policies)`}
	}
	for i, n := range f.Nodes {
		if n < 1 || n > sim.MaxNodes {
			return bad(file, fmt.Sprintf("nodes[%d]", i), n, "want 1 to %d", sim.MaxNodes)
		}
	}
	if err := unique(file, "nodes", f.Nodes); err != nil {
		return err
	}
	if len(f.Policies) == 0 {
		return &InputError{File: file, Field: "policies", Reason: "name at least one policy: " + strings.Join(sim.PolicyNames(), ", ")}
	}
	if err := unique(file, "policies", f.Policies); err != nil {
		return err
	}
	for i, o := range f.Options {
		if err := o.checkSimulate(file, fmt.Sprintf("options[%d]", i), f); err != nil {
			return err
		}
	}
	return nil
}

func (o Options) checkSimulate(file, at string, f *File) error {
	if name := o.planField(); name != "" {
		return &InputError{File: file, Field: at + "." + name, Reason: `belongs to "run": "plan" sweeps`}
	}
	for i, p := range f.Policies {
		info, _, err := sim.LookupPolicy(p)
		if err == nil && info.Replay {
			err = fmt.Errorf("a plan replay needs a plan document; a sweep simulates workloads")
		}
		if err == nil {
			_, err = sim.ParsePolicy(p, o.policyOptions())
		}
		if err != nil {
			return bad(file, fmt.Sprintf("policies[%d]", i), p, "%v", err)
		}
	}
	if o.Waves < 0 {
		return bad(file, at+".waves", o.Waves, "want at least 1")
	}
	set := o.settings(0)
	if err := set.Validate(); err != nil {
		return settingError(file, at, err)
	}
	for _, n := range append([]int{0}, f.Nodes...) {
		if err := o.cluster(n).Validate(); err != nil && (n > 0 || len(f.Nodes) == 0) {
			return &InputError{File: file, Field: at, Reason: fmt.Sprintf("with nodes %d: %v", n, err)}
		}
	}
	return nil
}

// settingError names the option field a sim.SettingError is about.
func settingError(file, at string, err error) error {
	var se *sim.SettingError
	if errors.As(err, &se) {
		field := map[string]string{"Heartbeat": "heartbeat", "RackFactor": "rack_factor", "RemoteFactor": "remote_factor",
			"ReduceSlowstart": "slowstart", "TyrexTimer": "tyrex_timer", "Delay": "delay", "RackDelay": "rack_delay"}[se.Field]
		if field != "" {
			return bad(file, at+"."+field, se.Value, "%s", se.Rule)
		}
	}
	return &InputError{File: file, Field: at, Reason: oneLine(err.Error())}
}

// planField names a plan option set in o, if any.
func (o Options) planField() string {
	switch {
	case o.Disks != 0:
		return "disks"
	case o.Ratio != 0:
		return "ratio"
	case o.Alpha != 0:
		return "alpha"
	case o.Cores != 0:
		return "cores"
	case o.Memory != 0:
		return "memory"
	case o.Particles != 0:
		return "particles"
	case o.Iterations != 0:
		return "iterations"
	case o.TimeLimit != 0:
		return "time_limit"
	case o.WithinMeasured:
		return "within_measured"
	}
	return ""
}

// simField names a simulate option set in o, if any.
func (o Options) simField() string {
	for _, c := range []struct {
		set  bool
		name string
	}{{o.Racks != 0, "racks"}, {o.MapSlots != 0, "map_slots"}, {o.ReduceSlots != 0, "reduce_slots"},
		{o.Replication != 0, "replication"}, {o.Waves != 0, "waves"}, {o.Heartbeat != 0, "heartbeat"},
		{o.RackFactor != 0, "rack_factor"}, {o.RemoteFactor != 0, "remote_factor"}, {o.Slowstart != 0, "slowstart"},
		{o.Delay != 0, "delay"}, {o.RackDelay != 0, "rack_delay"}, {o.TyrexTimer != 0, "tyrex_timer"}} {
		if c.set {
			return c.name
		}
	}
	return ""
}

// policyOptions are what a policy's name leaves open.
func (o Options) policyOptions() *sim.PolicyOptions {
	return &sim.PolicyOptions{Delay: o.Delay, RackDelay: o.RackDelay, TyrexTimer: o.TyrexTimer}
}

// settings are a simulate point's run settings.
func (o Options) settings(seed uint64) sim.Settings {
	set := sim.Settings{Seed: seed, Heartbeat: o.Heartbeat, RackFactor: o.RackFactor, RemoteFactor: o.RemoteFactor,
		ReduceSlowstart: o.Slowstart}
	if set.RackFactor == 0 {
		set.RackFactor = sim.DefaultRackFactor
	}
	if set.RemoteFactor == 0 {
		set.RemoteFactor = sim.DefaultRemoteFactor
	}
	return set
}

// cluster is the simulated cluster of nodes nodes (0: the workload's).
func (o Options) cluster(nodes int) sim.Cluster {
	return sim.Cluster{Nodes: nodes, Racks: o.Racks, MapSlots: o.MapSlots, ReduceSlots: o.ReduceSlots, Replication: o.Replication}
}

func (o Options) waves() int {
	if o.Waves == 0 {
		return defaultWaves
	}
	return o.Waves
}

// checkPlan checks a plan sweep's axes: host counts, algorithms and each
// option set's cluster and solver settings.
func (f *File) checkPlan(file string) error {
	if len(f.Nodes) > 0 || len(f.Policies) > 0 {
		field := map[bool]string{true: "nodes", false: "policies"}[len(f.Nodes) > 0]
		return &InputError{File: file, Field: field, Reason: `belongs to "run": "simulate" sweeps (a plan sweep has hosts and algorithms)`}
	}
	for i, h := range f.Hosts {
		if h < 1 {
			return bad(file, fmt.Sprintf("hosts[%d]", i), h, "want at least 1")
		}
	}
	if err := unique(file, "hosts", f.Hosts); err != nil {
		return err
	}
	if len(f.Algorithms) == 0 {
		return &InputError{File: file, Field: "algorithms", Reason: "name at least one algorithm: " + optimize.MethodList()}
	}
	for i, a := range f.Algorithms {
		if _, err := optimize.ParseMethod(a); err != nil {
			return bad(file, fmt.Sprintf("algorithms[%d]", i), a, "%v", err)
		}
	}
	if err := unique(file, "algorithms", f.Algorithms); err != nil {
		return err
	}
	for i, o := range f.Options {
		at := fmt.Sprintf("options[%d]", i)
		if name := o.simField(); name != "" {
			return &InputError{File: file, Field: at + "." + name, Reason: `belongs to "run": "simulate" sweeps`}
		}
		if o.Particles < 0 {
			return bad(file, at+".particles", o.Particles, "want at least 1, or 0 or left out for packer plan's default")
		}
		if o.Iterations < 0 {
			return bad(file, at+".iterations", o.Iterations, "want at least 1, or 0 or left out for packer plan's default")
		}
		if o.TimeLimit < 0 || math.IsNaN(o.TimeLimit) || o.TimeLimit > 1e6 {
			return bad(file, at+".time_limit", o.TimeLimit, "want 0 (no limit) to 1000000 seconds")
		}
		for _, h := range append([]int{0}, f.Hosts...) {
			if err := o.planCluster(h).Validate(); err != nil {
				return &InputError{File: file, Field: at, Reason: fmt.Sprintf("with hosts %d: %v", h, oneLine(err.Error()))}
			}
		}
	}
	return nil
}

// planCluster is the planned cluster of hosts hosts (0: the paper's).
func (o Options) planCluster(hosts int) model.Cluster {
	c := model.Cluster{Hosts: hosts, DisksPerHost: o.Disks, ExtraRatio: o.Ratio, Alpha: o.Alpha,
		CoresPerHost: o.Cores, MemoryMiBPerHost: o.Memory}.WithDefaults()
	if o.Ratio == 0 && c.ExtraRatio > c.DisksPerHost {
		c.ExtraRatio = c.DisksPerHost // as packer plan does with --disks 1
	}
	return c
}

// solverSettings are a plan point's optimize settings. No time limit
// unless the option set gives one: a limit makes the plan depend on how
// fast the machine is, and shards run on many. Particles and iterations
// left out stay 0, which leaves them to optimize as packer plan does.
func (o Options) solverSettings(seed uint64) *optimize.Settings {
	return &optimize.Settings{
		Swarm:          &pso.Settings{Particles: o.Particles, Iterations: o.Iterations, Seed: seed, Workers: 1},
		TimeLimit:      time.Duration(o.TimeLimit * float64(time.Second)),
		WithinMeasured: o.WithinMeasured,
	}
}

// orDefault is x, or def when x is 0.
func orDefault(x, def int) int {
	if x == 0 {
		return def
	}
	return x
}
