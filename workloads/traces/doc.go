// Package traces imports real traces into simulation workloads: SWIM's
// Facebook samples (swim.go), Hadoop Rumen job traces with their topology
// (rumen.go, topology.go) and the simulator input of the HybS paper (Nguyen et
// al., "A Hybrid Scheduling Algorithm for Data Intensive Workloads in a
// MapReduce Environment", UCC 2012; hybs.go).
//
// Every importer follows one pipeline:
//
//	settings.validate → read records → Window (from, to, max jobs) → sim.Job → Imported
//
// and returns an Imported: the sim.Workload, and Metadata saying in words what
// the importer assumed and counting what it skipped. ImportOptions (options.go)
// is the one place that decides which option applies to which format, so the
// command line only parses flags and prints. replay.go compares a simulated run
// of a Rumen import with what really happened, and replays real jobs alone to
// fit runtime models to them.
//
// The built-in job sets live in the parent package workloads.
package traces
