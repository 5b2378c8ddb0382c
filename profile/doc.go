// Package profile measures batch jobs and turns the measurements into the
// runtime models and classes packer plans with (the packing paper, Aboulnaga
// et al., CloudDB 2009, sections 3 and 4).
//
// Its pipeline:
//
//	command ── Measure ───────────┐
//	                              ├─ []model.Observation ── Analyze ── model.Job
//	CSV ────── ReadObservations ──┘                  (model, class, measured range, Profile)
//
// Measure runs a real command once per node count and repeat, through an
// Executor (Local runs child processes), and records wall time, CPU seconds
// and bytes read and written. Analyze is pure: it fits F(n) = a·n^b to every
// successful run with model.FitPowerLaw, fits the other model forms and keeps
// one (model.ChooseModel: Settings.Form, or the best leave-one-node-count-out
// predictor), reports the spread per node count, confidence intervals and
// warnings, and classifies the job at the reference
// size with model.Thresholds. ReadObservations reads runs measured elsewhere
// (for example Hadoop job histories). The result is a workload job, so a file
// of profiled jobs is a workload file.
// FitObservations (a file of runs) and FitMeasured (a measured command) chain
// the steps and return the profiled jobs as a workload. ChooseNodes picks the
// node counts to measure at (Ernest's experiment design for the form, under a
// number of points or a budget of node-seconds); Measure applies it when its
// settings carry a Design.
//
// # What is measured, and from where
//
// Wall time is taken on Go's monotonic clock around start and reap.
//
// CPU seconds and bytes both come from the rusage that wait4 returns when the
// command is reaped: ru_utime + ru_stime for CPU, ru_inblock and ru_oublock
// (512-byte units) for bytes. That rusage is the kernel's own total for the
// process and every descendant it waited for, so a command that forks workers
// (a Hadoop client, a shell script, make) is counted whole, and it is read
// once, after exit, with no sampling race. ru_inblock and ru_oublock are the
// task I/O accounting's read_bytes and write_bytes, the same counters as
// /proc/PID/io: bytes the process tree made the kernel fetch from or send to
// the block layer. Page-cache hits are not counted, which is what the packing paper
// means by an I/O-intensive job — one that keeps a physical disk busy, and so
// must not share one.
//
// The alternatives were rejected: /proc/PID/io vanishes when the process
// exits, and sampling it across a process tree misses short-lived children
// and the last interval of every process; a cgroup v2 (io.stat, cpu.stat)
// would also catch descendants that daemonise, but needs a writable,
// delegated v2 hierarchy with the io controller enabled, which neither an
// unprivileged user nor this project's build machine (a hybrid hierarchy with
// blkio on v1) has.
//
// Limits, stated so nobody is surprised: descendants that are never waited
// for (daemons, double-forked helpers) are not counted; writes are charged
// when pages are dirtied, so data deleted before write-back still counts;
// network traffic is not I/O here. Local works on Linux only.
//
// # Utilisation and rate
//
// CPU utilisation is CPU seconds / (wall × nodes × vCPUs per node): the share
// of the CPU the job's nodes offered that it used (an Executor that knows
// what they offered better sets Run.CPUOffered: the libvirt one counts
// from each VM's first disk activity, which leaves out the boot of a job
// that reads or writes, and leaves out the time the host ran other work). The I/O rate is (bytes read
// + bytes written) / 10⁶ / wall, in MB/s, aggregated over all nodes as the packing
// paper's 100 MB/s threshold is; an Executor that knows the span in which the
// bytes moved (Run.IOSpan: the libvirt one, whose runs include the VMs' boot)
// has the rate taken over that span instead.
package profile
