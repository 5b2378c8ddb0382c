package xenlibvirt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/packer-sched/packer/plan"
)

// Errors an apply run ends with, for callers that branch.
var (
	// ErrInterrupted: the context was cancelled (SIGINT/SIGTERM).
	ErrInterrupted = errors.New("interrupted")
	// ErrPhaseTimeout: a phase's VMs did not all power off in time.
	ErrPhaseTimeout = errors.New("phase timed out")
	// ErrStateExists: the state file lists live VMs and --resume was not given.
	ErrStateExists = errors.New("state file lists VMs that may still exist")
)

// Settings tune Apply. The zero value applies every phase, four VM operations
// at a time, waiting as long as the jobs take, and journals nowhere.
type Settings struct {
	// Parallel bounds how many VMs are being created or started at once
	// across all hosts; default 4.
	Parallel int
	// PhaseTimeout fails a phase whose VMs have not all powered off after
	// this long, stopping them; 0 derives it from the plan
	// (DerivedPhaseTimeout), NoPhaseTimeout waits for ever.
	PhaseTimeout time.Duration
	// BootAllowance is what a derived phase timeout adds to twice the
	// phase's predicted length; default DefaultBootAllowance.
	BootAllowance time.Duration
	// RunDir receives every VM's console log (console/<domain>.log) and
	// the run record (RunRecordFile, ObservationsFile); "" keeps the
	// consoles in memory only, for the jobs' status lines.
	RunDir string
	// Now is the clock the journal's times come from; nil is time.Now.
	Now func() time.Time
	// OnePhase applies only the phase of index Phase (0-based, as in the
	// plan document; people call it phase Phase+1) and returns.
	OnePhase bool
	Phase    int
	// Resume continues the journal at StatePath: it first tears down what
	// the journal lists as live, then applies from the first phase not done.
	Resume bool
	// KeepOnInterrupt leaves the phase in flight running when interrupted.
	KeepOnInterrupt bool
	// KeepOnFailure leaves the VMs of a phase that failed or timed out in
	// place (journaled) for inspection; packer destroy removes them.
	KeepOnFailure bool
	// DryRun validates against the hosts and writes the domain XML and every
	// action to Log, changing nothing.
	DryRun bool
	// StatePath is the journal file, rewritten after every step; "" keeps
	// the journal in memory only.
	StatePath string
	// Log receives one line per action; nil discards them.
	Log io.Writer
	// Started, when set, is called right after each VM has started, with
	// its plan host index and domain name, from the goroutine that started
	// it (packer profile takes its first statistics sample there).
	Started func(host int, name string)
}

func (s *Settings) validate(pl *plan.Plan) error {
	if s.Parallel < 0 {
		return fmt.Errorf("xenlibvirt: settings: parallel %d is negative", s.Parallel)
	}
	if s.Parallel == 0 {
		s.Parallel = 4
	}
	if s.PhaseTimeout < 0 && s.PhaseTimeout != NoPhaseTimeout {
		return fmt.Errorf("xenlibvirt: settings: phase timeout %v is negative", s.PhaseTimeout)
	}
	if s.BootAllowance < 0 {
		return fmt.Errorf("xenlibvirt: settings: boot allowance %v is negative", s.BootAllowance)
	}
	if s.BootAllowance == 0 {
		s.BootAllowance = DefaultBootAllowance
	}
	if s.OnePhase && (s.Phase < 0 || s.Phase >= len(pl.Phases)) {
		return fmt.Errorf("xenlibvirt: settings: phase %d outside the plan's 1..%d", PhaseNumber(s.Phase), len(pl.Phases))
	}
	if s.Log == nil {
		s.Log = io.Discard
	}
	return nil
}

// Hosts holds one open Hypervisor per plan host, with the facts gathered
// from it; Connect opens them all before anything is changed.
type Hosts struct {
	Inventory *Inventory
	HVs       []Hypervisor
	Facts     []HostFacts
}

// Connect opens the plan's hosts (inventory hosts 0..P−1) and gathers their
// facts. A host that cannot be reached fails the whole call, naming it; the
// hosts already opened are closed.
func Connect(pl *plan.Plan, inv *Inventory, c Connector) (*Hosts, error) {
	n := min(pl.Cluster.Hosts, len(inv.Hosts))
	hs := &Hosts{Inventory: inv}
	conns := connectAll(inv.Hosts[:n], inv, c, jobImages(pl))
	var first error
	for i, hc := range conns {
		switch {
		case hc.err == nil:
			hs.HVs = append(hs.HVs, hc.hv)
			hs.Facts = append(hs.Facts, hc.facts)
		case first == nil:
			h := inv.Hosts[i]
			first = fmt.Errorf("host %s (%s): %w", h.Name, h.URI, hc.err)
		}
	}
	if first != nil {
		hs.Close()
		return nil, first
	}
	return hs, nil
}

// Close closes every connection.
func (hs *Hosts) Close() {
	for _, hv := range hs.HVs {
		_ = hv.Close()
	}
	hs.HVs = nil
}

// Apply deploys a plan onto the hosts, phase by phase: it checks the plan
// against the inventory and hosts first (CheckError), then for each phase
// creates every VM's overlay, defines and starts the VMs with bounded
// parallelism, waits for lifecycle events saying every VM powered off, and
// destroys, undefines and deletes them. A failure or interruption tears the
// phase in flight down (unless KeepOnInterrupt) and returns an error naming
// host and VM; the journal, returned in every case once it exists, says
// where things stand.
func Apply(ctx context.Context, pl *plan.Plan, hs *Hosts, s *Settings) (*Journal, error) {
	var set Settings
	if s != nil {
		set = *s
	}
	if err := set.validate(pl); err != nil {
		return nil, err
	}
	d, err := NewDeployment(pl, hs.Inventory, hs.Facts)
	if err != nil {
		return nil, err
	}
	r := &run{plan: pl, hs: hs, set: &set, d: d}
	if set.DryRun {
		// The state file decides what a real run would do: refuse, clear
		// what the last run left, or go on from a later phase. Reading it
		// needs no lock.
		if err := r.openJournal(); err != nil {
			return nil, err
		}
		return nil, r.dryRun()
	}
	if set.StatePath != "" {
		unlock, err := lockState(set.StatePath)
		if err != nil {
			return nil, err
		}
		defer unlock()
		cleanStaleTemps(set.StatePath, set.Log)
	}
	if err := r.openJournal(); err != nil {
		return nil, err
	}
	return r.j, r.apply(ctx)
}

// run is one apply: the journal and the lock that serialises its writes.
type run struct {
	plan *plan.Plan
	hs   *Hosts
	set  *Settings
	d    *Deployment
	mu   sync.Mutex // guards j
	j    *Journal
	// saving serialises the state file's writes; saved is the last step
	// on disk. Steps journaled while a write is under way go to disk
	// together in the next one (a group commit), so that parallel
	// launches do not queue up behind each other's fsync.
	saving sync.Mutex
	saved  int
	// shown holds, in step order, the log lines of steps not yet in the
	// state file: each is printed once the step is durable, so the log never
	// claims a step a crash could leave out of the journal.
	shown []shownLine
	// consoles are the VMs' console copies in flight, by host URI and name.
	consoles map[consoleKey]*consoleCopy
}

func (r *run) openJournal() error {
	var old *Journal
	if r.set.StatePath != "" {
		if _, err := os.Stat(r.set.StatePath); err == nil {
			j, err := ReadJournalFile(r.set.StatePath)
			if err != nil {
				return err
			}
			old = j
		}
	}
	switch {
	case r.set.Resume && old == nil:
		return fmt.Errorf("--resume: no state file %q", r.set.StatePath)
	case old != nil && old.Plan != r.plan.ID && len(old.LiveVMs()) > 0:
		return fmt.Errorf("%w: %s is plan %s's, with %d live VMs; destroy them first (packer destroy --state %s)",
			ErrStateExists, r.set.StatePath, old.Plan, len(old.LiveVMs()), r.set.StatePath)
	case r.set.Resume && old.Plan != r.plan.ID:
		return fmt.Errorf("--resume: %s is plan %s's, not %s's", r.set.StatePath, old.Plan, r.plan.ID)
	case !r.set.Resume && old != nil && len(old.LiveVMs()) > 0:
		return fmt.Errorf("%w: %s lists %d (first %s on %s); continue with --resume or remove them with packer destroy",
			ErrStateExists, r.set.StatePath, len(old.LiveVMs()), old.LiveVMs()[0].Name, old.LiveVMs()[0].Host)
	}
	r.j = NewJournal(r.d)
	if old != nil && old.Plan == r.plan.ID && len(old.Phases) == len(r.j.Phases) && (r.set.Resume || r.set.OnePhase) {
		// Resuming, or driving phases one at a time: keep the history.
		r.j = old
	}
	r.j.Error = ""
	return nil
}

// step records one change in the journal, saves it and says it on the log;
// callers hold no lock.
func (r *run) step(change func(j *Journal), format string, a ...any) error {
	return r.save(change, true, format, a...)
}

// intend records, before a change to a host, what is about to be made: the
// journal is on disk before the call is made. The operator's log does not
// show it; the step confirming the change does.
func (r *run) intend(change func(j *Journal), format string, a ...any) error {
	return r.save(change, false, format, a...)
}

// save changes the journal, logs the step and returns once the journal on
// disk holds it: written, flushed and renamed into place by this call or by
// one that took it along.
func (r *run) save(change func(j *Journal), show bool, format string, a ...any) error {
	r.mu.Lock()
	change(r.j)
	msg := fmt.Sprintf(format, a...)
	r.j.Step++
	step := r.j.Step
	r.j.Log = append(r.j.Log, fmt.Sprintf("%d %s", step, msg))
	if show && r.set.StatePath == "" {
		fmt.Fprintln(r.set.Log, msg)
	} else if show {
		r.shown = append(r.shown, shownLine{step, msg})
	}
	r.mu.Unlock()
	if r.set.StatePath == "" {
		return nil
	}
	r.saving.Lock()
	defer r.saving.Unlock()
	if r.saved >= step {
		return nil
	}
	r.mu.Lock()
	b, err := r.j.Marshal()
	upTo := r.j.Step
	r.mu.Unlock()
	if err == nil {
		err = writeDurably(r.set.StatePath, b)
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	r.saved = upTo
	r.mu.Lock()
	n := 0
	for n < len(r.shown) && r.shown[n].step <= upTo {
		fmt.Fprintln(r.set.Log, r.shown[n].msg)
		n++
	}
	r.shown = r.shown[n:]
	r.mu.Unlock()
	return nil
}

// shownLine is a step's line for the log, waiting for the step to be saved.
type shownLine struct {
	step int
	msg  string
}

func (r *run) apply(ctx context.Context) error {
	if err := r.step(func(j *Journal) { j.Status = StatusRunning }, "apply plan %s", r.plan.ID); err != nil {
		return err
	}
	if live := r.j.LiveVMs(); len(live) > 0 {
		// Resuming: what the failed phase left behind goes first. The
		// stops of the VMs this destroys can reach the phase that starts
		// them again (eventQueue).
		if err := r.teardown(live); err != nil {
			return r.finish(StatusFailed, fmt.Errorf("resume: clearing what the last run left: %w", err))
		}
	}
	first, last := r.phaseRange()
	for p := first; p <= last; p++ {
		if err := ctx.Err(); err != nil {
			return r.finish(StatusInterrupted, ErrInterrupted)
		}
		if err := r.phase(ctx, r.d.Phases[p]); err != nil {
			status := StatusFailed
			if errors.Is(err, ErrInterrupted) {
				status = StatusInterrupted
			}
			return r.finish(status, err)
		}
	}
	status := StatusDone
	if r.j.NextPhase() < len(r.j.Phases) {
		status = StatusPending // phases remain for later --phase runs
	}
	return r.finish(status, nil)
}

// phaseRange is the indices of the first and last phase this run applies.
func (r *run) phaseRange() (first, last int) {
	first, last = r.j.NextPhase(), len(r.d.Phases)-1
	if !r.set.Resume {
		first = 0
	}
	if r.set.OnePhase {
		first, last = r.set.Phase, r.set.Phase
	}
	return first, last
}

// finish records how the run ended. The error itself goes into the journal
// and back to the caller, which prints it once; the log only says the run
// ended.
func (r *run) finish(status string, err error) error {
	r.closeConsoles()
	msg := "apply " + status
	if serr := r.step(func(j *Journal) {
		j.Status = status
		if err != nil {
			j.Error = err.Error()
		}
	}, "%s", msg); serr != nil && err == nil {
		err = serr
	}
	if r.set.RunDir != "" && r.plan != nil {
		if werr := WriteRunRecord(r.set.RunDir, NewRunRecord(r.plan, r.j)); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// setPhase records a phase's new status; note, if any, is added to the log
// line. err goes to the journal only (see finish).
func (r *run) setPhase(p int, status string, err error, note string) error {
	msg := fmt.Sprintf("phase %d %s", PhaseNumber(p), status)
	if note != "" {
		msg += "; " + note
	}
	now := r.now()
	return r.step(func(j *Journal) {
		switch status {
		case StatusRunning:
			j.Phases[p].Started, j.Phases[p].Ended = &now, nil
		default:
			if j.Phases[p].Ended == nil {
				j.Phases[p].Ended = &now
			}
		}
		j.Phases[p].Status = status
		j.Phases[p].Error = ""
		if err != nil {
			j.Phases[p].Error = err.Error()
		}
	}, "%s", msg)
}

// phase runs one phase to completion, or tears it down on failure.
func (r *run) phase(ctx context.Context, pd PhaseDeploy) error {
	timeout, rule := r.phaseTimeout(pd.Index)
	note := "timeout " + timeout.String() + " (" + rule + ")"
	if timeout == 0 {
		note = rule
	}
	if err := r.setPhase(pd.Index, StatusRunning, nil, note); err != nil {
		return err
	}
	// Watch before starting anything, so no power-off goes unseen.
	q, stop, err := r.watch()
	if err != nil {
		return r.failPhase(pd, err, false)
	}
	// However the phase ends, it keeps watching until the start of every
	// VM it started has come (eventQueue).
	defer func() {
		if late := q.settle(startGrace); len(late) > 0 {
			var names []string
			for _, k := range late {
				names = append(names, k.name+" on "+r.hs.Inventory.Hosts[k.host].Name)
			}
			fmt.Fprintf(r.set.Log, "p%d: libvirt reported no start of %s within %v; a later phase in this process that starts the name again may take that VM's stop for its own\n",
				PhaseNumber(pd.Index), strings.Join(names, ", "), startGrace)
		}
		stop()
	}()
	if err := r.launch(ctx, pd, q); err != nil {
		return r.failPhase(pd, err, ctx.Err() != nil)
	}
	if err := r.wait(ctx, pd, q, timeout, rule); err != nil {
		return r.failPhase(pd, err, ctx.Err() != nil)
	}
	if err := r.teardown(r.phaseRecords(pd.Index)); err != nil {
		return r.failPhase(pd, err, false)
	}
	return r.setPhase(pd.Index, StatusDone, nil, "")
}

// failPhase tears the phase down (or keeps it, if interrupted and asked to)
// and records why it ended.
func (r *run) failPhase(pd PhaseDeploy, cause error, interrupted bool) error {
	r.closeConsoles()
	status := StatusFailed
	if interrupted {
		status = StatusInterrupted
		switch {
		case errors.Is(cause, ErrInterrupted):
		case errors.Is(cause, context.Canceled):
			cause = ErrInterrupted
		default:
			cause = fmt.Errorf("%w: %v", ErrInterrupted, cause)
		}
		if r.set.KeepOnInterrupt {
			_ = r.setPhase(pd.Index, status, fmt.Errorf("%v; VMs kept running (--keep-on-interrupt)", cause), "VMs kept running (--keep-on-interrupt)")
			return cause
		}
	} else if r.set.KeepOnFailure {
		_ = r.setPhase(pd.Index, status, fmt.Errorf("%v; VMs kept (--keep-on-failure)", cause), "VMs kept (--keep-on-failure)")
		return cause
	}
	if terr := r.teardown(r.phaseRecords(pd.Index)); terr != nil {
		cause = fmt.Errorf("%w; tearing the phase down: %v", cause, terr)
	}
	_ = r.setPhase(pd.Index, status, cause, "")
	return cause
}

func (r *run) phaseRecords(p int) []VMRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []VMRecord
	for _, v := range r.j.VMs {
		if v.Phase == p && v.Live() {
			out = append(out, v)
		}
	}
	return out
}

func (r *run) hostIndex(uri string) int {
	for i, h := range r.hs.Inventory.Hosts[:len(r.hs.HVs)] {
		if h.URI == uri {
			return i
		}
	}
	return -1
}

// launch creates, defines and starts the phase's VMs, Parallel at a time,
// noting each VM started in q. The first failure stops further launches; VMs
// in flight finish their step.
func (r *run) launch(ctx context.Context, pd PhaseDeploy, q *eventQueue) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		emu   sync.Mutex
		first error
		sem   = make(chan struct{}, r.set.Parallel)
	)
	fail := func(err error) {
		emu.Lock()
		if first == nil {
			first = err
		}
		emu.Unlock()
		cancel()
	}
	for _, vm := range pd.VMs {
		select {
		case sem <- struct{}{}:
		case <-lctx.Done():
		}
		if lctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := r.launchVM(lctx, pd.Index, vm, q); err != nil {
				fail(fmt.Errorf("host %s: VM %s: %w", vm.HostName, vm.Name, err))
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

func (r *run) launchVM(ctx context.Context, phase int, vm VMDeploy, q *eventQueue) error {
	hv := r.hs.HVs[vm.Host]
	if err := r.createDisk(phase, hv, &vm); err != nil {
		return err
	}
	if vm.Run != nil {
		if err := r.createSeed(phase, hv, vm); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	n, host := PhaseNumber(phase), vm.HostName
	if err := r.intend(r.vmRecord(phase, vm, StateDefining), "p%d %s %s: about to define domain %s (UUID %s)", n, host, vm.Name, vm.Name, vm.UUID); err != nil {
		return err
	}
	if err := hv.Define(vm.XML); err != nil {
		return fmt.Errorf("define: %w", err)
	}
	if err := r.step(r.vmRecord(phase, vm, StateDefined), "p%d %s %s: defined", n, host, vm.Name); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := r.intend(r.vmRecord(phase, vm, StateStarting), "p%d %s %s: about to start domain %s", n, host, vm.Name, vm.Name); err != nil {
		return err
	}
	if err := startRetrying(ctx, hv, vm.Name); err != nil {
		// A start can fail on the way back, after the host started the
		// domain: its start event is then on the way too. (One whose
		// domain has stopped again by now is missed; its start may then
		// reach a later phase of this process.)
		if st, serr := hv.Domain(vm.Name); serr == nil && st.Running {
			q.launched(vm.Host, vm.Name)
		}
		return fmt.Errorf("start: %w", err)
	}
	q.launched(vm.Host, vm.Name)
	if r.set.Started != nil {
		r.set.Started(vm.Host, vm.Name)
	}
	r.openConsole(phase, vm)
	now := r.now()
	return r.step(func(j *Journal) {
		r.vmRecord(phase, vm, StateRunning)(j)
		v := j.vm(phase, vm.Name, vm.HostName, vm.HostURI)
		v.Started, v.Stopped, v.Exit, v.Seconds, v.Console = &now, nil, nil, nil, ""
	}, "p%d %s %s: started", n, host, vm.Name)
}

// vmRecord returns the change that puts the VM's record (added if need be)
// in state, naming everything of it the host will hold: overlay (pool,
// volume, path) and domain (name, UUID).
func (r *run) vmRecord(phase int, vm VMDeploy, state string) func(*Journal) {
	return func(j *Journal) {
		v := j.vm(phase, vm.Name, vm.HostName, vm.HostURI)
		v.Pool, v.Volume, v.Disk, v.UUID = vm.Pool, vm.Volume, vm.DiskPath, vm.UUID
		v.State, v.Job, v.Index = state, vm.Meta.Job, vm.Meta.Index
		v.Image = ""
		if vm.Image != j.Image {
			v.Image = vm.Image
		}
		if state == StateCreating {
			v.Seed = "" // a resumed VM's earlier seed was removed with it
		}
	}
}

// createDisk creates the VM's overlay, journaling the intent first and the
// path libvirt gives it after. A domain or volume already holding the VM's
// name is not packer's: defining over it would take it over, and its
// journal would claim it.
func (r *run) createDisk(phase int, hv Hypervisor, vm *VMDeploy) error {
	if _, err := hv.Domain(vm.Name); err == nil {
		return fmt.Errorf("define: a domain named %s already exists; packer leaves it alone", vm.Name)
	} else if !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("look up domain: %w", err)
	}
	if err := volumeFree(hv, vm.DiskPath); err != nil {
		return fmt.Errorf("create disk: %w", err)
	}
	n := PhaseNumber(phase)
	if err := r.intend(r.vmRecord(phase, *vm, StateCreating), "p%d %s %s: about to create disk %s (volume %s in pool %s)",
		n, vm.HostName, vm.Name, vm.DiskPath, vm.Volume, vm.Pool); err != nil {
		return err
	}
	inv := r.hs.Inventory
	path, err := hv.CreateOverlay(vm.Pool, vm.Volume, vm.Image, inv.ImageFormat, inv.DiskGiB)
	if err != nil {
		return err
	}
	vm.DiskPath = path
	return r.step(r.vmRecord(phase, *vm, StateDisk), "p%d %s %s: disk %s created", n, vm.HostName, vm.Name, path)
}

// volumeFree reports nil when the host has no volume at path, so that a
// volume packer is about to create there will be its own.
func volumeFree(hv Hypervisor, path string) error {
	_, err := hv.Volume(path)
	switch {
	case err == nil:
		return fmt.Errorf("a volume %s already exists; packer leaves it alone", path)
	case !errors.Is(err, ErrNotFound):
		return fmt.Errorf("look up volume %s: %w", path, err)
	}
	return nil
}

// startTries and startBackoff bound the tries of a start the host refused
// for now: 0.5, 1 and 2 s apart.
const (
	startTries   = 4
	startBackoff = 500 * time.Millisecond
)

// startRetrying starts a defined domain, trying again after a pause when the
// host says it cannot just now (EAGAIN, "Resource temporarily unavailable":
// seen from the kernel refusing libvirt's cgroup BPF device program during a
// burst of starts). A failed start leaves the domain defined and stopped, so
// trying again is safe; any other error fails at once.
func startRetrying(ctx context.Context, hv Hypervisor, name string) error {
	delay := startBackoff
	for try := 1; ; try++ {
		err := hv.Start(name)
		if err == nil || try == startTries || !transientStart(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay *= 2
	}
}

// transientStart tells a start refused for now from one that will not work.
func transientStart(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || strings.Contains(err.Error(), "Resource temporarily unavailable")
}

// watch subscribes a new eventQueue to every host's events (domains'
// starts and stops, a lost connection); stop ends every subscription. If one
// host refuses, those already made are ended.
func (r *run) watch() (q *eventQueue, stop func(), err error) {
	q = newEventQueue()
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	for hi, hv := range r.hs.HVs {
		s, err := hv.Watch(func(ev Event) { q.push(hi, ev) })
		if err != nil {
			stop()
			return nil, nil, fmt.Errorf("host %s: %w", r.hs.Inventory.Hosts[hi].Name, err)
		}
		stops = append(stops, s)
	}
	return q, stop, nil
}

// eventQueue collects a phase's events from libvirt's event loop without
// ever blocking it; wait drains it.
//
// A VM's name outlives its incarnations: a failed phase's teardown, or
// --resume's clearing of the VMs an interrupted run kept, destroys it, and
// a later phase starts the name again. libvirt hands each event to the
// watches subscribed when it arrives, so one incarnation's events can reach
// the queue of a phase that starts the next. Two rules keep them apart,
// resting on one connection's events arriving in order, a domain's start
// before its stop:
//   - wait counts a VM's stops only after its start came through the same
//     queue: an earlier incarnation's stop comes before that start;
//   - a phase keeps its watch until the start of every VM it started has
//     come (settle, at most startGrace), so no start reaches a later
//     phase's queue. An earlier process's events went to its own
//     connection.
//
// Phases of one run never share a name (names carry the phase number), so
// settle protects only where one Hosts serves several Apply calls in a
// process; it returns at once unless a start is late.
type eventQueue struct {
	mu     sync.Mutex
	evs    []hostEvent
	signal chan struct{}
	// launchedVMs holds the VMs launch started, startsSeen those whose
	// start push was handed, lostHosts the hosts whose connection was
	// reported lost (no start of theirs will come).
	launchedVMs, startsSeen map[vmKey]bool
	lostHosts               map[int]bool
}

type hostEvent struct {
	host int
	Event
}

func newEventQueue() *eventQueue {
	return &eventQueue{signal: make(chan struct{}, 1), launchedVMs: map[vmKey]bool{}, startsSeen: map[vmKey]bool{}, lostHosts: map[int]bool{}}
}

func (q *eventQueue) push(host int, ev Event) {
	q.mu.Lock()
	q.evs = append(q.evs, hostEvent{host, ev})
	switch {
	case ev.Err != nil:
		q.lostHosts[host] = true
	case ev.Started:
		q.startsSeen[vmKey{host, ev.Domain}] = true
	}
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *eventQueue) drain() []hostEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs := q.evs
	q.evs = nil
	return evs
}

// launched notes that launch started VM name on host.
func (q *eventQueue) launched(host int, name string) {
	q.mu.Lock()
	q.launchedVMs[vmKey{host, name}] = true
	q.mu.Unlock()
}

// settle returns once q has been handed the start of every VM launch
// started (or its host was reported lost), or when grace passes; it returns
// the VMs whose start had not come then (nil once all had). It does not end
// with the run's context: an interrupted run can be resumed on the same
// Hosts in one process, whose first phase that start must not reach.
func (q *eventQueue) settle(grace time.Duration) []vmKey {
	t := time.NewTimer(grace)
	defer t.Stop()
	for {
		late := q.unsettled()
		if len(late) == 0 {
			return nil
		}
		select {
		case <-q.signal:
		case <-t.C:
			return q.unsettled()
		}
	}
}

// unsettled lists, by host and name, the VMs launch started whose start q
// has not been handed, on hosts not reported lost.
func (q *eventQueue) unsettled() []vmKey {
	q.mu.Lock()
	defer q.mu.Unlock()
	var late []vmKey
	for k := range q.launchedVMs {
		if !q.startsSeen[k] && !q.lostHosts[k.host] {
			late = append(late, k)
		}
	}
	slices.SortFunc(late, func(a, b vmKey) int { return cmp.Or(cmp.Compare(a.host, b.host), strings.Compare(a.name, b.name)) })
	return late
}

// startGrace bounds settle's wait for a start that never comes; libvirt
// reports one within milliseconds, later on a loaded host.
const startGrace = 10 * time.Second

// wait returns once every VM of the phase has powered off by itself. A VM
// that crashes or is stopped any other way, a lost connection, the phase
// timeout or the context end the wait with an error.
//
// A VM's stops count only after its start (eventQueue): every VM of the
// phase was started by launch after q was subscribed, so its start reaches
// q. startDrained follows the events in q's order, not q.startsSeen, which
// push sets as the start arrives: a stale stop drained in the same batch
// before the start must still be skipped.
func (r *run) wait(ctx context.Context, pd PhaseDeploy, q *eventQueue, phaseTimeout time.Duration, rule string) error {
	w := &phaseWait{r: r, pd: pd, pending: map[vmKey]VMDeploy{}, startDrained: map[vmKey]bool{}}
	for _, vm := range pd.VMs {
		w.pending[vmKey{vm.Host, vm.Name}] = vm
	}
	var timeout <-chan time.Time
	if phaseTimeout > 0 {
		t := time.NewTimer(phaseTimeout)
		defer t.Stop()
		timeout = t.C
	}
	for len(w.pending) > 0 {
		timedOut := false
		select {
		case <-ctx.Done():
			return ErrInterrupted
		case <-timeout:
			timedOut = true // what came before it still counts
		case <-q.signal:
		}
		for _, ev := range q.drain() {
			if err := w.take(ev); err != nil {
				return err
			}
		}
		if timedOut && len(w.pending) > 0 {
			return w.timeoutError(phaseTimeout, rule)
		}
	}
	return nil
}

// phaseWait is wait's state: the VMs not yet powered off, and those whose
// start it has drained.
type phaseWait struct {
	r            *run
	pd           PhaseDeploy
	pending      map[vmKey]VMDeploy
	startDrained map[vmKey]bool
}

// take applies one event: a pending VM's start arms its stops; its power-off
// ends it; any other stop of it, or a lost host, is the phase's error.
func (w *phaseWait) take(ev hostEvent) error {
	host := w.r.hs.Inventory.Hosts[ev.host].Name
	if ev.Err != nil {
		return fmt.Errorf("host %s: %w", host, ev.Err)
	}
	k := vmKey{ev.host, ev.Domain}
	vm, ok := w.pending[k]
	switch {
	case !ok:
		return nil
	case ev.Started:
		w.startDrained[k] = true
		return nil
	case !w.startDrained[k]:
		fmt.Fprintf(w.r.set.Log, "p%d %s %s: a stop (%s) ignored: it came before this VM's start, so it is an earlier VM's of that name\n", PhaseNumber(w.pd.Index), host, ev.Domain, ev.Reason)
		return nil
	}
	if !ev.Shutdown {
		log := ""
		if c := w.r.closeConsole(vm.HostURI, vm.Name, consoleGrace); c != nil && c.path != "" {
			log = "; console log " + c.path
		}
		return fmt.Errorf("host %s: VM %s (job %s) %s before its job finished%s", host, vm.Name, vm.Meta.Job, ev.Reason, log)
	}
	delete(w.pending, k)
	return w.r.vmEnded(w.pd, vm)
}

// timeoutError is wait's error when the phase timeout passes: the VMs still
// running, and apart from them those whose start libvirt never reported,
// whose stops wait could not count.
func (w *phaseWait) timeoutError(phaseTimeout time.Duration, rule string) error {
	var running, unseen []string
	for k, vm := range w.pending {
		name := fmt.Sprintf("%s (job %s, host %s)", k.name, vm.Meta.Job, vm.HostName)
		if w.startDrained[k] {
			running = append(running, name)
		} else {
			unseen = append(unseen, name)
		}
	}
	sort.Strings(running)
	sort.Strings(unseen)
	var parts []string
	if len(running) > 0 {
		parts = append(parts, fmt.Sprintf("%d VMs still running: %s", len(running), strings.Join(running, ", ")))
	}
	if len(unseen) > 0 {
		parts = append(parts, fmt.Sprintf("libvirt reported no start of %d VMs: %s", len(unseen), strings.Join(unseen, ", ")))
	}
	return fmt.Errorf("%w after %v (%s): %s", ErrPhaseTimeout, phaseTimeout, rule, strings.Join(parts, "; "))
}

// teardown removes what the records list, host by host, checking ownership
// before every destructive call. It goes on past a failing VM and returns
// the first error.
func (r *run) teardown(recs []VMRecord) error {
	var first error
	for _, rec := range recs {
		hi := r.hostIndex(rec.HostURI)
		if hi < 0 {
			if first == nil {
				first = fmt.Errorf("host %s (%s) of VM %s is not among the plan's hosts", rec.Host, rec.HostURI, rec.Name)
			}
			continue
		}
		if _, err := removeVM(r.hs.HVs[hi], r.j.Plan, r.j.Image, rec, func(state, msg string) error {
			return r.step(func(j *Journal) { j.vm(rec.Phase, rec.Name, rec.Host, rec.HostURI).State = state },
				"p%d %s %s: %s", PhaseNumber(rec.Phase), rec.Host, rec.Name, msg)
		}); err != nil && first == nil {
			first = fmt.Errorf("host %s: VM %s: %w", rec.Host, rec.Name, err)
		}
	}
	return first
}

// removeVM tears one journaled VM down: the domain only if its metadata names
// this plan and this VM (Owns), the overlay only if it sits on the plan's
// image. A record in an intent state is looked up like any other: what it
// named may exist or not. record is called after each step with the new
// state and what was done, saying "already gone" for what the host no
// longer has and "not there" for what was announced and not confirmed.
// found reports whether anything of the VM was still there.
func removeVM(hv Hypervisor, plan, image string, rec VMRecord, record func(state, msg string) error) (found bool, err error) {
	was := rec.State
	if rec.hasDomain() {
		msg, err := removeDomain(hv, plan, rec.Name)
		if err != nil {
			return found, err
		}
		found = found || msg != domainGone
		if msg == domainGone && was == StateDefining {
			msg = "domain not there (its definition was announced, not confirmed)"
		}
		if err := record(StateUndefined, msg); err != nil {
			return found, err
		}
		rec.State = StateUndefined
	}
	switch rec.State {
	case StateCreating, StateDisk, StateSeeding, StateUndefined:
	default:
		return found, nil
	}
	if rec.Image != "" {
		image = rec.Image // the job's own image
	}
	backing, err := hv.Volume(rec.Disk)
	msg := "disk " + rec.Disk + " deleted"
	switch {
	case errors.Is(err, ErrNotFound) && was == StateCreating:
		msg = "disk " + rec.Disk + " not there (its creation was announced, not confirmed)"
	case errors.Is(err, ErrNotFound):
		msg = "disk " + rec.Disk + " already gone"
	case err != nil:
		return found, err
	case backing != image:
		return found, fmt.Errorf("disk %s is not an overlay of %s; left alone", rec.Disk, image)
	default:
		if err := hv.DeleteVolume(rec.Disk); err != nil && !errors.Is(err, ErrNotFound) {
			return found, err
		}
		found = true
	}
	if rec.Seed != "" {
		seedFound, seedMsg, err := removeSeed(hv, rec, was == StateSeeding)
		if err != nil {
			return found, err
		}
		found = found || seedFound
		msg += ", " + seedMsg
	}
	return found, record(StateRemoved, msg)
}

// domainGone is removeDomain's word for a domain the host no longer has.
const domainGone = "domain already gone"

// removeDomain destroys (if running) and undefines a domain packer owns, and
// says what it did.
func removeDomain(hv Hypervisor, plan, name string) (string, error) {
	st, err := hv.Domain(name)
	switch {
	case errors.Is(err, ErrNotFound):
		return domainGone, nil
	case err != nil:
		return "", err
	case !Owns(plan, name, st.Meta):
		return "", fmt.Errorf("domain %s carries no packer metadata for plan %s; left alone", name, plan)
	}
	msg := "undefined"
	if st.Running {
		msg = "destroyed and undefined"
		if err := hv.Destroy(name); err != nil && !errors.Is(err, ErrNotFound) {
			// The guest may have powered off between the two calls.
			if now, serr := hv.Domain(name); serr != nil || now.Running {
				return "", fmt.Errorf("destroy: %w", err)
			}
		}
	}
	if err := hv.Undefine(name); err != nil && !errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("undefine: %w", err)
	}
	return msg, nil
}

// DestroyResult counts what Destroy did: VMs of which something was still
// on its host and is now removed, and VMs the host no longer had.
type DestroyResult struct {
	Removed int
	Gone    int
}

// Destroy removes everything the journal lists as live, and nothing else,
// connecting to each host the journal names through c, and journals every
// step to statePath ("" : nowhere).
func Destroy(j *Journal, c Connector, statePath string, log io.Writer) (DestroyResult, error) {
	var res DestroyResult
	if log == nil {
		log = io.Discard
	}
	if statePath != "" {
		unlock, err := lockState(statePath)
		if err != nil {
			return res, err
		}
		defer unlock()
		cleanStaleTemps(statePath, log)
	}
	r := &run{j: j, set: &Settings{StatePath: statePath, Log: log}}
	conns := map[string]Hypervisor{}
	defer func() {
		for _, hv := range conns {
			_ = hv.Close()
		}
	}()
	var first error
	for _, rec := range j.LiveVMs() {
		hv, ok := conns[rec.HostURI]
		if !ok {
			var err error
			hv, err = c.Connect(InventoryHost{Name: rec.Host, URI: rec.HostURI})
			if err != nil {
				if first == nil {
					first = fmt.Errorf("host %s (%s): %w", rec.Host, rec.HostURI, err)
				}
				continue
			}
			conns[rec.HostURI] = hv
		}
		found, err := removeVM(hv, j.Plan, j.Image, rec, func(state, msg string) error {
			return r.step(func(j *Journal) { j.vm(rec.Phase, rec.Name, rec.Host, rec.HostURI).State = state },
				"p%d %s %s: %s", PhaseNumber(rec.Phase), rec.Host, rec.Name, msg)
		})
		switch {
		case err != nil && first == nil:
			first = fmt.Errorf("host %s: VM %s: %w", rec.Host, rec.Name, err)
		case err == nil && found:
			res.Removed++
		case err == nil:
			res.Gone++
		}
	}
	status, msg := StatusDestroyed, "destroy done"
	if first != nil {
		status, msg = StatusFailed, "destroy failed"
	}
	if err := r.step(func(j *Journal) {
		j.Status = status
		j.Error = "" // the last run is this destroy
		if first != nil {
			j.Error = first.Error()
		}
	}, "%s", msg); err != nil && first == nil {
		first = err
	}
	return res, first
}

// dryRun writes what Apply would do, with every domain's XML: from the state
// file, what it would clear first and from which phase it would go on.
func (r *run) dryRun() error {
	w, d, s := r.set.Log, r.d, r.set
	fmt.Fprintf(w, "# dry run of plan %s: nothing is changed\n", d.Plan)
	first, last := r.phaseRange()
	if _, err := os.Stat(s.StatePath); s.StatePath != "" && err == nil {
		fmt.Fprintf(w, "# state file %s: %s at step %d; %d VMs may still exist\n", s.StatePath, r.j.Status, r.j.Step, len(r.j.LiveVMs()))
	}
	for _, v := range r.j.LiveVMs() {
		fmt.Fprintf(w, "p%d %s %s: left by the last run (%s): destroy, undefine, delete disk %s\n", PhaseNumber(v.Phase), v.Host, v.Name, v.StateText(), v.Disk)
	}
	for _, pd := range d.Phases {
		if pd.Index < first || pd.Index > last {
			continue
		}
		n := PhaseNumber(pd.Index)
		fmt.Fprintf(w, "\n## phase %d: %d VMs\n", n, len(pd.VMs))
		for _, vm := range pd.VMs {
			fmt.Fprintf(w, "p%d %s %s: create disk %s (qcow2 overlay of %s in pool %s)\n", n, vm.HostName, vm.Name, vm.DiskPath, vm.Image, vm.Pool)
			if vm.Run != nil {
				fmt.Fprintf(w, "p%d %s %s: upload seed volume %s (cloud-init NoCloud): runs %s\n", n, vm.HostName, vm.Name, vm.SeedPath, shellQuote(vm.Run.Command))
			} else {
				fmt.Fprintf(w, "p%d %s %s: job %s has no run spec: the appliance runs its own job\n", n, vm.HostName, vm.Name, vm.Meta.Job)
			}
			addr := "no static address"
			if vm.Address.IsValid() {
				addr = "address " + vm.Address.String()
			}
			fmt.Fprintf(w, "p%d %s %s: define (%s, MAC %s, %s, hostname %s, master %s)\n", n, vm.HostName, vm.Name, vm.Meta.Role, vm.MAC, addr, vm.Hostname, vm.MasterHostname)
			fmt.Fprintf(w, "p%d %s %s: start, copy its console", n, vm.HostName, vm.Name)
			if s.RunDir != "" {
				fmt.Fprintf(w, " to %s", ConsoleLog(s.RunDir, vm.Name))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "p%d: wait until all %d VMs have powered off, each job's status line saying exit 0", n, len(pd.VMs))
		if t, rule := r.phaseTimeout(pd.Index); t > 0 {
			fmt.Fprintf(w, " (at most %v: %s)", t, rule)
		}
		fmt.Fprintln(w)
		for _, vm := range pd.VMs {
			fmt.Fprintf(w, "p%d %s %s: destroy, undefine, delete disk %s", n, vm.HostName, vm.Name, vm.DiskPath)
			if vm.SeedPath != "" {
				fmt.Fprintf(w, " and seed volume %s", vm.SeedPath)
			}
			fmt.Fprintln(w)
		}
		for _, vm := range pd.VMs {
			fmt.Fprintf(w, "\n<!-- %s on %s -->\n%s", vm.Name, vm.HostName, vm.XML)
		}
	}
	return nil
}
