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
//	state (state.go, blocks.go,   compiled, compact: tasks, slots, and for each job
//	  │   pcg.go)                 while its maps run, its blocks by node (a rack's are
//	  │                           its nodes' runs, which are contiguous), replicas
//	  │                           drawn from the seed (rand.PCG's generator) when
//	  │                           first needed
//	  ▼
//	core (run.go, events.go,      logical clock and an event queue (a calendar queue)
//	  │   wake.go)                ordered by (time, sequence number); asks the
//	  │                           Policy whenever a node offers a free slot
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
// # Speed mechanisms
//
// The core's speed comes from the mechanisms below. None changes what a
// policy sees or what a run computes, only how fast it goes; each keeps one
// invariant, held by the tests named. Above them all, the fast engine must
// agree with the plain one in sim/internal/reference, which keeps no index,
// cache, filter, calendar or lazy list: the TestReference tests
// (reference_test.go, reference_traces_test.go) run every built-in policy on
// both, on random workloads, the shipped traces and the built-in workloads,
// and require the same per-job results.
//
//   - Calendar queue (events.go): events in buckets of a fixed width on a
//     ring spanning a few typical task durations, those past its end in a
//     heap (far). Events come out in order of (time, sequence number),
//     exactly as from one sorted list: TestEventQueueOrder,
//     TestEventQueueMatchesSort.
//   - Prefetching ahead (eventQueue.ahead, prefetch.go): on runs of
//     engineOptions.prefetchFrom tasks or more, as a bucket becomes current,
//     the task and job records the next bucket's task ends will read are
//     asked into the cache. A prefetch only reads: TestPrefetchChangesNothing.
//   - Records laid out in cache lines (state.go): a task record is half a
//     line, a job record three whole lines, with what every launch and task
//     end touches on the first and the rack filter on the third, as ahead's
//     prefetches assume: TestJobRecordLines (layout_test.go).
//   - Lazy block indexes (blocks.go, pcg.go): a job's replicas are drawn and
//     indexed by node when it is first asked about, from the generator's
//     state saved at the job's start, and the index is dropped when its maps
//     are done. Every job's replicas are those drawn job by job in workload
//     order, whatever order the jobs are built in:
//     TestBlocksMatchInOrderDraws, TestPassingOverABigJobDrawsInChunks,
//     TestPCGMatchesRand. The index's lazy cursors never hide a pending task:
//     TestSeekMatchesLowerBound, TestNextInMatchesScan, TestLookupMatchesScan.
//   - Node and rack filters (state.go, run.go mayHold): per job a bit a node
//     (a bit a rack on a larger cluster, none on the largest), cleared when
//     the index has no never-launched map there, so that later questions skip
//     the index. They are exact: a cleared bit never hides a task (killed
//     maps, pending again, are asked first, from State.requeued):
//     TestRackFilterMatchesIndex, TestFilterKindBySize.
//   - The findTask cache (run.go, State.found): the last lookup's answer, so
//     that BestLocality or NodeLocal and then a launch of the same job look
//     once. Anything that changes a task's state clears it, so it always
//     answers as a lookup would: TestLookupMatchesScan.
//   - Lazy wake lists (wake.go): waking every node with a free slot is one
//     sweep marker, whose nodes are found when the drain reaches it (a
//     summary bitmap skipping full nodes), and the drain stops once no job
//     has a pending task. The nodes are offered as if they had been listed
//     when woken: TestLazySweepsMatchEager,
//     TestLazySweepsMatchEagerOnBusyClusters, TestNextFreeWordMatchesScan,
//     TestSweepRealizedMidDrain.
//   - Memory reuse for Alone (state.go, compileIn): its thousands of one-job
//     runs are each laid out in the memory of an earlier one that ended.
//     Nothing of that run leaks into the new one: TestCompileInForgetsEverything,
//     TestCompileInEqualsCompile, TestAloneReusedEqualsFresh.
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
//   - Engine options (engineopts.go): the switches of the mechanisms that
//     have a plain twin (prefetching, the kind of filter, eager sweeps) are
//     options of the State; Run always uses the defaults. Options change how
//     fast a run goes, never what it computes: TestReferenceEngineSwitches
//     runs the fast engine under every setting against the reference.
package sim
