package sim

import "github.com/packer-sched/packer/sim/internal/engine"

// State is a run in progress. Policies read it through its methods and act
// on it only through Kill, Wake and SetSlowdown; everything else is the
// engine's (sim/internal/engine, whose package doc lists how it goes fast).
// Its methods are cheap: each is one of the engine's, inlined.
type State struct {
	e *engine.State
	w *Workload
}

// Job is job j of the workload.
func (s *State) Job(j int) *Job { return &s.w.Jobs[j] }

// Kill stops a running task: its work is lost, its slot is freed (and
// offered, as after a task end) and it waits to run again, first in its job.
// It reports whether the task was running.
func (s *State) Kill(task int) bool { return s.e.Kill(task) }

// SetSlowdown makes tasks that start on node from now on run factor times
// longer (a node on an overcommitted machine, for example); factor ≥ 1 is
// usual, and it must be finite and positive.
func (s *State) SetSlowdown(node int, factor float64) { s.e.SetSlowdown(node, factor) }

// Now is the current simulated time in seconds.
func (s *State) Now() float64 { return s.e.Now() }

// Nodes is the number of nodes, extras included.
func (s *State) Nodes() int { return s.e.Nodes() }

// Rack is node's rack.
func (s *State) Rack(node int) int { return s.e.Rack(node) }

// Slots is the number of slots of kind per node.
func (s *State) Slots(k Kind) int { return s.e.Slots(engine.Kind(k)) }

// FreeSlots is the number of node's free slots of kind.
func (s *State) FreeSlots(node int, k Kind) int { return s.e.FreeSlots(node, engine.Kind(k)) }

// SlotTask is the task in node's slot i of kind, or −1.
func (s *State) SlotTask(node int, k Kind, i int) int { return s.e.SlotTask(node, engine.Kind(k), i) }

// Jobs is the number of jobs in the workload.
func (s *State) Jobs() int { return s.e.Jobs() }

// User is job j's user as a small integer, users numbered in order of first
// appearance in the workload; Users is how many there are.
func (s *State) User(j int) int { return s.e.User(j) }

// Users is the number of distinct users.
func (s *State) Users() int { return s.e.Users() }

// Arrived reports whether job j has been submitted.
func (s *State) Arrived(j int) bool { return s.e.Arrived(j) }

// Finished reports whether job j's last task has ended.
func (s *State) Finished(j int) bool { return s.e.Finished(j) }

// Pending is the number of job j's tasks of kind that could start now.
func (s *State) Pending(j int, k Kind) int { return s.e.Pending(j, engine.Kind(k)) }

// Remaining is the number of job j's tasks of kind not yet done.
func (s *State) Remaining(j int, k Kind) int { return s.e.Remaining(j, engine.Kind(k)) }

// Running is the number of job j's tasks of kind running now.
func (s *State) Running(j int, k Kind) int { return s.e.Running(j, engine.Kind(k)) }

// Runnable lists the jobs with a task of kind that could start now, in no
// particular order. The slice is the core's: read it, do not keep it past the
// call. A policy that keeps its own ordering of these jobs learns of changes
// from WatchJobs and TakeChanged instead of re-reading the set.
func (s *State) Runnable(k Kind) []int32 { return s.e.Runnable(engine.Kind(k)) }

// WatchJobs starts, for this run, the list of jobs whose running count
// changed, or that joined or left Runnable, that TakeChanged hands over: a
// policy that keeps jobs ordered by their running tasks then refiles only
// those, instead of re-checking every runnable job on every slot. Called
// from Start.
func (s *State) WatchJobs() { s.e.WatchJobs() }

// TakeChanged appends to buf[:0] the jobs whose running count of kind k
// changed, or that joined or left Runnable(k), since the last call (each
// once, in the order of their first change), empties the list and returns
// buf.
func (s *State) TakeChanged(k Kind, buf []int32) []int32 { return s.e.TakeChanged(engine.Kind(k), buf) }

// IsRunnable reports whether job j is in Runnable(k): with TakeChanged, it
// tells a job that joined from one that left.
func (s *State) IsRunnable(j int, k Kind) bool { return s.e.IsRunnable(j, engine.Kind(k)) }

// BestLocality is the best locality job j's pending tasks of kind can have on
// node: what it would get if it were given the slot now.
func (s *State) BestLocality(j, node int, k Kind) Locality {
	return Locality(s.e.BestLocality(j, node, engine.Kind(k)))
}

// TaskJob, TaskKind, TaskNode and TaskStart describe task t (its node and
// start are those of its current or last attempt).
func (s *State) TaskJob(t int) int { return s.e.TaskJob(t) }

// TaskKind is task t's kind.
func (s *State) TaskKind(t int) Kind { return Kind(s.e.TaskKind(t)) }

// TaskNode is the node of task t's current or last attempt, −1 before.
func (s *State) TaskNode(t int) int { return s.e.TaskNode(t) }

// TaskStart is the start time of task t's current or last attempt.
func (s *State) TaskStart(t int) float64 { return s.e.TaskStart(t) }

// TaskBase is task t's base duration: node-local on an unslowed node.
func (s *State) TaskBase(t int) float64 { return s.e.TaskBase(t) }

// Serial is this run's identity: distinct for every run in the process, a
// run laid out again in the memory of an earlier one included, and the same
// for the whole run. A policy that keeps per-run state between calls records
// it at Start and compares it later, to tell whether that state is of this
// run (FIFO does, for a policy that embeds it and does not call its Start)
// without holding the State, and so its memory, past the run.
func (s *State) Serial() uint64 { return s.e.Serial() }

// NodeLocal reports whether job j has a pending task of kind that runs on
// node at its best: a node-local map, or a task that reads no input (a
// reduce, or a map of a job without input). It is BestLocality(j, node, k)
// being NodeLocal or NoInput, found without looking for a rack-local or
// remote task: the check delay scheduling makes for every job it may skip
// (Fair with Delay > 0), much cheaper than BestLocality when the answer is
// no. Like BestLocality, it remembers a node-local map it finds, so that
// assigning the slot to j next launches that map without a second search.
// Ask it only of a job with a pending task of kind (Pending(j, k) > 0): of
// another the answer means nothing.
func (s *State) NodeLocal(j, node int, k Kind) bool { return s.e.NodeLocal(j, node, engine.Kind(k)) }

// Wake asks for node's free slots to be offered once the events of the
// current instant are done. With heartbeats it does nothing: the node offers them at its next
// heartbeat, as in Hadoop.
func (s *State) Wake(node int) { s.e.Wake(node) }
