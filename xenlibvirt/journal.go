package xenlibvirt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
)

// JournalVersion is the state file format's version this packer writes.
// Version 2 added the intent states (StateCreating, …) and a VM's pool,
// volume and UUID; a version 1 file, which has none of them, is read as it
// is and written back as version 2.
const JournalVersion = 2

// oldestJournalVersion is the oldest state file format this packer reads.
const oldestJournalVersion = 1

// Journal is apply's state file: what exists where, rewritten atomically and
// flushed to disk (fsync) at every step, so that status, resume and destroy
// need nothing else. Only what the journal lists is ever removed.
//
// Every change to a host is written ahead: the journal first names what is
// about to be made (a VM in an intent state: StateCreating, StateSeeding,
// StateDefining, StateStarting, with the volume's pool, name and path or the
// domain's name and UUID), then libvirt is called, then the journal
// confirms it (StateDisk, StateDefined, StateRunning). A process killed
// between the two leaves an intent: resume and destroy look up what it
// names, and remove it if it is there and packer's.
type Journal struct {
	Version int    `json:"version"`
	Plan    string `json:"plan"`
	// Image is the appliance image every overlay of this plan sits on; a
	// volume on top of anything else is not packer's to delete.
	Image  string `json:"image"`
	Status string `json:"status"`
	// Error is the failure that ended the last run, naming host and VM.
	Error  string        `json:"error,omitempty"`
	Phases []PhaseRecord `json:"phases"`
	VMs    []VMRecord    `json:"vms"`
	// Step counts the journal's writes; it orders the steps in Log.
	Step int      `json:"step"`
	Log  []string `json:"log"`
}

// Journal and phase statuses.
const (
	StatusPending     = "pending"
	StatusRunning     = "running"
	StatusDone        = "done"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	StatusDestroyed   = "destroyed"
)

// PhaseRecord is one phase's progress.
type PhaseRecord struct {
	Index  int    `json:"index"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Started is when the phase began, Ended when it ended (its VMs torn
	// down, or kept, after its jobs ended or it failed), in its last run.
	Started *time.Time `json:"started,omitempty"`
	Ended   *time.Time `json:"ended,omitempty"`
}

// VM states in the journal, in the order a VM goes through them. The four
// intent states say that a call was about to be made and its outcome is not
// known: what it names may or may not exist.
const (
	StateCreating  = "creating"  // intent: overlay (Pool, Volume, Disk) about to be created
	StateDisk      = "disk"      // overlay created (and seed volume, if Seed is set)
	StateSeeding   = "seeding"   // intent: seed volume (Seed) about to be uploaded
	StateDefining  = "defining"  // intent: domain (Name, UUID) about to be defined
	StateDefined   = "defined"   // domain defined
	StateStarting  = "starting"  // intent: domain about to be started
	StateRunning   = "running"   // domain started
	StateFinished  = "finished"  // guest powered off: its job is done
	StateUndefined = "undefined" // domain gone, overlay still there
	StateRemoved   = "removed"   // nothing left
)

// states lists every state a VM record may be in.
var states = []string{StateCreating, StateDisk, StateSeeding, StateDefining, StateDefined,
	StateStarting, StateRunning, StateFinished, StateUndefined, StateRemoved}

// VMRecord is one VM packer created (or began to).
type VMRecord struct {
	Phase   int    `json:"phase"`
	Name    string `json:"name"`
	Host    string `json:"host"`
	HostURI string `json:"host_uri"`
	// Pool and Volume are the storage pool and volume name of the overlay
	// at Disk, named before it is created.
	Pool   string `json:"pool,omitempty"`
	Volume string `json:"volume,omitempty"`
	Disk   string `json:"disk"`
	// UUID is the domain's UUID, named before it is defined.
	UUID  string `json:"uuid,omitempty"`
	State string `json:"state"`
	// Job and Index say which VM of which job this is.
	Job   string `json:"job,omitempty"`
	Index int    `json:"index"`
	// Image is the image the overlay sits on, when it is not the
	// journal's (a job's own image).
	Image string `json:"image,omitempty"`
	// Seed is the VM's NoCloud seed volume; "" for none.
	Seed string `json:"seed,omitempty"`
	// Started is when the domain started, Stopped when packer saw it stop.
	Started *time.Time `json:"started,omitempty"`
	Stopped *time.Time `json:"stopped,omitempty"`
	// Exit and Seconds are the job's status as the guest reported it
	// (ParseStatus); nil when it reported none.
	Exit    *int     `json:"exit,omitempty"`
	Seconds *float64 `json:"seconds,omitempty"`
	// Console is the file the VM's console was copied to.
	Console string `json:"console,omitempty"`
}

// Live reports whether anything of the VM may still exist on its host.
func (r VMRecord) Live() bool { return r.State != StateRemoved }

// Unconfirmed reports whether the record's last step is an intent whose
// outcome was never confirmed: what it names may or may not exist.
func (r VMRecord) Unconfirmed() bool {
	switch r.State {
	case StateCreating, StateSeeding, StateDefining, StateStarting:
		return true
	}
	return false
}

// StateText is the record's state as people read it: an intent adds that
// what it names may exist or not.
func (r VMRecord) StateText() string {
	if r.Unconfirmed() {
		return r.State + ", not confirmed: may exist"
	}
	return r.State
}

// hasDomain reports whether a domain may have been defined and not yet
// removed: defined, or announced.
func (r VMRecord) hasDomain() bool {
	switch r.State {
	case StateDefining, StateDefined, StateStarting, StateRunning, StateFinished:
		return true
	}
	return false
}

// NewJournal starts the journal of a deployment: every phase pending.
func NewJournal(d *Deployment) *Journal {
	j := &Journal{Version: JournalVersion, Plan: d.Plan, Image: d.Image, Status: StatusPending}
	for _, p := range d.Phases {
		j.Phases = append(j.Phases, PhaseRecord{Index: p.Index, Status: StatusPending})
	}
	return j
}

// LiveVMs returns the records of VMs that may still exist, in journal order.
func (j *Journal) LiveVMs() []VMRecord {
	var out []VMRecord
	for _, r := range j.VMs {
		if r.Live() {
			out = append(out, r)
		}
	}
	return out
}

// NextPhase is the first phase not done: where --resume continues. It
// returns len(Phases) when all are done.
func (j *Journal) NextPhase() int {
	for i, p := range j.Phases {
		if p.Status != StatusDone {
			return i
		}
	}
	return len(j.Phases)
}

// vm returns the record of the named VM on the host, adding one if needed.
func (j *Journal) vm(phase int, name, host, uri string) *VMRecord {
	for i := range j.VMs {
		r := &j.VMs[i]
		if r.Name == name && r.HostURI == uri {
			r.Phase = phase
			return r
		}
	}
	j.VMs = append(j.VMs, VMRecord{Phase: phase, Name: name, Host: host, HostURI: uri})
	return &j.VMs[len(j.VMs)-1]
}

// Marshal returns the journal as indented JSON ending in a newline, in this
// packer's format (JournalVersion), whichever version it was read from.
func (j *Journal) Marshal() ([]byte, error) {
	out := *j
	out.Version = JournalVersion
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Save writes the journal atomically, a reader seeing the old or the new
// file, and durably: the file is flushed before it is renamed into place
// and its directory after, so that once Save returns the step survives a
// crash of the machine, not only of packer.
func (j *Journal) Save(path string) error {
	b, err := j.Marshal()
	if err != nil {
		return err
	}
	return writeDurably(path, b)
}

// writeDurably replaces path with b as Save does.
func writeDurably(path string, b []byte) error {
	if err := safefile.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	return syncDir(path)
}

// syncDir flushes the directory holding path (where a link at path leads),
// making a rename into it durable. A file system that cannot flush a
// directory (EINVAL) has nothing more to offer and is not an error.
func syncDir(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return err // a device or FIFO was written in place: no rename
	}
	d, err := os.Open(filepath.Dir(real))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("write %s: flush its directory: %w", path, err)
	}
	return nil
}

// ErrBadJournal is wrapped by every error ParseJournal reports.
var ErrBadJournal = errors.New("invalid state file")

// ParseJournal decodes a state file; name is used in errors.
func ParseJournal(data []byte, name string) (*Journal, error) {
	var j Journal
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&j); err != nil {
		return nil, &model.InputError{File: name, Err: fmt.Errorf("%w: %s", ErrBadJournal, jsonErr(data, dec, err))}
	}
	bad := func(format string, a ...any) error {
		return &model.InputError{File: name, Err: fmt.Errorf("%w: %s", ErrBadJournal, fmt.Sprintf(format, a...))}
	}
	switch {
	case j.Version > JournalVersion:
		return nil, bad("version: %d, this packer reads versions %d to %d; a newer packer wrote it", j.Version, oldestJournalVersion, JournalVersion)
	case j.Version < oldestJournalVersion:
		return nil, bad("version: %d, this packer reads versions %d to %d", j.Version, oldestJournalVersion, JournalVersion)
	}
	if j.Plan == "" {
		return nil, bad("plan: empty")
	}
	for i, p := range j.Phases {
		if p.Index != i {
			return nil, bad("phases[%d].index: %d", i, p.Index)
		}
		switch p.Status {
		case StatusPending, StatusRunning, StatusDone, StatusFailed, StatusInterrupted:
		default:
			return nil, bad("phases[%d].status: %q", i, p.Status)
		}
	}
	for i, r := range j.VMs {
		if !slices.Contains(states, r.State) || j.Version < 2 && r.Unconfirmed() {
			return nil, bad("vms[%d].state: %q", i, r.State)
		}
		if r.Name == "" || r.HostURI == "" {
			return nil, bad("vms[%d]: name %q and host_uri %q must be set", i, r.Name, r.HostURI)
		}
		if r.Live() && r.Disk == "" {
			return nil, bad("vms[%d].disk: empty, and the VM is %s", i, r.State)
		}
		if r.Phase < 0 || r.Phase >= len(j.Phases) {
			return nil, bad("vms[%d].phase: %d outside 0..%d", i, r.Phase, len(j.Phases)-1)
		}
	}
	return &j, nil
}

// MaxJournalBytes is the largest state file ReadJournalFile reads: 64 MiB,
// some hundred thousand VMs' records.
const MaxJournalBytes = 64 << 20

// ReadJournalFile reads a state file; one of more than MaxJournalBytes is
// refused before it is parsed.
func ReadJournalFile(path string) (*Journal, error) {
	data, err := model.ReadFileLimit(path, MaxJournalBytes, "a state file")
	if err != nil {
		return nil, err
	}
	return ParseJournal(data, path)
}

// StateFileName is the state file apply writes for a plan when not told
// otherwise: packer-<plan id>.state.json.
func StateFileName(planID string) string { return "packer-" + planID + ".state.json" }

// RunDir is the run directory beside a state file: the state file's path
// without ".state.json" (or its extension), and ".run". It holds console/
// (one log a VM) and the run record.
func RunDir(statePath string) string {
	base, ok := strings.CutSuffix(statePath, ".state.json")
	if !ok {
		base = strings.TrimSuffix(statePath, filepath.Ext(statePath))
	}
	return base + ".run"
}

// ErrNoStateFile is wrapped by FindStateFile's error when it finds no state
// file, or more than one, to choose.
var ErrNoStateFile = errors.New("no state file to choose")

// FindStateFile finds the state file apply wrote in dir, as status and
// destroy do when not told which: the plan's (StateFileName) when planID is
// given, else the only packer-*.state.json in dir. Several are refused,
// naming them, rather than guessed between.
func FindStateFile(dir, planID string) (string, error) {
	if planID != "" {
		p := filepath.Join(dir, StateFileName(planID))
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: plan %s has none here (%s); --state names one", ErrNoStateFile, planID, p)
		}
		return p, nil
	}
	found, err := filepath.Glob(filepath.Join(dir, StateFileName("*")))
	if err != nil {
		return "", err
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w: none named %s in %s; --state names one", ErrNoStateFile, StateFileName("*"), dir)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%w: %d here (%s); --state or --plan says which", ErrNoStateFile, len(found), strings.Join(found, ", "))
}
