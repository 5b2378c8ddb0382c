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
package sim
