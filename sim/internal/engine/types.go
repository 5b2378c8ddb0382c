package engine

import "errors"

// Kind is a slot's (and a task's) kind; sim.Kind converts to it one to one.
type Kind uint8

// The two kinds of Hadoop 1 slots.
const (
	Map Kind = iota
	Reduce
)

// String is "map" or "reduce".
func (k Kind) String() string {
	if k == Reduce {
		return "reduce"
	}
	return "map"
}

// Locality is where a map task ran relative to its input block, best first;
// sim.Locality converts to it one to one.
type Locality uint8

// Localities, best first.
const (
	NodeLocal Locality = iota
	RackLocal
	Remote
	NoInput
)

// Assign's answers other than a job index (sim.Idle, sim.Later).
const (
	Idle  = -1
	Later = -2
)

// MaxReplication is the most replicas of a block (sim.MaxReplication).
const MaxReplication = 10

// Input is what a run is made of: a validated workload, its cluster's zero
// fields set to their defaults (sim.Cluster.WithDefaults). The jobs are
// asked for one at a time rather than handed over as a slice, so that a run
// needs no copy of a workload of millions of tasks: Compile asks for each
// job twice, and the run again for a job with its own Blocks when its maps
// are first placed.
type Input struct {
	Cluster Cluster
	// Jobs is the number of jobs; Job(j) is job j, for j in [0, Jobs).
	Jobs int
	Job  func(j int) Job
}

// Cluster is sim.Cluster, defaults set.
type Cluster struct {
	Nodes, Racks, MapSlots, ReduceSlots, Replication int
	// Extras are overcommitted extra nodes, each on the machine of the node
	// it names, in no rack of their own (sim.Cluster.Extras).
	Extras []int
}

// Job is what the engine reads of a sim.Job: its name and priority are the
// policies' and the results'.
type Job struct {
	Arrival float64
	User    string
	Maps    Tasks
	Reduces Tasks
	Shuffle float64
	NoInput bool
	Blocks  [][]int
}

// Tasks is sim.Tasks: Durations if not empty, else Count tasks of Mean seconds.
type Tasks struct {
	Count     int
	Mean      float64
	Durations []float64
}

// N is the number of tasks.
func (t Tasks) N() int {
	if len(t.Durations) > 0 {
		return len(t.Durations)
	}
	return t.Count
}

// Duration is task i's base duration.
func (t Tasks) Duration(i int) float64 {
	if len(t.Durations) > 0 {
		return t.Durations[i]
	}
	return t.Mean
}

// Tasks is the number of tasks of all jobs.
func (in *Input) Tasks() int {
	n := 0
	for i := range in.Jobs {
		j := in.Job(i)
		n += j.Maps.N() + j.Reduces.N()
	}
	return n
}

// Config is what a run reads of sim.Settings, defaults set.
type Config struct {
	Seed                     uint64
	Heartbeat, IdleRetry     float64
	RackFactor, RemoteFactor float64
	ReduceSlowstart          float64
	IgnoreLocality           bool
	// Trace, if not nil, hears every event of the run in order.
	Trace Tracer
	// Progress, if not nil, is called every ProgressEvery events and once at
	// the end: the simulated time, and the tasks ended of all.
	Progress func(now float64, done, tasks int)
}

// ProgressEvery is how many events pass between Progress calls.
const ProgressEvery = 1 << 20

// TraceKind names what happened in a TraceEvent; sim.TraceKind converts to
// it one to one.
type TraceKind uint8

// The traced events.
const (
	TraceArrive TraceKind = iota
	TraceStart
	TraceEnd
	TraceKill
	TraceFinish
)

// TraceEvent is one event of a run (sim.TraceEvent).
type TraceEvent struct {
	Time     float64
	Kind     TraceKind
	Job      int
	Task     int
	Node     int
	Locality Locality
}

// Tracer receives a run's events in order.
type Tracer interface {
	Event(e TraceEvent)
}

// Hooks are the policy as the engine calls it: sim.Policy and its optional
// interfaces, bound to the run's sim.State. Assign is required; a nil hook
// is one the policy does not have, and the engine then skips the call.
type Hooks struct {
	// Name labels the policy in errors.
	Name string
	// Assign answers a free slot of kind k on node: a job, Idle or Later.
	Assign          func(node int, k Kind) int
	Start           func()
	Offering        func(node int)
	JobArrived      func(j int)
	TaskEnded       func(t int)
	RunnableChanged func(j int, k Kind, runnable bool)
	JobFinished     func(j int)
	// Interval and Tick are a periodic policy's (sim.Periodic): Tick is
	// called every Interval() seconds while jobs are active.
	Interval func() float64
	Tick     func()
	// Sticky marks a policy whose freed slots mostly go back to the job
	// whose task ended (sim.StickySlots): a hint for prefetching only.
	Sticky bool
}

// ErrStalled is returned when a policy leaves jobs unfinished with nothing
// left to happen (it answered Idle to every offer and woke no node).
var ErrStalled = errors.New("sim: the run stalled")
