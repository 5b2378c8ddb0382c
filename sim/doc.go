// Package sim is a task-level discrete-event simulator of a Hadoop-1-style
// cluster: racks of nodes with map and reduce slots, HDFS blocks with rack-aware
// replication, and jobs made of map tasks (each reading one block) and reduce
// tasks that start once every map is done (or, with Settings.ReduceSlowstart,
// once a fraction of them is, as Hadoop 1 did). It compares scheduling policies on
// makespan, response time, slowdown and data locality before a cluster is
// committed to a plan.
//
// The pipeline, left to right:
//
//	Workload (workload.go)        jobs and their tasks, read from JSON or built from
//	  │                           packer's job models (FromModel) or a plan (PlanWorkload)
//	  ▼
//	engine (internal/engine)      the run: the workload compiled into compact task
//	  │                           and job records, HDFS replicas drawn from the
//	  │                           seed, a logical clock and an event queue ordered
//	  │                           by (time, sequence number); it asks the Policy,
//	  │                           through State (state.go, run.go), whenever a node
//	  │                           offers a free slot. Its package doc lists the
//	  │                           mechanisms that make it fast, each with the
//	  │                           invariant it keeps and the test that holds it
//	  ▼
//	Policy (policy.go)            fifo, fair (with delay scheduling), sequential, plan
//	  │                           replay, Dynamic Priority (dp.go), HybS (hybs.go),
//	  │                           Tyrex static and dynamic and task-count fair (tyrex.go);
//	  │                           optional hooks for arrivals, task ends, periodic
//	  │                           allocation and preemption (Kill); the registry
//	  │                           (registry.go) builds each from its name
//	  │                           (ParsePolicy), Compare (compare.go) runs a list
//	  ▼
//	Result (metrics.go)           per job and per policy numbers; Summarize adds
//	                              slowdowns from the jobs' alone times (Alone)
//
// Nothing here reads a clock, a file or the environment: time is logical, every
// random choice comes from Settings.Seed, and the same inputs give the same
// Result byte for byte at any GOMAXPROCS. Units: times are seconds.
//
// # Two engines
//
// The engine that runs is built for speed. Beside it, sim/internal/reference
// is a plain event-list simulator of the same model, written to be read: it
// keeps no index, cache, filter, calendar or lazy list, and its package doc
// states the rules a run follows. The TestReference tests (reference_test.go,
// reference_traces_test.go) run every built-in policy on both, on random
// workloads, the shipped traces and the built-in workloads, and require the
// same per-job results: to change what a run means, change the reference
// first, then make the fast engine agree.
//
// # Policies' fast paths
//
// A policy outside this package can be as fast as the built-in ones: every
// ability FIFO and Fair use is exported (RunnableObserver, WatchJobs and
// TakeChanged, NodeLocal, Serial, StickySlots). Each keeps an invariant held
// by a test:
//
//   - Fair's order (fair.go): the runnable jobs in sets by running count,
//     refiled only when State.TakeChanged lists them, the job just given a
//     slot refiled lazily. It relies on the Policy contract (TakeChanged
//     lists every job whose running count or runnability changed; the core
//     launches the job Assign returns before it asks again), and at every
//     slot is a sort of the jobs by (running count, index), but for that one
//     job, filed as it will be once launched: TestFairOrderIsASort,
//     TestFairFollowsThePlainRules. FIFO's set of ranks (fifo.go) likewise
//     gives the plain scan's order: TestFIFOMatchesScan.
//   - StickySlots (policy.go): a policy's marker that a freed slot mostly
//     goes back to the job whose task ended, for which the queue also
//     prefetches that job's next task record and, with a bit a rack, its
//     filter. A hint for speed only: TestPrefetchChangesNothing runs every
//     policy with prefetching and without.
package sim
