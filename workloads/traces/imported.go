package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
)

// Imported is a simulation workload read from a real trace, together with
// what the importer assumed to build it and what it counted on the way.
type Imported struct {
	Workload *sim.Workload
	Meta     Metadata
	// Real is, for a Rumen import, what the trace says happened to each job
	// (Real[i] for Workload.Jobs[i]); nil for the other formats.
	Real []RealJob
	// Hosts names, for a Rumen import, the host each simulated node stands
	// for (Hosts[i] is node i); nil for the other formats.
	Hosts []string
	// Notes tell the user what the import chose for them (a cluster derived
	// from the trace) or should know (a workload too big to simulate
	// easily); they are not part of the workload file.
	Notes []string
}

// Metadata describes an import. It is written into the workload file beside
// the cluster and the jobs; the simulator ignores it.
type Metadata struct {
	// Format is the trace format: "swim", "rumen" or "hybs".
	Format string `json:"format"`
	// Source is the file the trace was read from.
	Source string `json:"source"`
	// Assumptions say, in words, every number the importer made up or
	// derived, so a reader of the workload knows what is real and what is not.
	Assumptions []string `json:"assumptions"`
	// Records is the number of job records read (after the window's start,
	// up to where reading stopped).
	Records int `json:"records"`
	// Jobs, Maps and Reduces count what the workload holds.
	Jobs    int `json:"jobs"`
	Maps    int `json:"maps"`
	Reduces int `json:"reduces"`
	// SkippedBad counts malformed records skipped with SkipBad.
	SkippedBad int `json:"skipped_bad"`
	// DroppedFailed counts jobs whose outcome was not SUCCESS and that were
	// dropped (Rumen without KeepFailed).
	DroppedFailed int `json:"dropped_failed,omitempty"`
	// OutsideWindow counts well-formed jobs outside the window (or beyond
	// MaxJobs, as far as the reader went).
	OutsideWindow int `json:"outside_window,omitempty"`
	// Origin is the trace time, in seconds, that arrival 0 stands for: the
	// earliest submission imported.
	Origin float64 `json:"origin"`
}

// MarshalIndent renders the import as a simulation workload file with a
// "metadata" object; sim.ParseWorkload reads it back (ignoring metadata).
func (im *Imported) MarshalIndent() ([]byte, error) {
	doc := struct {
		Name     string      `json:"name,omitempty"`
		Metadata Metadata    `json:"metadata"`
		Cluster  sim.Cluster `json:"cluster"`
		Jobs     []sim.Job   `json:"jobs"`
	}{im.Workload.Name, im.Meta, im.Workload.Cluster, im.Workload.Jobs}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Window selects the jobs to import by submit time, in seconds on the
// trace's own clock (SWIM: its submit column, which need not start at 0;
// Rumen: from its first record's submission), so an analyst can take one hour
// of a day. The zero value takes everything.
type Window struct {
	// From is the earliest submit time taken; 0 means from the beginning
	// (including a record submitted before the first one, which real traces
	// with unsynchronised clocks have).
	From float64
	// To is the end of the window, exclusive; 0 means no end.
	To float64
	// MaxJobs stops reading after that many jobs are taken; 0 means no limit.
	MaxJobs int
}

// ErrBadWindow is wrapped by every error about a Window.
var ErrBadWindow = errors.New("bad window")

func (w Window) validate() error {
	switch {
	case math.IsNaN(w.From) || math.IsInf(w.From, 0) || w.From < 0:
		return fmt.Errorf("%w: from must be finite and not negative, got %v", ErrBadWindow, w.From)
	case math.IsNaN(w.To) || math.IsInf(w.To, 0) || w.To < 0:
		return fmt.Errorf("%w: to must be finite and not negative, got %v", ErrBadWindow, w.To)
	case w.To != 0 && w.To <= w.From:
		return fmt.Errorf("%w: to (%v s) must be after from (%v s)", ErrBadWindow, w.To, w.From)
	case w.MaxJobs < 0:
		return fmt.Errorf("%w: max jobs must not be negative, got %d", ErrBadWindow, w.MaxJobs)
	}
	return nil
}

// admits reports whether a job submitted t seconds after the first record
// falls in the window.
func (w Window) admits(t float64) bool {
	if w.From > 0 && t < w.From {
		return false
	}
	return w.To == 0 || t < w.To
}

// full reports whether n taken jobs fill the window.
func (w Window) full(n int) bool { return w.MaxJobs > 0 && n >= w.MaxJobs }

// shiftArrivals makes the earliest arrival 0 and returns the shift, so a
// window taken from the middle of a day starts at once.
func shiftArrivals(jobs []sim.Job) float64 {
	if len(jobs) == 0 {
		return 0
	}
	lo := jobs[0].Arrival
	for _, j := range jobs {
		lo = min(lo, j.Arrival)
	}
	for i := range jobs {
		jobs[i].Arrival -= lo
	}
	return lo
}

// count fills the job and task counts of m from jobs.
func (m *Metadata) count(jobs []sim.Job) {
	m.Jobs, m.Maps, m.Reduces = len(jobs), 0, 0
	for _, j := range jobs {
		m.Maps += j.Maps.N()
		m.Reduces += j.Reduces.N()
	}
}

// minTask is the shortest task duration an importer writes, in seconds: the
// simulator needs positive durations and traces record some tasks as taking
// 0 ms.
const minTask = 0.001

// openTrace returns r, decompressed if it is gzipped, bounded by
// MaxTraceBytes, and the function that makes an error about it a
// *model.InputError naming the file: the start every reader shares.
func openTrace(r io.Reader, name string) (io.Reader, func(error) error, error) {
	bad := func(err error) error { return &model.InputError{File: name, Err: err} }
	in, err := maybeGzip(r, MaxTraceBytes, "a trace")
	if err != nil {
		return nil, nil, bad(err)
	}
	return in, bad, nil
}

// valueOrZero is *s, or the zero settings for nil: a nil *Settings means
// every default.
func valueOrZero[S any](s *S) S {
	var v S
	if s != nil {
		v = *s
	}
	return v
}

// validateAndOpen checks the settings with validate (which fills their
// defaults), then opens the trace with openTrace.
func validateAndOpen[S any](r io.Reader, name string, validate func() (S, error)) (S, io.Reader, func(error) error, error) {
	s, err := validate()
	if err != nil {
		return s, nil, nil, err
	}
	in, bad, err := openTrace(r, name)
	return s, in, bad, err
}

// A tally is a count of something an import did, in words.
type tally struct {
	count int
	what  string
}

// counted renders the tallies that are not 0 as "count what".
func counted(ts ...tally) []string {
	var out []string
	for _, t := range ts {
		if t.count > 0 {
			out = append(out, fmt.Sprintf("%d %s", t.count, t.what))
		}
	}
	return out
}

// Skipped says, in words, what of the trace the import left out: malformed
// records skipped, failed jobs dropped, jobs outside the window; nil if
// nothing.
func (m *Metadata) Skipped() []string {
	return counted(
		tally{m.SkippedBad, "malformed records skipped"},
		tally{m.DroppedFailed, "failed jobs dropped"},
		tally{m.OutsideWindow, "jobs outside the window"},
	)
}

// setDefault sets *v to d when *v is the zero value, the "unset" of a
// settings field.
func setDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
