package xenlibvirt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// NoPhaseTimeout as Settings.PhaseTimeout waits for a phase as long as its
// jobs take.
const NoPhaseTimeout time.Duration = -1

// DefaultBootAllowance is Settings.BootAllowance's default: what a phase may
// take beyond twice its predicted length for its VMs to boot and power off.
const DefaultBootAllowance = 5 * time.Minute

// DerivedPhaseTimeout is the phase timeout apply uses when not given one:
// twice the plan's predicted duration of the phase plus the boot allowance,
// so that a job may run twice as long as its model says before it is
// stopped, and booting is not counted against it.
func DerivedPhaseTimeout(predictedSeconds float64, bootAllowance time.Duration) time.Duration {
	d := time.Duration(math.Ceil(2*predictedSeconds)) * time.Second
	if predictedSeconds <= 0 || math.IsNaN(predictedSeconds) || d < 0 {
		d = 0
	}
	return d + bootAllowance
}

// phaseTimeout is phase p's timeout (0: none) and the rule that gave it.
func (r *run) phaseTimeout(p int) (time.Duration, string) {
	switch t := r.set.PhaseTimeout; {
	case t == NoPhaseTimeout:
		return 0, "no timeout (--phase-timeout 0)"
	case t > 0:
		return t, "as given"
	}
	pred := r.plan.Phases[p].Duration
	return DerivedPhaseTimeout(pred, r.set.BootAllowance),
		fmt.Sprintf("2 × predicted %s + boot allowance %v", formatSeconds(pred), r.set.BootAllowance)
}

// formatSeconds writes a predicted or measured time in seconds, to 0.1 s.
func formatSeconds(s float64) string { return fmt.Sprintf("%.1f s", s) }

// consoleGrace bounds how long apply waits, once a VM has powered off, for
// its console stream to deliver the last bytes (and the status line).
const consoleGrace = 10 * time.Second

// maxStatusLine bounds what statusScan keeps of a line it has not seen the
// end of: a status line is under 64 bytes, so the line's last 512 bytes hold
// it, however much output came before it on the line.
const maxStatusLine = 512

// statusScan finds the last status line (ParseStatus) in a console as it
// streams past, line by line: however much a guest prints after it (a
// systemd shutdown on a serial console prints pages), it is not lost.
type statusScan struct {
	mu      sync.Mutex
	partial []byte
	st      JobStatus
	ok      bool
}

func (s *statusScan) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		nl := bytes.IndexByte(p, '\n')
		if nl < 0 {
			s.partial = append(s.partial, p...)
			if over := len(s.partial) - maxStatusLine; over > 0 {
				s.partial = append(s.partial[:0], s.partial[over:]...)
			}
			break
		}
		s.line(append(s.partial, p[:nl]...))
		s.partial, p = s.partial[:0], p[nl+1:]
	}
	return n, nil
}

func (s *statusScan) line(l []byte) {
	if st, ok := ParseStatus(l); ok {
		s.st, s.ok = st, true
	}
}

// status is the last status line seen, the unfinished last line included.
func (s *statusScan) status() (JobStatus, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := ParseStatus(s.partial); ok {
		return st, true
	}
	return s.st, s.ok
}

// consoleCopy is one VM's console being copied: to its log file in the run
// directory (when there is one) and to a tail kept for the status line.
type consoleCopy struct {
	path string
	file *os.File
	scan statusScan
	stop func()
	done <-chan error
	// lost is why the copy ended before the domain stopped, if it did.
	lost error
	// err is why a real host could not give the console: the job's
	// status cannot be known.
	err error
}

// consoleKey names a VM's console copy: its host's URI and its name.
type consoleKey struct{ uri, name string }

// openConsole starts copying a started VM's console. A host whose libvirt
// cannot give the console (the test driver) leaves the VM without one: its
// status is then unknown, and a power-off counts as success.
func (r *run) openConsole(phase int, vm VMDeploy) {
	c := &consoleCopy{}
	var w io.Writer = &c.scan
	if r.set.RunDir != "" {
		c.path = ConsoleLog(r.set.RunDir, vm.Name)
		err := os.MkdirAll(filepath.Dir(c.path), 0o755)
		if err == nil {
			c.file, err = os.Create(c.path)
		}
		if err != nil {
			fmt.Fprintf(r.set.Log, "p%d %s %s: no console log: %v\n", PhaseNumber(phase), vm.HostName, vm.Name, err)
			c.path = ""
		} else {
			w = io.MultiWriter(c.file, &c.scan)
		}
	}
	stop, done, err := r.hs.HVs[vm.Host].Console(vm.Name, w)
	if err != nil {
		if c.file != nil {
			_ = c.file.Close()
			_ = os.Remove(c.path)
		}
		// The test driver has no consoles; a real host's refusal is news,
		// and leaves a job with a run spec without its status.
		if r.hs.Facts[vm.Host].Simulated() {
			return
		}
		fmt.Fprintf(r.set.Log, "p%d %s %s: console not readable: %v\n", PhaseNumber(phase), vm.HostName, vm.Name, err)
		c.path, c.file, c.err = "", nil, err
		stop, done = func() {}, closedDone
	}
	c.stop, c.done = stop, done
	r.mu.Lock()
	if r.consoles == nil {
		r.consoles = map[consoleKey]*consoleCopy{}
	}
	r.consoles[consoleKey{vm.HostURI, vm.Name}] = c
	r.mu.Unlock()
}

// closedDone is the done channel of a console that was never copied.
var closedDone = func() <-chan error {
	c := make(chan error)
	close(c)
	return c
}()

// closeConsole ends the copy of a VM's console, waiting up to grace for it
// to end by itself (the domain stopped), and returns the copy (nil when
// there was none).
func (r *run) closeConsole(uri, name string, grace time.Duration) *consoleCopy {
	r.mu.Lock()
	c := r.consoles[consoleKey{uri, name}]
	delete(r.consoles, consoleKey{uri, name})
	r.mu.Unlock()
	if c == nil {
		return nil
	}
	if grace > 0 {
		t := time.NewTimer(grace)
		select {
		case c.lost = <-c.done:
		case <-t.C:
		}
		t.Stop()
	}
	c.stop()
	if c.file != nil {
		_ = c.file.Close()
	}
	return c
}

// closeConsoles ends every console copy still open, without waiting.
func (r *run) closeConsoles() {
	r.mu.Lock()
	var keys []consoleKey
	for k := range r.consoles {
		keys = append(keys, k)
	}
	r.mu.Unlock()
	for _, k := range keys {
		r.closeConsole(k.uri, k.name, 0)
	}
}

// ErrJobFailed is wrapped by the error of a phase one of whose jobs ended
// with a non-zero exit status, or powered off without saying how it ended.
var ErrJobFailed = errors.New("job failed")

// vmEnded records how a VM that powered off by itself ended its job and
// returns an error, wrapping ErrJobFailed, when the job failed there: its
// command's exit status was not 0, or a VM of a job with a run spec whose
// console was read reported none.
func (r *run) vmEnded(pd PhaseDeploy, vm VMDeploy) error {
	now := r.now()
	c := r.closeConsole(vm.HostURI, vm.Name, consoleGrace)
	var st JobStatus
	var ok bool
	if c != nil {
		st, ok = c.scan.status()
	}
	log := ""
	if c != nil && c.path != "" {
		log = "; console log " + c.path
	}
	var failure error
	switch {
	case c != nil && c.err != nil && vm.Run != nil:
		failure = fmt.Errorf("%w: job %s: VM %s (%s) on host %s powered off, but its console could not be read for its exit status: %v", ErrJobFailed, vm.Meta.Job, vm.Hostname, vm.Name, vm.HostName, c.err)
	case ok && st.Exit != 0:
		failure = fmt.Errorf("%w: job %s: VM %s (%s) on host %s exited with status %d%s", ErrJobFailed, vm.Meta.Job, vm.Hostname, vm.Name, vm.HostName, st.Exit, log)
	case !ok && c != nil && c.err == nil && vm.Run != nil:
		why := ""
		if c.lost != nil {
			why = " (its console was lost: " + c.lost.Error() + ")"
		}
		failure = fmt.Errorf("%w: job %s: VM %s (%s) on host %s powered off without reporting an exit status%s%s", ErrJobFailed, vm.Meta.Job, vm.Hostname, vm.Name, vm.HostName, why, log)
	}
	what := "powered off, job " + vm.Meta.Job + " done on it"
	switch {
	case ok:
		what = fmt.Sprintf("powered off, job %s exited %d after %s", vm.Meta.Job, st.Exit, formatSeconds(st.Seconds))
	case failure != nil:
		what = "powered off without an exit status"
	}
	if err := r.step(func(j *Journal) {
		v := j.vm(pd.Index, vm.Name, vm.HostName, vm.HostURI)
		v.State, v.Stopped = StateFinished, &now
		if ok {
			exit, secs := st.Exit, st.Seconds
			v.Exit, v.Seconds = &exit, &secs
		}
		if c != nil {
			v.Console = c.path
		}
	}, "p%d %s %s: %s", PhaseNumber(pd.Index), vm.HostName, vm.Name, what); err != nil {
		return err
	}
	return failure
}

// ConsoleLog is the file a VM's console is copied to in the run directory.
func ConsoleLog(runDir, domain string) string {
	return filepath.Join(runDir, "console", domain+".log")
}

// now is the settings' clock.
func (r *run) now() time.Time {
	if r.set.Now != nil {
		return r.set.Now()
	}
	return time.Now()
}

// createSeed builds a VM's NoCloud seed volume and uploads it beside its
// overlay: the journal names it first (StateSeeding), and says it is there
// (back to StateDisk, Seed set) before the domain that uses it is defined.
func (r *run) createSeed(phase int, hv Hypervisor, vm VMDeploy) error {
	iso, err := NoCloudISO(seedFiles(vm, r.hs.Inventory))
	if err != nil {
		return fmt.Errorf("seed volume: %w", err)
	}
	if err := volumeFree(hv, vm.SeedPath); err != nil {
		return fmt.Errorf("seed volume: %w", err)
	}
	n := PhaseNumber(phase)
	if err := r.intend(func(j *Journal) {
		r.vmRecord(phase, vm, StateSeeding)(j)
		j.vm(phase, vm.Name, vm.HostName, vm.HostURI).Seed = vm.SeedPath
	}, "p%d %s %s: about to upload seed volume %s (volume %s in pool %s)", n, vm.HostName, vm.Name, vm.SeedPath, vm.SeedVolume, vm.Pool); err != nil {
		return err
	}
	path, err := hv.UploadVolume(vm.Pool, vm.SeedVolume, iso)
	if err != nil {
		return err
	}
	return r.step(func(j *Journal) {
		r.vmRecord(phase, vm, StateDisk)(j)
		j.vm(phase, vm.Name, vm.HostName, vm.HostURI).Seed = path
	}, "p%d %s %s: seed volume %s uploaded (%d bytes, cloud-init NoCloud)", n, vm.HostName, vm.Name, path, len(iso))
}

// removeSeed deletes a VM's seed volume, which must be what packer made:
// named for the VM (SeedVolumeName), beside its overlay, and sitting on no
// backing file (an overlay someone gave that name is not packer's seed).
// announced says its upload was never confirmed.
func removeSeed(hv Hypervisor, rec VMRecord, announced bool) (found bool, msg string, err error) {
	if filepath.Base(rec.Seed) != SeedVolumeName(rec.Name) || filepath.Dir(rec.Seed) != filepath.Dir(rec.Disk) {
		return false, "", fmt.Errorf("seed volume %s is not %s's; left alone", rec.Seed, rec.Name)
	}
	backing, err := hv.Volume(rec.Seed)
	switch {
	case errors.Is(err, ErrNotFound) && announced:
		return false, "seed volume " + rec.Seed + " not there (its upload was announced, not confirmed)", nil
	case errors.Is(err, ErrNotFound):
		return false, "seed volume " + rec.Seed + " already gone", nil
	case err != nil:
		return false, "", err
	case backing != "":
		return false, "", fmt.Errorf("seed volume %s sits on %s, so packer did not make it; left alone", rec.Seed, backing)
	}
	if err := hv.DeleteVolume(rec.Seed); err != nil && !errors.Is(err, ErrNotFound) {
		return false, "", err
	}
	return true, "seed volume " + rec.Seed + " deleted", nil
}
