package sim

import (
	"errors"
	"fmt"
)

// ErrTooBig is returned by Run when the memory a workload needs (as
// EstimateMemory counts it) is above Settings.MaxMemory: refused before
// anything is allocated, rather than ending in an out-of-memory crash.
var ErrTooBig = errors.New("sim: workload too big for the memory limit")

// The per-item costs EstimateMemory counts, in bytes of resident memory. A
// task is a 32-byte record. A job's block index (4 bytes a replica, 12 per
// node holding one, places sorted with no table, allocated an eighth over
// so a reused index fits the next job) exists only while the job's maps
// run, so it counts per task only when one job holds most of the tasks;
// the replicas themselves are drawn, not kept, and the workload's own
// durations come on top. Measured with packer simulate, large runs (one
// job of 10⁷ or 10⁸ maps, its whole index live at once; the FB-2010 day at
// 64 MiB blocks, 17.4 M tasks) peak at 37 to 39 bytes a task of resident
// memory for each run a comparison holds at once (the policy's run and the
// jobs' alone runs go side by side), and BenchmarkRun's heap at 47 to 59.
// 100 bytes a task keeps a margin of about 2.5× on that resident memory
// and 1.7× on the heap: the collector's headroom above a run's live heap.
const (
	bytesPerTask = 100
	bytesPerJob  = 512
	bytesPerNode = 64
)

// EstimateMemory is the heap, in bytes, a run of w needs at its peak: tasks,
// jobs and nodes at the costs above, the replicas beyond three counted too.
func EstimateMemory(w *Workload) int64 {
	c := w.Cluster.WithDefaults()
	perTask := int64(bytesPerTask + 24*max(0, c.Replication-3))
	return int64(w.Tasks())*perTask + int64(len(w.Jobs))*bytesPerJob + int64(c.Nodes+len(c.Extras))*bytesPerNode
}

// checkMemory refuses w when its estimate is above limit (0: no limit).
func checkMemory(w *Workload, limit int64) error {
	if limit <= 0 {
		return nil
	}
	if need := EstimateMemory(w); need > limit {
		return fmt.Errorf("%w: %d tasks need about %s, over the limit of %s (--max-memory); import the trace with larger blocks (workloads import --block-size-mb) for fewer tasks, or raise --max-memory",
			ErrTooBig, w.Tasks(), humanBytes(need), humanBytes(limit))
	}
	return nil
}

// humanBytes prints n in MB or GB, decimal.
func humanBytes(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}
