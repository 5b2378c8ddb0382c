package sim

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrTooBig is returned by Run when the memory a workload needs (as
// EstimateMemory counts it) is above Settings.MaxMemory: refused before
// anything is allocated, rather than ending in an out-of-memory crash.
var ErrTooBig = errors.New("sim: workload too big for the memory limit")

// The per-item costs EstimateMemory counts, in bytes of resident memory. A
// task is a 24-byte record plus its entries in the node and rack indexes
// (4 bytes a replica, 4 a rack holding one) and their runs (8 bytes per job
// and place, up to about one a replica when jobs are small against the
// cluster); the replicas themselves are drawn, not kept. Alone lays out each
// job's replicas once more, and the workload's own durations come on top.
// Measured (packer simulate -p fifo, /usr/bin/time -v): one job of 10⁷ maps
// on 100 nodes peaked at 0.89 GB resident, 89 bytes a task; the FB-2010 day
// at 64 MiB blocks (17.4 M tasks, fifo, fair and tyrex-static) at 0.86 GB,
// 49 bytes a task; BenchmarkRun's 10⁶ tasks in jobs of 100 maps on 1000
// nodes at 80 bytes of peak heap a task.
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

// MachineMemory is the machine's physical memory in bytes, 0 where it
// cannot be known.
func MachineMemory() int64 {
	var info syscall.Sysinfo_t
	if err := syscall.Sysinfo(&info); err != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}

// DefaultMaxMemory is the default limit on a run's estimated memory: half
// the machine's memory (the rest for the workload as read, the results, the
// garbage collector's headroom and the other processes on the machine), or 0
// (no limit) where the machine's memory is unknown.
func DefaultMaxMemory() int64 { return MachineMemory() / 2 }

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
