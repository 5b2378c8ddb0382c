package profile

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/packer-sched/packer/model"
)

// FitObservations reads an observations file (ReadObservations) and fits
// and classifies every job in it (Analyze), as FitObservationFiles does for
// one file.
func FitObservations(r io.Reader, file, name string, s *Settings) (*Fitted, error) {
	return FitObservationFiles([]ObservationFile{{R: r, File: file}}, name, s)
}

// ObservationFile is one observations file to read: its contents and its
// name for messages.
type ObservationFile struct {
	R    io.Reader
	File string
}

// Fitted is what FitObservationFiles made of its files.
type Fitted struct {
	// Workload holds the fitted jobs, in the order they first appear.
	Workload *model.Workload
	// Results is each fitted job's Result, in the same order.
	Results []*Result
	// Skipped names the jobs that could not be fitted, in the order they
	// first appear (empty under Settings.Strict, which refuses them).
	Skipped []Skipped
}

// Skipped is a job that could not be fitted and why.
type Skipped struct {
	Job  string
	File string
	Line int // of the job's first run
	// Reason says what is missing, e.g. "measured at a single node count (8)".
	Reason string
}

// String is "file:line: job J: reason".
func (s Skipped) String() string {
	return fmt.Sprintf("%s:%d: job %s: %s", s.File, s.Line, s.Job, s.Reason)
}

// FitObservationFiles reads several observations files as one: a job's
// runs in any of them are fitted together (the runs a profile measured and
// those packer apply recorded, say), jobs in the order they first appear.
// The workload is named name or, when name is empty, after the first file
// (its base name without extension). A job that cannot be fitted (its runs
// at a single node count, or too few for the form Settings.Form forces) is
// skipped and named in Fitted.Skipped, unless Settings.Strict; when every
// job is skipped there is nothing to fit, an error. Errors are
// *model.InputError naming the file and the line of the job's first run.
func FitObservationFiles(files []ObservationFile, name string, s *Settings) (*Fitted, error) {
	if len(files) == 0 {
		return nil, errors.New("profile: no observations file")
	}
	jobs, err := readObservationFiles(files)
	if err != nil {
		return nil, err
	}
	strict := s != nil && s.Strict
	file := files[0].File
	if name == "" {
		base := filepath.Base(file)
		name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	from := file
	for _, f := range files[1:] {
		from += ", " + f.File
	}
	out := &Fitted{Workload: &model.Workload{Name: name, Description: "fitted by packer fit from " + from}}
	var first error // the first skipped job's error, returned if none is fitted
	for _, j := range jobs {
		// A job's node counts are counted over all the files: one VM count
		// in each of two files is two.
		reason := ""
		res, err := (*Result)(nil), j.col.checkNodeCounts([]JobObservations{j.JobObservations})
		if err != nil {
			reason = fmt.Sprintf("measured at a single node count (%d): a model needs at least two", j.Observations[0].Nodes)
			err = &model.InputError{File: j.file, Err: err}
		} else if res, err = Analyze(j.Job, j.Observations, withShape(s, j.Shape)); err != nil {
			if errors.Is(err, ErrTooFewNodeCounts) || errors.Is(err, model.ErrTooFewNodeCounts) {
				reason = skipReason(j.Job, err)
			}
			err = &model.InputError{File: j.file, Err: fmt.Errorf("line %d: %w", j.Line, err)}
		}
		switch {
		case err != nil && (strict || reason == ""):
			return nil, err
		case err != nil:
			first = cmp.Or(first, err)
			out.Skipped = append(out.Skipped, Skipped{Job: j.Job, File: j.file, Line: j.Line, Reason: reason})
		default:
			out.Results = append(out.Results, res)
			out.Workload.Jobs = append(out.Workload.Jobs, res.Job)
		}
	}
	if len(out.Results) == 0 {
		return nil, first
	}
	return out, nil
}

// withShape is s recording shape in the fitted job when the file gave
// one, else s as it is.
func withShape(s *Settings, shape *model.VMShape) *Settings {
	if shape == nil {
		return s
	}
	v := Settings{}
	if s != nil {
		v = *s
	}
	v.Shape = shape
	return &v
}

// skipReason is why Analyze could not fit job: its error without the
// prefixes that name the job and the package.
func skipReason(job string, err error) string {
	if errors.Is(err, ErrTooFewNodeCounts) {
		return "its successful runs cover fewer than two node counts"
	}
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, fmt.Sprintf("job %q: ", job)); ok {
		msg = after
	}
	return strings.ReplaceAll(msg, "model: ", "")
}

// observed is one job's runs over the files and where it first appears.
type observed struct {
	JobObservations
	file string
	col  columns
}

// readObservationFiles reads every file, a job's runs in any of them
// together, jobs in the order they first appear.
func readObservationFiles(files []ObservationFile) ([]*observed, error) {
	var jobs []*observed
	byName := map[string]*observed{}
	for _, f := range files {
		js, col, err := readObservationRows(f.R, f.File)
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			if have, ok := byName[j.Job]; ok {
				if have.Shape, err = sameShape(j.Job, have.Shape, j.Shape); err != nil {
					return nil, &model.InputError{File: f.File, Err: fmt.Errorf("line %d: %w", j.Line, err)}
				}
				have.Observations = append(have.Observations, j.Observations...)
				continue
			}
			fj := &observed{JobObservations: j, file: f.File, col: col}
			byName[j.Job] = fj
			jobs = append(jobs, fj)
		}
	}
	return jobs, nil
}

// FitMeasured fits and classifies a job measured by Measure (Analyze) and
// returns it as a one-job workload named after the job and described by
// the command argv that was measured. When the successful runs cover fewer
// than two node counts, the error says how many runs succeeded and quotes
// the last failure, so a profile where everything failed says why.
func FitMeasured(job string, argv []string, obs []model.Observation, s *Settings) (*model.Workload, *Result, error) {
	res, err := Analyze(job, obs, s)
	if err != nil {
		if errors.Is(err, ErrTooFewNodeCounts) {
			ok := 0
			for _, o := range obs {
				if !o.Failed {
					ok++
				}
			}
			return nil, nil, fmt.Errorf("profile %s: %d of %d runs succeeded, at fewer than two distinct node counts: nothing to fit, nothing written%s", job, ok, len(obs), lastFailure(obs))
		}
		return nil, nil, fmt.Errorf("profile %s: %w", job, err)
	}
	w := &model.Workload{Name: job, Description: "profiled by packer profile: " + strings.Join(argv, " ")}
	w.Jobs = []model.Job{res.Job}
	return w, res, nil
}

// lastFailure quotes the last failed run.
func lastFailure(obs []model.Observation) string {
	for i := len(obs) - 1; i >= 0; i-- {
		if obs[i].Failed {
			return fmt.Sprintf("; the last failed run (%d nodes): %s", obs[i].Nodes, obs[i].Error)
		}
	}
	return ""
}
