package sim

import "github.com/packer-sched/packer/sim/internal/engine"

// Kind is a slot's (and a task's) kind.
type Kind uint8

// The two kinds of Hadoop 1 slots.
const (
	Map Kind = iota
	Reduce
)

// String is "map" or "reduce".
func (k Kind) String() string { return engine.Kind(k).String() }

// Locality is where a map task ran relative to its input block.
type Locality uint8

// Localities, best first. NoInput is a task that reads no block (a reduce, or
// a map of a NoInput job): it runs anywhere at its base duration.
const (
	NodeLocal Locality = iota
	RackLocal
	Remote
	NoInput
)

// String is "node", "rack", "remote" or "none".
func (l Locality) String() string {
	return [...]string{"node", "rack", "remote", "none"}[l]
}

// Assign's answers other than a job index.
const (
	// Idle leaves the slot free until the node is next offered (its next task
	// end or heartbeat, or a Wake).
	Idle = -1
	// Later leaves the slot free and, without heartbeats, offers it again after
	// Settings.IdleRetry: what delay scheduling needs, since a job that waits for
	// a local slot must see further scheduling opportunities even on an
	// otherwise quiet cluster.
	Later = -2
)

// Policy decides which job gets a free slot. It is the whole scheduling
// contract: the core owns time, slots, tasks and locality, and asks the policy
// once per free slot whenever a node offers slots. The core then launches the
// chosen job's best-placed pending task of that kind (node-local, then
// rack-local, then any), so a policy that cares about locality, like delay
// scheduling, asks State.BestLocality first and answers Later to wait.
//
// A Policy serves one run at a time; runs call Start (if it has one) first, so
// one value may serve several runs in turn. The optional interfaces below add
// hooks; the core finds them by type assertion.
type Policy interface {
	// Name labels the policy in results, e.g. "fair D=10".
	Name() string
	// Assign returns the job (index into the workload's jobs) that gets the
	// free slot of the given kind on node, or Idle or Later. The job must have a
	// pending task of that kind (State.Pending); anything else is a programming
	// error and panics.
	Assign(s *State, node int, kind Kind) int
}

// Starter is a policy that resets its state at the start of every run.
type Starter interface {
	Start(s *State)
}

// ArrivalObserver learns of every job when it is submitted, before any slot
// is offered at that time.
type ArrivalObserver interface {
	JobArrived(s *State, job int)
}

// TaskObserver learns of every task that ends (not of killed ones), after the
// core has updated its counts and before the freed slot is offered.
type TaskObserver interface {
	TaskEnded(s *State, task int)
}

// RunnableObserver learns when a job joins Runnable(kind) (runnable true) or
// leaves it, as it happens: a policy that keeps its own order of the
// runnable jobs (FIFO) follows the set from here, with no list to take as
// with WatchJobs and TakeChanged, which also report running counts. The set
// is empty when the run starts. The call comes from inside a launch, a
// kill or an arrival, with the core's counts part updated: it must only
// read what it is told, not call Kill or Wake.
type RunnableObserver interface {
	RunnableChanged(s *State, job int, kind Kind, runnable bool)
}

// FinishObserver learns of every job when its last task ends.
type FinishObserver interface {
	JobFinished(s *State, job int)
}

// OfferObserver is told when a node starts offering free slots for which
// some job has a pending task, before the first Assign of the offer: a scheduling point at which, for example,
// dynamic priorities are recomputed.
type OfferObserver interface {
	Offering(s *State, node int)
}

// StickySlots is a policy under which a slot freed by a job's task usually
// goes back to that job, on the same node: fair sharing, where the job whose
// task just ended has just fallen behind the others and takes nearly every
// slot its tasks free. It is a hint for speed only. On runs of many tasks
// the core then, as a task ends, reads ahead what its job's next launch will
// read (the job's record and the task after the one ending), so that the
// launch finds them in the cache; a policy whose next launch is mostly
// another job's (FIFO, whose next launch is its head job's) gains nothing
// from it and pays for the reads, so should not declare it. A policy's
// results are the same with the hint or without it. The method is a marker,
// never called.
type StickySlots interface {
	StickySlots()
}

// Periodic is a policy with an allocation interval: Tick is called at 0,
// Interval, 2·Interval, ... seconds, for example to re-divide slots among
// users and charge their budgets, and to preempt with State.Kill. Ticks pause
// while no job is in the system and resume, on the same grid, when one
// arrives.
type Periodic interface {
	Interval() float64
	Tick(s *State)
}
