package xenlibvirt

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
)

// Files of the run record in the run directory (RunDir).
const (
	RunRecordFile    = "record.json"
	ObservationsFile = "observations.csv"
)

// RunRecord sets what an apply run measured beside what the plan predicted,
// per phase and per job: the plan checked against what ran.
type RunRecord struct {
	Plan   string     `json:"plan"`
	Status string     `json:"status"`
	Phases []PhaseRun `json:"phases"`
	Jobs   []JobRun   `json:"jobs"`
}

// PhaseRun is one phase, predicted and measured.
type PhaseRun struct {
	// Phase is the phase's number, from 1.
	Phase  int    `json:"phase"`
	Status string `json:"status"`
	// PredictedSeconds is the plan's duration of the phase (its slowest
	// job's predicted runtime); MeasuredSeconds the wall time from the
	// phase's start to its end (its VMs torn down), boots included; nil
	// when the phase has not run.
	PredictedSeconds float64  `json:"predicted_seconds"`
	MeasuredSeconds  *float64 `json:"measured_seconds,omitempty"`
	PlannedVMs       int      `json:"planned_vms"`
	RanVMs           int      `json:"ran_vms"`
}

// JobRun is one job, predicted and measured.
type JobRun struct {
	Phase int    `json:"phase"`
	Job   string `json:"job"`
	// Status is "ok" (every VM reported exit 0), "exit N" (the first
	// non-zero status of its VMs), "done" (every VM powered off, none
	// reported a status: an appliance that runs its own job), "no status"
	// (some VMs reported, some did not), "stopped" (packer stopped a VM
	// that had not powered off: a timeout, a failure elsewhere, an
	// interrupt), "running" (a VM still runs, kept by --keep-on-failure or
	// --keep-on-interrupt) or "not run".
	Status           string  `json:"status"`
	PlannedVMs       int     `json:"planned_vms"`
	RanVMs           int     `json:"ran_vms"`
	PredictedSeconds float64 `json:"predicted_seconds"`
	// MeasuredSeconds is the job's runtime as its VMs reported it: the
	// longest of their commands' times (the job ends with its last VM's
	// command); nil when no VM reported one.
	MeasuredSeconds *float64 `json:"measured_seconds,omitempty"`
	// WallSeconds is from the job's first VM start to its last VM's
	// power-off, boots and power-offs included; nil until all stopped.
	WallSeconds *float64 `json:"wall_seconds,omitempty"`
	// Consoles are the job's VMs' console logs, by VM index (the master's
	// first): where its output, and so its result, is.
	Consoles []string `json:"consoles,omitempty"`
}

// NewRunRecord derives the run record from the plan and the journal alone.
func NewRunRecord(pl *plan.Plan, j *Journal) *RunRecord {
	rec := &RunRecord{Plan: pl.ID, Status: j.Status}
	for _, ph := range pl.Phases {
		pr := PhaseRun{Phase: PhaseNumber(ph.Index), Status: StatusPending, PredictedSeconds: ph.Duration}
		if ph.Index < len(j.Phases) {
			p := j.Phases[ph.Index]
			pr.Status = p.Status
			pr.MeasuredSeconds = span(p.Started, p.Ended)
		}
		for _, h := range ph.Hosts {
			pr.PlannedVMs += len(h.VMs)
		}
		for _, job := range ph.Jobs {
			jr := JobRun{Phase: pr.Phase, Job: job.Name, PlannedVMs: job.VMs, PredictedSeconds: job.Runtime}
			jobRun(&jr, ph.Index, j.VMs)
			pr.RanVMs += jr.RanVMs
			rec.Jobs = append(rec.Jobs, jr)
		}
		rec.Phases = append(rec.Phases, pr)
	}
	return rec
}

// jobRun fills in what the journal's VM records of the job in phase p say.
// A VM ran when it started; its last start counts (a resumed phase starts
// its VMs again).
func jobRun(jr *JobRun, p int, vms []VMRecord) {
	var first, last *time.Time
	allStopped, allOK, anyStatus, killed := true, true, false, false
	jr.Status = "not run"
	for _, v := range vms {
		if v.Phase != p || v.Job != jr.Job || v.Started == nil {
			continue
		}
		jr.RanVMs++
		if v.Console != "" {
			for len(jr.Consoles) <= v.Index {
				jr.Consoles = append(jr.Consoles, "")
			}
			jr.Consoles[v.Index] = v.Console
		}
		if first == nil || v.Started.Before(*first) {
			first = v.Started
		}
		switch {
		case v.Stopped == nil && (v.State == StateUndefined || v.State == StateRemoved):
			killed = true // torn down by packer while it ran
		case v.Stopped == nil:
			allStopped = false
		case last == nil || v.Stopped.After(*last):
			last = v.Stopped
		}
		if v.Exit == nil {
			allOK = false
			continue
		}
		anyStatus = true
		if *v.Exit != 0 && (jr.Status == "not run" || jr.Status == "ok") {
			jr.Status = "exit " + strconv.Itoa(*v.Exit)
		}
		if jr.MeasuredSeconds == nil || *v.Seconds > *jr.MeasuredSeconds {
			s := *v.Seconds
			jr.MeasuredSeconds = &s
		}
	}
	switch {
	case jr.RanVMs == 0:
		return
	case jr.Status != "not run": // a non-zero exit, set above
	case !allStopped:
		jr.Status = "running"
	case killed:
		jr.Status = "stopped"
	case allOK && anyStatus:
		jr.Status = "ok"
	case anyStatus:
		jr.Status = "no status" // some VMs reported, some not
	default:
		jr.Status = "done"
	}
	if allStopped && !killed && jr.RanVMs > 0 {
		jr.WallSeconds = span(first, last)
	}
}

// span is b − a in seconds, nil unless both are set.
func span(a, b *time.Time) *float64 {
	if a == nil || b == nil {
		return nil
	}
	s := b.Sub(*a).Seconds()
	return &s
}

// WriteTable writes the record as two aligned tables: phases, then jobs.
// A time is "-" where there is none; ratio is measured ÷ predicted, for a
// phase that is done and a job whose VMs reported their times.
func (rec *RunRecord) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tSTATUS\tVMS PLANNED\tVMS RAN\tPREDICTED S\tWALL S\tRATIO")
	for _, p := range rec.Phases {
		r := "-"
		if p.Status == StatusDone {
			r = ratio(p.MeasuredSeconds, p.PredictedSeconds)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%.1f\t%s\t%s\n", p.Phase, p.Status, p.PlannedVMs, p.RanVMs, p.PredictedSeconds, orDash(p.MeasuredSeconds), r)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "PHASE\tJOB\tSTATUS\tVMS PLANNED\tVMS RAN\tPREDICTED S\tMEASURED S\tRATIO\tWALL S")
	for _, j := range rec.Jobs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%.1f\t%s\t%s\t%s\n", j.Phase, j.Job, j.Status, j.PlannedVMs, j.RanVMs, j.PredictedSeconds,
			orDash(j.MeasuredSeconds), ratio(j.MeasuredSeconds, j.PredictedSeconds), orDash(j.WallSeconds))
	}
	return tw.Flush()
}

func orDash(s *float64) string {
	if s == nil {
		return "-"
	}
	return strconv.FormatFloat(*s, 'f', 1, 64)
}

func ratio(measured *float64, predicted float64) string {
	if measured == nil || predicted <= 0 {
		return "-"
	}
	return strconv.FormatFloat(*measured/predicted, 'f', 2, 64)
}

// WriteObservations writes the jobs that ran to the end with every planned
// VM and exit status 0 as an observations CSV (job,nodes,seconds) that
// packer fit reads: nodes is the VM count, seconds the measured runtime.
func (rec *RunRecord) WriteObservations(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"job", "nodes", "seconds"})
	for _, j := range rec.Jobs {
		if j.Status != "ok" || j.RanVMs != j.PlannedVMs || j.MeasuredSeconds == nil {
			continue
		}
		_ = cw.Write([]string{j.Job, strconv.Itoa(j.RanVMs), strconv.FormatFloat(*j.MeasuredSeconds, 'f', 2, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteRunRecord writes the record (RunRecordFile) and its observations
// (ObservationsFile) into dir, each replaced whole.
func WriteRunRecord(dir string, rec *RunRecord) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("run record: %w", err)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.WriteFile(filepath.Join(dir, RunRecordFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("run record: %w", err)
	}
	var obs bytes.Buffer
	if err := rec.WriteObservations(&obs); err != nil {
		return err
	}
	if err := safefile.WriteFile(filepath.Join(dir, ObservationsFile), obs.Bytes(), 0o644); err != nil {
		return fmt.Errorf("run record: %w", err)
	}
	return nil
}

// MaxRunRecordBytes is the largest run record ReadRunRecord reads: 16 MiB.
const MaxRunRecordBytes = 16 << 20

// ReadRunRecord reads the record WriteRunRecord wrote into dir; one of more
// than MaxRunRecordBytes is refused before it is parsed.
func ReadRunRecord(dir string) (*RunRecord, error) {
	b, err := model.ReadFileLimit(filepath.Join(dir, RunRecordFile), MaxRunRecordBytes, "a run record")
	if err != nil {
		return nil, err
	}
	var rec RunRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RunRecordFile), err)
	}
	return &rec, nil
}
