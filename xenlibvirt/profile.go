package xenlibvirt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/profile"
)

// ProfileSettings say how Profile runs a job on the inventory's VMs. The
// zero value needs Inventory, Job and Nodes (or Design).
//
// # What is measured, and from where
//
// Every number comes from the hypervisor, none from the guest:
//
//   - Wall time runs from the moment libvirt has started the run's first VM
//     to the lifecycle event of its last VM powering off. It includes the
//     guests' boot and power-off, which a job on long-lived VMs would not pay.
//   - CPU seconds are the time the VMs' vCPU threads ran (libvirt's
//     vcpu.N.time, summed over each VM's vCPUs): the guest's own work,
//     under TCG with the cost of emulating it, but not QEMU's emulator and
//     I/O threads, which serve the guest's devices (under TCG they burn
//     host CPU for a disk job that its guest does not). They are counted
//     over each VM's window: from its job's first I/O (the sample that
//     opens its I/O span, below) to the last sample before it powered off,
//     or from the sample right after it started when its job moved no
//     bytes.
//   - The CPU time offered is, over the same windows, vCPUs × window less
//     the time the vCPU threads were ready to run but waited for a host
//     CPU (vcpu.N.delay, their run delay from schedstat): the time the
//     guest could have used, so that the host's other load does not pass
//     for an idle guest. Drivers that report no run delay (Xen, libvirt's
//     test driver) give 0, and the whole window is offered.
//   - Bytes read and written are the guest's requests to its virtual disks
//     (virDomainBlockStats), sampled the same way. They are what the guest
//     asked of its disk: the guest's own page cache hits are not in them,
//     while reads the host's page cache served are. Network traffic is not
//     counted.
//
// A domain's counters vanish when it powers off, so they are sampled every
// Poll while it runs, each VM on its own (a read of a domain libvirt is busy
// with blocks only that VM's sampling): what a VM did in its last Poll
// before powering off is missed (the guest's shutdown, mostly). Every sum
// runs over the job's VMs. CPU utilisation is CPU s / CPU s offered. The
// I/O rate is (read + written) / 10⁶ in MB/s over the span in which the
// job moved its bytes — from the sample before any VM's byte counters
// first moved by 1 MiB or more from one sample to the next to the sample
// that showed the last such move, so that it spans every such move (the
// KiB that firmware and kernel read when they probe a disk at boot open no
// span; with no such move the rate is over the wall time) — not over the
// wall time, which includes the guests' boot: on long-lived VMs (the
// packing paper's) a job does not pay for a boot, and a boot that outlasts
// the job would make every job look idle. profile.Measure computes both,
// so the paper's thresholds apply as they are written.
//
// What the utilisation misses. The boot of a VM whose job moves no bytes
// is in its window: the hypervisor sees no sign of where a boot ends and
// such a job begins. Under TCG a boot keeps its vCPU as busy as a
// CPU-bound job does, so such a job reads at least as busy as its boot's
// share of the run (a job that only sleeps reads as the boot's vCPU time
// over the boot plus the sleep). Under TCG a guest's disk requests are
// also emulated on its vCPU thread, so even a disk-bound guest's vCPU runs
// for about half its I/O (0.47–0.66 over the I/O span with O_DIRECT and
// 1 MiB blocks, 0.81 with 4 KiB blocks), where under KVM it halts. The
// window opens at a job's first MiB of disk traffic, wherever that comes: a
// job that computes first and only writes its result at the end is measured
// over that tail, and its CPU work before it is missed (a MapReduce task
// reads its input first, so this is rare in the jobs packer plans). The
// 4 s the test appliance lingers before powering off are idle and in every
// window.
//
// A guest's job reports no exit status to the hypervisor: a VM that powers
// off by itself is a finished run, whatever its job printed.
type ProfileSettings struct {
	// Inventory is the hosts and the appliance the VMs run, as for apply.
	Inventory *Inventory
	// Connector opens the hosts; default Libvirt.
	Connector Connector
	// Job names the job: domain names, the appliance's packer.job.
	Job string
	// Nodes are the VM counts to run at; each must fit the inventory with a
	// disk of its own: at most hosts × disks (the fewest disks of any host).
	Nodes []int
	// Design, when set, chooses the VM counts among its candidates instead
	// of Nodes (profile.ChooseNodes), with a Budget after the run at 1 VM;
	// the choice and its reason are logged. Every candidate must fit.
	Design *profile.Design
	// Repeat is the number of runs per VM count; default 1.
	Repeat int
	// VCPUs is each VM's vCPUs; default the fewest cores of any host over
	// its disks (at least 1), as packer plan sizes VMs.
	VCPUs int
	// MemoryMiB is each VM's memory; default the inventory's vm_memory_mib,
	// else the least memory of any host over its disks.
	MemoryMiB int
	// RunTimeout fails a run whose VMs have not all powered off after this
	// long, and tears it down; 0 waits for ever.
	RunTimeout time.Duration
	// Poll is how often running VMs' counters are sampled; default 200 ms.
	Poll time.Duration
	// StatePath, when set, is the journal of the run in flight, kept as
	// packer apply keeps its state file (rewritten after every step, under
	// its lock): if packer dies mid-run, even by SIGKILL, packer destroy
	// --state StatePath removes what the run had made. Each run starts it
	// afresh; Profile refuses to start while it lists live VMs.
	StatePath string
	// DryRun writes the VMs every run would make to Log and changes nothing.
	DryRun bool
	// Log receives one line per action and one per run; nil discards them.
	Log io.Writer
	// Progress, when set, is called after every run (profile.Measure's).
	Progress func(profile.Progress)
}

func (s *ProfileSettings) logOrDiscard() io.Writer {
	if s.Log == nil {
		return io.Discard
	}
	return s.Log
}

func (s *ProfileSettings) validate() (ProfileSettings, error) {
	var v ProfileSettings
	if s != nil {
		v = *s
	}
	if v.Inventory == nil || len(v.Inventory.Hosts) == 0 {
		return v, errors.New("xenlibvirt: profile: no inventory hosts")
	}
	if strings.TrimSpace(v.Job) == "" || jobPart(v.Job) == "" {
		return v, fmt.Errorf("xenlibvirt: profile: job %q: no letter or digit to name its VMs by", v.Job)
	}
	if v.Design != nil {
		var err error
		if v.Nodes, err = v.Design.Counts(); err != nil {
			return v, err
		}
		if v.Design.Budget == 0 {
			// Nothing to measure first: choose now, so that the dry run
			// shows the runs.
			c, err := profile.ChooseNodes(v.Design)
			if err != nil {
				return v, err
			}
			fmt.Fprintf(v.logOrDiscard(), "profile %s: %s\n", v.Job, c.Why)
			v.Nodes, v.Design = c.Nodes, nil
		}
	}
	if err := profile.CheckNodes(v.Nodes); err != nil {
		return v, err
	}
	if v.Connector == nil {
		v.Connector = Libvirt
	}
	k, cores, mem := v.Inventory.Hosts[0].Disks, v.Inventory.Hosts[0].Cores, v.Inventory.Hosts[0].MemoryMiB
	disks := len(k)
	for _, h := range v.Inventory.Hosts {
		disks, cores, mem = min(disks, len(h.Disks)), min(cores, h.Cores), min(mem, h.MemoryMiB)
	}
	if v.VCPUs == 0 {
		v.VCPUs = max(1, cores/disks)
	}
	if v.MemoryMiB == 0 {
		v.MemoryMiB = v.Inventory.VMMemoryMiB
	}
	if v.MemoryMiB == 0 {
		v.MemoryMiB = mem / disks
	}
	switch {
	case v.VCPUs < 0:
		return v, fmt.Errorf("xenlibvirt: profile: VCPUs %d is negative", v.VCPUs)
	case v.MemoryMiB < 0:
		return v, fmt.Errorf("xenlibvirt: profile: MemoryMiB %d is negative", v.MemoryMiB)
	case v.RunTimeout < 0:
		return v, fmt.Errorf("xenlibvirt: profile: RunTimeout %v is negative", v.RunTimeout)
	case v.Poll < 0:
		return v, fmt.Errorf("xenlibvirt: profile: Poll %v is negative", v.Poll)
	}
	if v.Poll == 0 {
		v.Poll = 200 * time.Millisecond
	}
	if v.Log == nil {
		v.Log = io.Discard
	}
	return v, nil
}

// Profile measures a job on the inventory's VMs: for every VM count n and
// repeat it applies a one-phase plan of the job alone on n VMs
// (ProfilePlan), with the same placement, identity, copy-on-write disks and
// ownership rules as packer apply, the guests running argv (handed to the
// appliance as packer.run=<words joined by commas>, "{nodes}" replaced by
// n); it waits for every VM to power off, measures the run from the
// hypervisor (see ProfileSettings) and tears everything down, on failure and
// cancellation too. profile.Measure drives the runs, so the observations,
// their order and ErrInterrupted are as for a local profile.
//
// Every VM count is checked against the hosts before the first run. A run
// that fails (a VM that crashes or never powers off within RunTimeout, a
// host lost mid-run) is an observation with Failed set and the error naming
// host and VM, and profiling goes on; when ctx ends, the run in flight is
// torn down and dropped and the runs before it are returned with an error
// wrapping profile.ErrInterrupted.
func Profile(ctx context.Context, argv []string, s *ProfileSettings) ([]model.Observation, error) {
	set, err := s.validate()
	if err != nil {
		return nil, err
	}
	if err := guestCommandOK(argv); err != nil {
		return nil, err
	}
	deps, err := checkProfile(&set)
	if err != nil {
		return nil, err
	}
	if err := stateClear(set.StatePath); err != nil {
		return nil, err
	}
	if set.DryRun {
		writeProfileDryRun(set.Log, &set, argv, deps)
		return nil, nil
	}
	ex := &vmExecutor{set: &set, repeats: map[int]int{}}
	return profile.Measure(ctx, argv, &profile.MeasureSettings{Nodes: set.Nodes, Repeat: set.Repeat, Design: set.Design,
		Chose:        func(c profile.Choice) { fmt.Fprintf(set.Log, "profile %s: %s\n", set.Job, c.Why) },
		VCPUsPerNode: set.VCPUs, Executor: ex, Env: []string{}, Progress: set.Progress})
}

// ProfileStateFile is the default journal of profiling job in the working
// directory, packer-profile-<job>.state.json: packer destroy, given no
// --state, finds it when it is the only state file there.
func ProfileStateFile(job string) string { return "packer-profile-" + jobPart(job) + ".state.json" }

// stateClear fails when the journal at path lists VMs still live: a run
// killed before it could tear down left them, and packer destroy must
// remove them first.
func stateClear(path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	j, err := ReadJournalFile(path)
	if err != nil {
		return fmt.Errorf("xenlibvirt: profile: %w", err)
	}
	if live := j.LiveVMs(); len(live) > 0 {
		return fmt.Errorf("xenlibvirt: profile: %w: %s lists %d VMs of run %s (first %s on %s); remove them with packer destroy --state %s",
			ErrStateExists, path, len(live), j.Plan, live[0].Name, live[0].Host, path)
	}
	return nil
}

// guestCommandOK refuses words the appliance cannot receive intact: the
// kernel command line splits on white space and the appliance turns commas
// into spaces and evaluates the value inside double quotes.
func guestCommandOK(argv []string) error {
	if len(argv) == 0 {
		return errors.New("xenlibvirt: profile: no command for the guests to run")
	}
	for _, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n,\"'`$\\") {
			return fmt.Errorf("xenlibvirt: profile: command word %q: the appliance takes words without spaces, commas, quotes, $ or backslashes (packer.run on the kernel command line)", a)
		}
	}
	return nil
}

// ProfilePlan is the plan of one profiling run: job alone in one phase on n
// primary VMs of vcpus vCPUs and memMiB MiB each, spread over the
// inventory's hosts first and their disks second (VM i on host i mod H, disk
// ⌊i/H⌋, H = min(n, hosts)), so that every VM has a disk of its own as in
// the packing paper's profiling runs. Its id, profile-n<n>-r<repeat>, names
// the run's domains: packer-profile-n<n>-r<repeat>-p1-<job>-<i>.
func ProfilePlan(inv *Inventory, job string, n, repeat, vcpus, memMiB int) (*plan.Plan, error) {
	disks := len(inv.Hosts[0].Disks)
	for _, h := range inv.Hosts {
		disks = min(disks, len(h.Disks))
	}
	if n > len(inv.Hosts)*disks {
		return nil, fmt.Errorf("xenlibvirt: profile: %d VMs: the inventory has room for %d (%d hosts × %d disks, one VM per disk)",
			n, len(inv.Hosts)*disks, len(inv.Hosts), disks)
	}
	hosts := min(n, len(inv.Hosts))
	c := model.Cluster{Hosts: hosts, DisksPerHost: disks, ExtraRatio: 1, Alpha: 1,
		CoresPerHost: vcpus * disks, MemoryMiBPerHost: memMiB * disks}
	ph := plan.Phase{Jobs: []plan.Job{{Name: job, VMs: n, Role: model.Primary}}}
	for h := 0; h < hosts; h++ {
		hp := model.HostPlacement{Host: h}
		for i := h; i < n; i += hosts {
			d := i / hosts
			hp.VMs = append(hp.VMs, model.VMPlace{Job: job, Role: model.Primary, Index: i, Disk: &d})
		}
		ph.Hosts = append(ph.Hosts, hp)
	}
	return &plan.Plan{Version: plan.Version, ID: fmt.Sprintf("profile-n%d-r%d", n, repeat), Workload: "profile",
		Algorithm: "profile", Cluster: plan.Cluster{Cluster: c, PrimaryVMs: hosts * disks, VCPUsPerVM: vcpus, MemoryMiBPerVM: memMiB},
		Jobs: []model.Job{{Name: job}}, Phases: []plan.Phase{ph}}, nil
}

// checkProfile builds every VM count's deployment against the hosts' facts
// before anything runs, so that a count that does not fit fails at once.
func checkProfile(set *ProfileSettings) ([]*Deployment, error) {
	most := 0
	for _, n := range set.Nodes {
		most = max(most, n)
	}
	big, err := ProfilePlan(set.Inventory, set.Job, most, 1, set.VCPUs, set.MemoryMiB)
	if err != nil {
		return nil, err
	}
	hs, err := Connect(big, set.Inventory, set.Connector)
	if err != nil {
		return nil, fmt.Errorf("xenlibvirt: profile: %w", err)
	}
	defer hs.Close()
	var deps []*Deployment
	for _, n := range set.Nodes {
		pl, err := ProfilePlan(set.Inventory, set.Job, n, 1, set.VCPUs, set.MemoryMiB)
		if err != nil {
			return nil, err
		}
		d, err := NewDeployment(pl, set.Inventory, hs.Facts)
		if err != nil {
			return nil, fmt.Errorf("xenlibvirt: profile: %d VMs: %w", n, err)
		}
		deps = append(deps, d)
	}
	return deps, nil
}

// writeProfileDryRun lists the VMs of every VM count's first repeat.
func writeProfileDryRun(w io.Writer, set *ProfileSettings, argv []string, deps []*Deployment) {
	fmt.Fprintf(w, "# dry run of profiling job %s: nothing is changed\n", set.Job)
	fmt.Fprintf(w, "# guests run: %s (packer.run=%s)\n", strings.Join(argv, " "), strings.Join(argv, ","))
	runs := fmt.Sprintf("%d runs: VM counts", len(set.Nodes)*max(1, set.Repeat))
	if set.Design != nil {
		runs = "runs at some of the VM counts"
	}
	fmt.Fprintf(w, "# %s %s, %d repeats; each VM %d vCPUs, %d MiB", runs, joinInts(set.Nodes), max(1, set.Repeat), set.VCPUs, set.MemoryMiB)
	if set.RunTimeout > 0 {
		fmt.Fprintf(w, "; a run may take %v", set.RunTimeout)
	}
	fmt.Fprintln(w)
	if d := set.Design; d != nil {
		fmt.Fprintf(w, "# budget %.4g node-s: the run at 1 VM comes first, and its time chooses which of these counts run (profile.ChooseNodes)\n", d.Budget)
	}
	for i, d := range deps {
		fmt.Fprintf(w, "\n## %d VMs (plan %s; later repeats r2, r3, … alike)\n", set.Nodes[i], d.Plan)
		for _, vm := range d.Phases[0].VMs {
			fmt.Fprintf(w, "%s %s: disk %s (overlay of %s), MAC %s, hostname %s\n", vm.HostName, vm.Name, vm.DiskPath, d.Image, vm.MAC, vm.Hostname)
		}
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// vmExecutor is the profile.Executor that runs one profiling run on VMs.
type vmExecutor struct {
	set     *ProfileSettings
	repeats map[int]int
}

var _ profile.Executor = (*vmExecutor)(nil)

// nodesOf reads the VM count profile.Measure puts in the run's environment
// as PACKER_NODES (the last one wins, as in a shell).
func nodesOf(env []string) (int, error) {
	n := 0
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PACKER_NODES="); ok {
			var err error
			if n, err = strconv.Atoi(v); err != nil {
				return 0, fmt.Errorf("xenlibvirt: profile: PACKER_NODES=%q is not a number", v)
			}
		}
	}
	if n < 1 {
		return 0, errors.New("xenlibvirt: profile: no PACKER_NODES in the run's environment")
	}
	return n, nil
}

// Execute implements profile.Executor: one run on PACKER_NODES VMs. It
// returns an error only when the run cannot be made at all or ctx ended; a
// run that failed on the hosts is a Run with ExitCode −1 and the reason in
// StderrTail.
func (e *vmExecutor) Execute(ctx context.Context, argv, env []string) (profile.Run, error) {
	n, err := nodesOf(env)
	if err != nil {
		return profile.Run{}, err
	}
	e.repeats[n]++
	rep := e.repeats[n]
	set := e.set
	inv := *set.Inventory
	inv.Cmdline = strings.TrimSpace(inv.Cmdline + " packer.run=" + strings.Join(argv, ","))
	pl, err := ProfilePlan(&inv, set.Job, n, rep, set.VCPUs, set.MemoryMiB)
	if err != nil {
		return profile.Run{}, err
	}
	fmt.Fprintf(set.Log, "profile %s: %d VMs, repeat %d: plan %s\n", set.Job, n, rep, pl.ID)
	failed := func(err error) (profile.Run, error) {
		fmt.Fprintf(set.Log, "profile %s: %d VMs, repeat %d: failed: %v\n", set.Job, n, rep, err)
		return profile.Run{ExitCode: -1, StderrTail: fmt.Sprintf("%d VMs, repeat %d: %v", n, rep, err)}, nil
	}
	hs, err := Connect(pl, &inv, set.Connector)
	if err != nil {
		return failed(err)
	}
	defer hs.Close()
	m, err := startMeter(hs.HVs, set.Poll)
	if err != nil {
		return failed(err)
	}
	// A profiling run's plan predicts nothing (its model is a placeholder),
	// so no timeout is derived from it.
	timeout := set.RunTimeout
	if timeout == 0 {
		timeout = NoPhaseTimeout
	}
	_, err = Apply(ctx, pl, hs, &Settings{PhaseTimeout: timeout, Log: set.Log, Parallel: max(4, n), Started: m.started,
		StatePath: set.StatePath})
	tally := m.finish()
	if ctx.Err() != nil {
		fmt.Fprintf(set.Log, "profile %s: %d VMs, repeat %d: interrupted, torn down\n", set.Job, n, rep)
		return profile.Run{}, ctx.Err()
	}
	if err != nil {
		return failed(err)
	}
	r := tally.Run(set.VCPUs)
	tail, tailVM := tally.Tail()
	if tailVM != "" {
		tailVM = " (" + tailVM + ")"
	}
	fmt.Fprintf(set.Log, "profile %s: %d VMs, repeat %d: %.1f s, CPU %.1f s of %.1f s offered, read %.1f MB, written %.1f MB in %.1f s; unsampled before power-off: up to %.1f s%s\n",
		set.Job, n, rep, r.Wall.Seconds(), r.CPU.Seconds(), r.CPUOffered.Seconds(), float64(r.ReadBytes)/1e6, float64(r.WriteBytes)/1e6, r.IOSpan.Seconds(),
		tail.Seconds(), tailVM)
	return r, nil
}
