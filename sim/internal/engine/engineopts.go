package engine

// Options are the core's speed switches, carried by the compiled State
// (State.engine) from the moment it is laid out (Compile), so that a run reads its own
// and runs side by side with others that read theirs. Run always uses
// DefaultOptions(); a test that checks a fast path against its plain twin runs
// both (sim.Run uses DefaultOptions; sim's tests, runWith).
//
// Every switch keeps one invariant: it changes how fast a run goes, never
// what it computes. Any options give the same trace and the same Result,
// event for event; the tests named below hold each fast path to its twin.
type Options struct {
	// PrefetchFrom is the number of tasks from which the event queue
	// prefetches the records of the tasks ending next (eventQueue.ahead);
	// default 1<<21: 64 MiB of task records, beyond what a cache holds.
	// Below it the records are mostly in the cache already, and prefetching
	// them only adds instructions; above it nearly every record a task end
	// reads is a miss to memory, and prefetching overlaps those misses. A
	// prefetch only reads: TestPrefetchChangesNothing runs with it from 0
	// tasks and never.
	PrefetchFrom int
	// FinestFilter is the finest kind of filter the jobs may have
	// (State.filterBy, chooseFilter): FilterNodes (the default), FilterRacks,
	// or FilterNone (every question to the block index, the plain lookup
	// the filters must reproduce); each is taken only if the cluster fits
	// it, else the next coarser. TestRackFilterMatchesIndex holds the three
	// equal.
	FinestFilter uint8
	// EagerSweeps makes every sweep list its nodes at once (wakeIdle): the
	// plain behaviour the lazy one (the default, false) must reproduce;
	// TestLazySweepsMatchEager holds the two equal.
	EagerSweeps bool
}

// DefaultOptions are the options every production run uses.
func DefaultOptions() Options {
	return Options{PrefetchFrom: 1 << 21, FinestFilter: FilterNodes}
}
