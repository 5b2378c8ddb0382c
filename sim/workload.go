package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim/internal/engine"
)

// Workload is what a run simulates: a cluster and the jobs submitted to it.
// Its JSON form is the simulation workload file, for example
//
//	{"cluster": {"nodes": 20, "racks": 2, "map_slots": 2, "reduce_slots": 1},
//	 "jobs": [{"name": "A", "arrival": 0, "maps": {"count": 4, "mean": 10}},
//	          {"name": "B", "arrival": 5, "user": "bob", "priority": 1,
//	           "maps": {"durations": [5, 7]}, "reduces": {"count": 1, "mean": 30}, "shuffle": 3}]}
type Workload struct {
	Name    string  `json:"name,omitempty"`
	Cluster Cluster `json:"cluster"`
	Jobs    []Job   `json:"jobs"`
}

// Cluster is a Hadoop-1 cluster: Nodes nodes in Racks racks (node i is in rack
// ⌊i·Racks/Nodes⌋), each with MapSlots map and ReduceSlots reduce slots, and
// HDFS blocks stored Replication times. A zero field takes its default.
type Cluster struct {
	// Nodes defaults to 18, the packing paper's primary VMs.
	Nodes int `json:"nodes"`
	// Racks defaults to 1.
	Racks int `json:"racks"`
	// MapSlots and ReduceSlots per node default to 2 and 1 (Hadoop 1's defaults).
	MapSlots    int `json:"map_slots"`
	ReduceSlots int `json:"reduce_slots"`
	// Replication is R, copies of every block; default 3, at most Nodes.
	Replication int `json:"replication"`
	// Extras are overcommitted, diskless nodes beyond the Nodes primary ones,
	// added when a plan is replayed: Extras[i] is the primary node that shares a
	// machine (and so a rack) with extra node Nodes+i. They hold no blocks.
	Extras []int `json:"-"`
}

// Job is one submitted job.
type Job struct {
	Name string `json:"name"`
	// Arrival is the submit time in seconds, at least 0.
	Arrival float64 `json:"arrival"`
	// User (or queue) owns the job; policies that share by user read it.
	User string `json:"user,omitempty"`
	// Priority orders FIFO: higher first (Hadoop's five levels map to −2..2).
	Priority int   `json:"priority,omitempty"`
	Maps     Tasks `json:"maps"`
	Reduces  Tasks `json:"reduces"`
	// Shuffle is the time in seconds between the last map's end and the
	// reduces becoming ready to run.
	Shuffle float64 `json:"shuffle,omitempty"`
	// NoInput marks map tasks that read no HDFS block: they run anywhere at their
	// base duration and count as locality "none".
	NoInput bool `json:"no_input,omitempty"`
	// Blocks optionally gives, for every map task, the nodes holding its input
	// block's replicas; otherwise they are placed HDFS-style from the seed.
	Blocks [][]int `json:"blocks,omitempty"`
}

// Tasks are a job's map or reduce tasks: either Durations, one per task, or
// Count tasks of Mean seconds each. Durations are the task's time when it runs
// node-local on a node that is not slowed.
type Tasks struct {
	Count     int       `json:"count,omitempty"`
	Mean      float64   `json:"mean,omitempty"`
	Durations []float64 `json:"durations,omitempty"`
}

// N is the number of tasks.
func (t Tasks) N() int { return engine.Tasks(t).N() }

// Duration is task i's base duration.
func (t Tasks) Duration(i int) float64 { return engine.Tasks(t).Duration(i) }

// Total is the sum of the base durations.
func (t Tasks) Total() float64 {
	if len(t.Durations) == 0 {
		return float64(t.Count) * t.Mean
	}
	var s float64
	for _, d := range t.Durations {
		s += d
	}
	return s
}

// MaxTime bounds every time in a workload (arrivals, durations, shuffles), in
// seconds: about 31 years. Far beyond any trace, it keeps sums of times exact
// to well under a millisecond and every run finite.
const MaxTime = 1e9

// Size limits. Tasks and slots are indexed with 32-bit integers and slot
// counts kept in 16 bits, and a run needs up to about 100 bytes per task: these
// bounds turn absurd input into an error rather than a crash.
const (
	MaxNodes        = 1_000_000
	MaxSlotsPerNode = 1000
	MaxReplication  = engine.MaxReplication
	MaxTasks        = 100_000_000
)

// ErrInvalidWorkload is wrapped by every error about a workload's content.
var ErrInvalidWorkload = errors.New("invalid simulation workload")

// WithDefaults returns the cluster with its zero fields set to the defaults:
// 18 nodes in 1 rack, 2 map and 1 reduce slot each, replication min(3, nodes).
func (c Cluster) WithDefaults() Cluster {
	if c.Nodes == 0 {
		c.Nodes = 18
	}
	if c.Racks == 0 {
		c.Racks = 1
	}
	if c.MapSlots == 0 {
		c.MapSlots = 2
	}
	if c.ReduceSlots == 0 {
		c.ReduceSlots = 1
	}
	if c.Replication == 0 {
		c.Replication = min(3, c.Nodes)
	}
	return c
}

// Validate rejects a cluster that cannot run tasks; zero fields are defaults.
func (c Cluster) Validate() error {
	d := c.WithDefaults()
	switch {
	case c.Nodes < 0 || c.Nodes > MaxNodes:
		return fmt.Errorf("%w: cluster.nodes must be between 1 and %d, got %d", ErrInvalidWorkload, MaxNodes, c.Nodes)
	case c.Racks < 0 || d.Racks > d.Nodes:
		return fmt.Errorf("%w: cluster.racks must be between 1 and nodes (%d), got %d", ErrInvalidWorkload, d.Nodes, c.Racks)
	case c.MapSlots < 0 || c.MapSlots > MaxSlotsPerNode:
		return fmt.Errorf("%w: cluster.map_slots must be between 1 and %d, got %d", ErrInvalidWorkload, MaxSlotsPerNode, c.MapSlots)
	case c.ReduceSlots < 0 || c.ReduceSlots > MaxSlotsPerNode:
		return fmt.Errorf("%w: cluster.reduce_slots must be between 1 and %d, got %d", ErrInvalidWorkload, MaxSlotsPerNode, c.ReduceSlots)
	case c.Replication < 0 || d.Replication > min(d.Nodes, MaxReplication):
		return fmt.Errorf("%w: cluster.replication must be between 1 and nodes (%d) and at most %d, got %d", ErrInvalidWorkload, d.Nodes, MaxReplication, c.Replication)
	case (d.Nodes+len(c.Extras))*max(d.MapSlots, d.ReduceSlots) > 10*MaxNodes:
		return fmt.Errorf("%w: cluster: %d nodes × %d slots is more than %d slots", ErrInvalidWorkload, d.Nodes+len(c.Extras), max(d.MapSlots, d.ReduceSlots), 10*MaxNodes)
	}
	for i, p := range c.Extras {
		if p < 0 || p >= d.Nodes {
			return fmt.Errorf("%w: cluster: extra node %d shares a machine with node %d, outside 0..%d", ErrInvalidWorkload, i, p, d.Nodes-1)
		}
	}
	return nil
}

// Validate checks the cluster and every job; errors name the job and field.
func (w *Workload) Validate() error {
	if err := w.Cluster.Validate(); err != nil {
		return err
	}
	if len(w.Jobs) == 0 {
		return fmt.Errorf("%w: jobs: the workload has no jobs", ErrInvalidWorkload)
	}
	c := w.Cluster.WithDefaults()
	tasks := 0
	for i := range w.Jobs {
		// Counts are bounded one by one first, so the sum cannot overflow.
		m, r := w.Jobs[i].Maps.N(), w.Jobs[i].Reduces.N()
		if m > MaxTasks || r > MaxTasks || tasks+m+r > MaxTasks {
			return fmt.Errorf("%w: jobs[%d]: the workload has more than %d tasks", ErrInvalidWorkload, i, MaxTasks)
		}
		tasks += m + r
	}
	seen := make(map[string]int, len(w.Jobs))
	for i := range w.Jobs {
		j := &w.Jobs[i]
		at := fmt.Sprintf("jobs[%d]", i)
		if j.Name != "" {
			at += fmt.Sprintf(" (%q)", j.Name)
			if k, dup := seen[j.Name]; dup {
				return fmt.Errorf("%w: %s: name already used by jobs[%d]", ErrInvalidWorkload, at, k)
			}
			seen[j.Name] = i
		}
		if err := j.validate(c); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalidWorkload, at, err)
		}
	}
	return nil
}

// timeOK reports whether v is a usable time: finite, not negative, at most
// MaxTime.
func timeOK(v float64) bool { return v >= 0 && v <= MaxTime }

func (j *Job) validate(c Cluster) error {
	if !timeOK(j.Arrival) {
		return fmt.Errorf("arrival must be finite, not negative and at most %g s, got %v", MaxTime, j.Arrival)
	}
	if !timeOK(j.Shuffle) {
		return fmt.Errorf("shuffle must be finite, not negative and at most %g s, got %v", MaxTime, j.Shuffle)
	}
	for _, t := range []struct {
		field string
		ts    Tasks
	}{{"maps", j.Maps}, {"reduces", j.Reduces}} {
		if err := t.ts.validate(); err != nil {
			return fmt.Errorf("%s.%w", t.field, err)
		}
	}
	if j.Maps.N()+j.Reduces.N() == 0 {
		return fmt.Errorf("maps and reduces: the job has no tasks")
	}
	if j.Blocks != nil {
		if len(j.Blocks) != j.Maps.N() {
			return fmt.Errorf("blocks: %d entries for %d map tasks", len(j.Blocks), j.Maps.N())
		}
		for t, reps := range j.Blocks {
			if len(reps) == 0 {
				return fmt.Errorf("blocks[%d]: no replicas", t)
			}
			for k, n := range reps {
				if n < 0 || n >= c.Nodes {
					return fmt.Errorf("blocks[%d][%d]: node %d outside 0..%d", t, k, n, c.Nodes-1)
				}
				for _, m := range reps[:k] {
					if m == n {
						return fmt.Errorf("blocks[%d][%d]: node %d holds the block twice", t, k, n)
					}
				}
			}
		}
	}
	return nil
}

func (t Tasks) validate() error {
	if t.Count < 0 {
		return fmt.Errorf("count must not be negative, got %d", t.Count)
	}
	if len(t.Durations) > 0 {
		if t.Count != 0 && t.Count != len(t.Durations) {
			return fmt.Errorf("count %d but %d durations", t.Count, len(t.Durations))
		}
		for i, d := range t.Durations {
			if !(d > 0 && d <= MaxTime) {
				return fmt.Errorf("durations[%d] must be positive and at most %g s, got %v", i, MaxTime, d)
			}
		}
		return nil
	}
	if t.Count > 0 && !(t.Mean > 0 && t.Mean <= MaxTime) {
		return fmt.Errorf("mean must be positive and at most %g s for %d tasks, got %v", MaxTime, t.Count, t.Mean)
	}
	return nil
}

// Tasks counts every task of the workload.
func (w *Workload) Tasks() int {
	n := 0
	for i := range w.Jobs {
		n += w.Jobs[i].Maps.N() + w.Jobs[i].Reduces.N()
	}
	return n
}

// jsonWorkload mirrors Workload with pointers where an explicit 0 must be told
// apart from an absent field: zero slots is an error, no field a default.
type jsonWorkload struct {
	Name    string `json:"name"`
	Cluster *struct {
		Nodes       *int `json:"nodes"`
		Racks       *int `json:"racks"`
		MapSlots    *int `json:"map_slots"`
		ReduceSlots *int `json:"reduce_slots"`
		Replication *int `json:"replication"`
	} `json:"cluster"`
	Jobs []Job `json:"jobs"`
}

// ErrModelWorkload is returned by ParseWorkload for a packer workload file (job
// models, no tasks): read it with model.ParseWorkload and convert it with
// FromModel.
var ErrModelWorkload = errors.New("a packer workload file (job models), not a simulation workload")

// ParseWorkload decodes and validates a simulation workload file; name is used
// in errors. Errors are *model.InputError naming the file.
func ParseWorkload(data []byte, name string) (*Workload, error) {
	bad := func(err error) error { return &model.InputError{File: name, Err: err} }
	if IsModelWorkload(data) {
		return nil, bad(ErrModelWorkload)
	}
	var jw jsonWorkload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&jw); err != nil {
		return nil, bad(jsonError(data, err))
	}
	if dec.More() {
		return nil, bad(fmt.Errorf("%w: trailing data after the workload object at %s", ErrInvalidWorkload, model.JSONPosition(data, dec.InputOffset())))
	}
	w := &Workload{Name: jw.Name, Jobs: jw.Jobs}
	if c := jw.Cluster; c != nil {
		for _, f := range []struct {
			field string
			p     *int
			dst   *int
		}{{"nodes", c.Nodes, &w.Cluster.Nodes}, {"racks", c.Racks, &w.Cluster.Racks},
			{"map_slots", c.MapSlots, &w.Cluster.MapSlots}, {"reduce_slots", c.ReduceSlots, &w.Cluster.ReduceSlots},
			{"replication", c.Replication, &w.Cluster.Replication}} {
			if f.p == nil {
				continue
			}
			if *f.p < 1 {
				return nil, bad(fmt.Errorf("%w: cluster.%s must be at least 1, got %d", ErrInvalidWorkload, f.field, *f.p))
			}
			*f.dst = *f.p
		}
	}
	if err := w.Validate(); err != nil {
		return nil, bad(err)
	}
	return w, nil
}

// IsModelWorkload reports whether data looks like a packer workload file: its
// jobs carry a "model" and no tasks.
func IsModelWorkload(data []byte) bool {
	var probe struct {
		Jobs []map[string]json.RawMessage `json:"jobs"`
	}
	if json.Unmarshal(data, &probe) != nil || len(probe.Jobs) == 0 {
		return false
	}
	j := probe.Jobs[0]
	_, m := j["model"]
	_, maps := j["maps"]
	_, reduces := j["reduces"]
	return m && !maps && !reduces
}

// FromModel turns a packer workload (job models only) into a simulation
// workload on cluster c: every job arrives at 0 and becomes waves·n·S map
// tasks of F(n)/waves seconds each, with no input block and no reduces, where
// n = c.Nodes and S = c.MapSlots. Alone on the n nodes it runs exactly waves
// waves, F(n) in all, as its model says. A fixed task set cannot follow
// F(n) = a·n^b on every n unless b = −1, so the tasks are sized for the nodes
// the job is meant to run on; PlanWorkload sizes them for a plan's VM counts.
func FromModel(w *model.Workload, c Cluster, waves int) (*Workload, error) {
	if waves < 1 {
		return nil, fmt.Errorf("sim: waves must be at least 1, got %d", waves)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	d := c.WithDefaults()
	out := &Workload{Name: w.Name, Cluster: c}
	for _, j := range w.Jobs {
		out.Jobs = append(out.Jobs, modelJob(j, d.Nodes, d.MapSlots, waves))
	}
	return out, out.Validate()
}

// modelJob is job j sized for n nodes with s map slots each.
func modelJob(j model.Job, n, s, waves int) Job {
	return Job{Name: j.Name, User: j.Name, NoInput: true,
		Maps: Tasks{Count: waves * n * s, Mean: j.Seconds(n) / float64(waves)}}
}

// jsonError says where in the file decoding failed, in lines and columns.
func jsonError(data []byte, err error) error { return model.JSONError(data, err, ErrInvalidWorkload) }
