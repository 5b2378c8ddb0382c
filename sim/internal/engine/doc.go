// Package engine runs a simulation for package sim: the workload compiled
// into compact task and job records, HDFS replicas drawn from the seed, a
// logical clock and an event queue ordered by (time, sequence number), and
// slots offered to the policy (sim.Policy, bound to a sim.State, as Hooks)
// whenever a node has free ones. What a run means is sim's and the
// reference engine's (sim/internal/reference), which states every rule
// plainly; this package is how a run goes fast, and nothing here may change
// what it computes: sim's TestReference tests run every built-in policy on
// both engines and require the same per-job results.
//
// The entry points are Compile (or CompileReference, for those tests), then
// State.Run. State's exported methods are what sim.State shows policies;
// Probe is what sim's tests read of the mechanisms below.
//
// # Speed mechanisms
//
// Each keeps one invariant, held by the tests named (in this package, or in
// sim where the test runs sim's policies).
//
//   - Calendar queue (events.go): events in buckets of a fixed width on a
//     ring spanning a few typical task durations, those past its end in a
//     heap (far). Events come out in order of (time, sequence number),
//     exactly as from one sorted list: TestEventQueueOrder,
//     TestEventQueueMatchesSort.
//   - Prefetching ahead (eventQueue.ahead, prefetch.go): on runs of
//     Options.PrefetchFrom tasks or more, as a bucket becomes current,
//     the task and job records the next bucket's task ends will read are
//     asked into the cache. A prefetch only reads: TestPrefetchChangesNothing (sim).
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
//     TestSeekMatchesLowerBound, TestNextInMatchesScan, TestLookupMatchesScan (sim).
//   - Node and rack filters (state.go, run.go mayHold): per job a bit a node
//     (a bit a rack on a larger cluster, none on the largest), cleared when
//     the index has no never-launched map there, so that later questions skip
//     the index. They are exact: a cleared bit never hides a task (killed
//     maps, pending again, are asked first, from State.requeued):
//     TestRackFilterMatchesIndex (sim), TestFilterKindBySize.
//   - The findTask cache (run.go, State.found): the last lookup's answer, so
//     that BestLocality or NodeLocal and then a launch of the same job look
//     once. Anything that changes a task's state clears it, so it always
//     answers as a lookup would: TestLookupMatchesScan (sim).
//   - Lazy wake lists (wake.go): waking every node with a free slot is one
//     sweep marker, whose nodes are found when the drain reaches it (a
//     summary bitmap skipping full nodes), and the drain stops once no job
//     has a pending task. The nodes are offered as if they had been listed
//     when woken: TestLazySweepsMatchEager,
//     TestLazySweepsMatchEagerOnBusyClusters, TestSweepRealizedMidDrain (sim),
//     TestNextFreeWordMatchesScan.
//   - Memory reuse for sim.Alone (state.go, Compile with a previous State): its thousands of one-job
//     runs are each laid out in the memory of an earlier one that ended.
//     Nothing of that run leaks into the new one: TestCompileInForgetsEverything,
//     and in sim TestCompileInEqualsCompile, TestAloneReusedEqualsFresh.
//   - Options (engineopts.go): the switches of the mechanisms that have a
//     plain twin (prefetching, the kind of filter, eager sweeps), fixed when
//     a State is laid out; sim.Run always uses DefaultOptions. Options change how
//     fast a run goes, never what it computes: TestReferenceEngineSwitches
//     (sim) runs the fast engine under every setting against the reference.
package engine
