package profile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/model"
)

// JobObservations are one job's rows of an observations file.
type JobObservations struct {
	Job string
	// Line is the line of the job's first row, for messages.
	Line         int
	Observations []model.Observation
}

// Observation file columns. job, nodes and seconds are required; the others
// are optional, and an empty cell in an optional column means "not measured".
const (
	colJob     = "job"
	colNodes   = "nodes"
	colSeconds = "seconds"
	colCPU     = "cpu_util"
	colIO      = "io_mbps"
)

var knownColumns = []string{colJob, colNodes, colSeconds, colCPU, colIO}

// ReadObservations reads an observations file: CSV with a header naming the
// columns job, nodes, seconds and optionally cpu_util (0–1) and io_mbps, in any
// order, one run per row, any number of jobs. Jobs come back in the order of
// their first row. Every error is an *model.InputError naming file, line and
// column: a missing or unknown column, a non-numeric value, nodes not a
// positive integer, seconds not positive, cpu_util outside [0, 1], a negative
// io_mbps, or a job measured at a single node count (no power law can be
// fitted through one x value).
func ReadObservations(r io.Reader, file string) ([]JobObservations, error) {
	bad := func(format string, args ...any) error {
		return &model.InputError{File: file, Err: fmt.Errorf(format, args...)}
	}
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // counted below, to say how many fields were expected
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, bad("the file is empty; want a header line: job,nodes,seconds[,cpu_util][,io_mbps]")
	}
	if err != nil {
		return nil, bad("%v", csvError(err))
	}
	col := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // spreadsheets write a BOM
		}
		line, _ := cr.FieldPos(i)
		c := i + 1
		switch {
		case name == "":
			return nil, bad("line %d, column %d: empty column name in the header", line, c)
		case !contains(knownColumns, name):
			return nil, bad("line %d, column %d: unknown column %q (want %s)", line, c, h, strings.Join(knownColumns, ", "))
		}
		if _, dup := col[name]; dup {
			return nil, bad("line %d, column %d: column %q appears twice", line, c, name)
		}
		col[name] = i
	}
	for _, req := range []string{colJob, colNodes, colSeconds} {
		if _, ok := col[req]; !ok {
			return nil, bad("line 1: missing column %q (the header needs job, nodes and seconds)", req)
		}
	}

	var jobs []JobObservations
	index := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bad("%v", csvError(err))
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, bad("line %d: %d fields, but the header has %d", line, len(rec), len(header))
		}
		// Columns are counted in fields from 1, as a spreadsheet shows them.
		field := func(name string) (string, string) {
			i := col[name]
			return strings.TrimSpace(rec[i]), fmt.Sprintf("line %d, column %d (%s)", line, i+1, name)
		}
		name, where := field(colJob)
		if name == "" {
			return nil, bad("%s: empty job name", where)
		}
		var o model.Observation
		v, where := field(colNodes)
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, bad("%s: nodes must be a positive integer, got %q", where, v)
		}
		o.Nodes = n
		v, where = field(colSeconds)
		s, err := strconv.ParseFloat(v, 64)
		if err != nil || !(s > 0) || math.IsInf(s, 0) {
			return nil, bad("%s: seconds must be a finite positive number, got %q", where, v)
		}
		o.Seconds = s
		if _, ok := col[colCPU]; ok {
			if v, where := field(colCPU); v != "" {
				u, err := strconv.ParseFloat(v, 64)
				if err != nil || !(u >= 0 && u <= 1) {
					return nil, bad("%s: cpu_util must be a number from 0 to 1, got %q", where, v)
				}
				o.CPUUtil = &u
			}
		}
		if _, ok := col[colIO]; ok {
			if v, where := field(colIO); v != "" {
				m, err := strconv.ParseFloat(v, 64)
				if err != nil || !(m >= 0) || math.IsInf(m, 0) {
					return nil, bad("%s: io_mbps must be a finite non-negative number, got %q", where, v)
				}
				o.IOMBps = &m
			}
		}
		k, seen := index[name]
		if !seen {
			k = len(jobs)
			index[name] = k
			jobs = append(jobs, JobObservations{Job: name, Line: line})
		}
		jobs[k].Observations = append(jobs[k].Observations, o)
	}
	if len(jobs) == 0 {
		return nil, bad("no observations after the header")
	}
	for _, j := range jobs {
		distinct := map[int]bool{}
		for _, o := range j.Observations {
			distinct[o.Nodes] = true
		}
		if len(distinct) < 2 {
			c := col[colNodes] + 1
			return nil, bad("line %d, column %d (nodes): job %q is measured at a single node count (%d); a power law needs at least two", j.Line, c, j.Job, j.Observations[0].Nodes)
		}
	}
	return jobs, nil
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// csvError renders encoding/csv's errors as "line L, column C: what".
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d, column %d: %v", pe.Line, pe.Column, pe.Err)
	}
	return err
}
