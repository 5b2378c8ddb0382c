package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Workload is an input as the engine's tests build it, with its jobs in a
// slice as sim's users build theirs.
type Workload struct {
	Cluster Cluster
	Jobs    []Job
}

// Settings are a run's settings as the tests name them.
type Settings = Config

// input is w as the engine reads it.
func (w *Workload) input() *Input {
	return &Input{Cluster: w.Cluster, Jobs: len(w.Jobs), Job: func(j int) Job { return w.Jobs[j] }}
}

// testConfig is c with sim's defaults for the fields left zero.
func testConfig(c Config) Config {
	if c.IdleRetry == 0 {
		c.IdleRetry = 1
	}
	if c.RackFactor == 0 {
		c.RackFactor = 1.2
	}
	if c.RemoteFactor == 0 {
		c.RemoteFactor = 2
	}
	return c
}

// withDefaults is w with its cluster's zero fields set as sim sets them
// (sim.Cluster.WithDefaults).
func withDefaults(w *Workload) *Workload {
	c := &w.Cluster
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
	return w
}

// compile lays out a run of w (defaults set) anew.
func compile(w *Workload, set Config) *State {
	return Compile(nil, withDefaults(w).input(), testConfig(set), DefaultOptions())
}

// compileIn lays out a run of w in the memory of prev.
func compileIn(prev *State, w *Workload, set Config) *State {
	return Compile(prev, withDefaults(w).input(), testConfig(set), DefaultOptions())
}

// fifo is the plainest policy, for the engine's own tests: each slot to the
// runnable job of the lowest index.
func fifo(s *State) Hooks {
	return Hooks{Name: "fifo", Assign: func(_ int, k Kind) int { return int(slices.Min(s.Runnable(k))) }}
}

// variedJobs is a workload on one cluster of 24 nodes in 4 racks whose jobs
// differ in all a run's state depends on: one map or many waves of them,
// reduces or none, shuffles, and heavy tails.
func variedJobs(rng *rand.Rand, n int) *Workload {
	w := &Workload{Cluster: Cluster{Nodes: 24, Racks: 4, MapSlots: 2, ReduceSlots: 1}}
	for j := range n {
		d := make([]float64, 1+rng.IntN(1+rng.IntN(120)))
		for i := range d {
			d[i] = float64(1+rng.IntN(20)) + rng.Float64()
		}
		job := Job{User: fmt.Sprint(j % 2), Arrival: float64(rng.IntN(100)), Maps: Tasks{Durations: d}}
		if rng.IntN(2) == 0 {
			job.Reduces = Tasks{Count: 1 + rng.IntN(40), Mean: float64(1 + rng.IntN(10))}
			job.Shuffle = float64(rng.IntN(3))
		}
		w.Jobs = append(w.Jobs, job)
	}
	return withDefaults(w)
}

// benchWorkload is sim's benchmark workload of n tasks (sim/bench_test.go):
// jobs of 100 maps of 5–15 s and 5 reduces of 10 s arriving Poisson, on
// n/1000 nodes in racks of 20.
func benchWorkload(n int) *Workload {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	nodes := max(10, n/1000)
	w := &Workload{Cluster: Cluster{Nodes: nodes, Racks: max(1, nodes/20), MapSlots: 2, ReduceSlots: 1}}
	gap := 1000 / (0.7 * 2 * float64(nodes))
	var t float64
	for range n / 105 {
		d := make([]float64, 100)
		for i := range d {
			d[i] = 5 + 10*rng.Float64()
		}
		w.Jobs = append(w.Jobs, Job{Arrival: t, Maps: Tasks{Durations: d}, Reduces: Tasks{Count: 5, Mean: 10}})
		t += rng.ExpFloat64() * gap
	}
	return withDefaults(w)
}
