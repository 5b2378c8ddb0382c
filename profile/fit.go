package profile

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/packer-sched/packer/model"
)

// FitObservations reads an observations file (ReadObservations) and fits
// and classifies every job in it (Analyze). It returns the workload of the
// fitted jobs, named name or, when name is empty, after the file (its base
// name without extension), and each job's Result in the same order. Errors
// are *model.InputError naming the file and, for a job that cannot be
// fitted, the line of its first run.
func FitObservations(r io.Reader, file, name string, s *Settings) (*model.Workload, []*Result, error) {
	return FitObservationFiles([]ObservationFile{{R: r, File: file}}, name, s)
}

// ObservationFile is one observations file to read: its contents and its
// name for messages.
type ObservationFile struct {
	R    io.Reader
	File string
}

// FitObservationFiles is FitObservations over several files read as one:
// a job's runs in any of them are fitted together (the runs a profile
// measured and those packer apply recorded, say), jobs in the order they
// first appear. name defaults to the first file's.
func FitObservationFiles(files []ObservationFile, name string, s *Settings) (*model.Workload, []*Result, error) {
	if len(files) == 0 {
		return nil, nil, errors.New("profile: no observations file")
	}
	type found struct {
		JobObservations
		file string
		col  columns
	}
	var jobs []*found
	byName := map[string]*found{}
	for _, f := range files {
		js, col, err := readObservationRows(f.R, f.File)
		if err != nil {
			return nil, nil, err
		}
		for _, j := range js {
			if have, ok := byName[j.Job]; ok {
				have.Observations = append(have.Observations, j.Observations...)
				continue
			}
			fj := &found{JobObservations: j, file: f.File, col: col}
			byName[j.Job] = fj
			jobs = append(jobs, fj)
		}
	}
	// A job's node counts are counted over all the files: one VM count in
	// each of two files is two.
	for _, j := range jobs {
		if err := j.col.checkNodeCounts([]JobObservations{j.JobObservations}); err != nil {
			return nil, nil, &model.InputError{File: j.file, Err: err}
		}
	}
	file := files[0].File
	if name == "" {
		base := filepath.Base(file)
		name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	from := file
	for _, f := range files[1:] {
		from += ", " + f.File
	}
	w := &model.Workload{Name: name, Description: "fitted by packer fit from " + from}
	var results []*Result
	for _, j := range jobs {
		res, err := Analyze(j.Job, j.Observations, s)
		if err != nil {
			return nil, nil, &model.InputError{File: j.file, Err: fmt.Errorf("line %d: %w", j.Line, err)}
		}
		results = append(results, res)
		w.Jobs = append(w.Jobs, res.Job)
	}
	return w, results, nil
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
