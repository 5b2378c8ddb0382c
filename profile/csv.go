package profile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
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
	// Shape is the VM shape the runs were on, when the file has the
	// columns vcpus (and memory_mib); nil otherwise.
	Shape *model.VMShape
}

// Observation file columns. job, nodes and seconds are required; the others
// are optional, and an empty cell in an optional column means "not measured".
const (
	colJob     = "job"
	colNodes   = "nodes"
	colSeconds = "seconds"
	colCPU     = "cpu_util"
	colIO      = "io_mbps"
	colVCPUs   = "vcpus"
	colMemory  = "memory_mib"
)

// runColumns are those WriteObservations writes; knownColumns add the VM
// shape a file may give (one per job).
var (
	runColumns   = []string{colJob, colNodes, colSeconds, colCPU, colIO}
	knownColumns = append(slices.Clone(runColumns), colVCPUs, colMemory)
)

// ReadObservations reads an observations file: CSV with a header naming the
// columns job, nodes, seconds and optionally cpu_util (0–1), io_mbps and the
// VM shape, vcpus and memory_mib (one shape per job), in any
// order, one run per row, any number of jobs. Jobs come back in the order of
// their first row. Every error is an *model.InputError naming file, line and
// column: a missing or unknown column, a non-numeric value, nodes not a
// positive integer, seconds not positive, cpu_util outside [0, 1], a negative
// io_mbps, or a job measured at a single node count (no power law can be
// fitted through one x value).
func ReadObservations(r io.Reader, file string) ([]JobObservations, error) {
	jobs, col, err := readObservationRows(r, file)
	if err != nil {
		return nil, err
	}
	if err := col.checkNodeCounts(jobs); err != nil {
		return nil, &model.InputError{File: file, Err: err}
	}
	return jobs, nil
}

// MaxObservationsBytes is the largest observations file packer fit reads:
// 256 MiB, millions of runs, far more than any job history holds; and
// MaxObservationLine its longest line, 64 KiB, hundreds of times a run's.
const (
	MaxObservationsBytes = 256 << 20
	MaxObservationLine   = 64 << 10
)

// lineLimit fails a read once a line runs past MaxObservationLine bytes.
type lineLimit struct {
	r   io.Reader
	run int // bytes since the last line end
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			l.run = 0
		} else if l.run++; l.run > MaxObservationLine {
			return 0, fmt.Errorf("%w: a line of an observations file may be at most %d KiB", model.ErrTooLarge, MaxObservationLine>>10)
		}
	}
	return n, err
}

// readObservationRows is ReadObservations without the check of node
// counts, which FitObservationFiles makes over all its files together.
func readObservationRows(r io.Reader, file string) ([]JobObservations, columns, error) {
	bad := func(err error) error { return &model.InputError{File: file, Err: err} }
	// Bounded in all and by line: /dev/zero, or a file with no line end,
	// would otherwise grow one CSV record until memory ran out.
	r = &lineLimit{r: model.LimitReader(r, MaxObservationsBytes, "an observations file")}
	cr := csv.NewReader(model.SkipBOM(r)) // Excel's "CSV UTF-8" starts with one
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // counted below, to say how many fields were expected
	col, width, err := readHeader(cr)
	if err != nil {
		return nil, nil, bad(err)
	}
	var jobs []JobObservations
	index := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, bad(csvError(err))
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != width {
			return nil, nil, bad(fmt.Errorf("line %d: %d fields, but the header has %d", line, len(rec), width))
		}
		name, o, err := col.row(rec, line)
		if err != nil {
			return nil, nil, bad(err)
		}
		shape, err := col.shape(rec, line)
		if err != nil {
			return nil, nil, bad(err)
		}
		k, seen := index[name]
		if !seen {
			k = len(jobs)
			index[name] = k
			jobs = append(jobs, JobObservations{Job: name, Line: line})
		}
		if jobs[k].Shape, err = sameShape(name, jobs[k].Shape, shape); err != nil {
			return nil, nil, bad(fmt.Errorf("line %d: %w", line, err))
		}
		jobs[k].Observations = append(jobs[k].Observations, o)
	}
	if len(jobs) == 0 {
		return nil, nil, bad(errors.New("no observations after the header"))
	}
	return jobs, col, nil
}

// columns maps a column's name to its index in a row.
type columns map[string]int

// readHeader reads the header line: known column names, each once, the
// required ones present. width is the number of fields a row must have.
func readHeader(cr *csv.Reader) (col columns, width int, err error) {
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, 0, errors.New("the file is empty; want a header line: job,nodes,seconds[,cpu_util][,io_mbps][,vcpus][,memory_mib]")
	}
	if err != nil {
		return nil, 0, csvError(err)
	}
	col = columns{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // spreadsheets write a BOM
		}
		line, _ := cr.FieldPos(i)
		c := i + 1
		switch {
		case name == "":
			return nil, 0, fmt.Errorf("line %d, column %d: empty column name in the header", line, c)
		case !slices.Contains(knownColumns, name):
			return nil, 0, fmt.Errorf("line %d, column %d: unknown column %q (want %s)", line, c, h, strings.Join(knownColumns, ", "))
		}
		if _, dup := col[name]; dup {
			return nil, 0, fmt.Errorf("line %d, column %d: column %q appears twice", line, c, name)
		}
		col[name] = i
	}
	for _, req := range []string{colJob, colNodes, colSeconds} {
		if _, ok := col[req]; !ok {
			return nil, 0, fmt.Errorf("line 1: missing column %q (the header needs job, nodes and seconds)", req)
		}
	}
	return col, len(header), nil
}

// row parses one run: its job's name and the observation. Errors name the
// line and the column, counted from 1 as a spreadsheet shows them.
func (col columns) row(rec []string, line int) (string, model.Observation, error) {
	var o model.Observation
	field := func(name string) (string, string) {
		i := col[name]
		return strings.TrimSpace(rec[i]), fmt.Sprintf("line %d, column %d (%s)", line, i+1, name)
	}
	name, where := field(colJob)
	if name == "" {
		return "", o, fmt.Errorf("%s: empty job name", where)
	}
	v, where := field(colNodes)
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return "", o, fmt.Errorf("%s: nodes must be a positive integer, got %q", where, v)
	}
	o.Nodes = n
	v, where = field(colSeconds)
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || !(s > 0) || math.IsInf(s, 0) {
		return "", o, fmt.Errorf("%s: seconds must be a finite positive number, got %q", where, v)
	}
	o.Seconds = s
	if _, ok := col[colCPU]; ok {
		if v, where := field(colCPU); v != "" {
			u, err := strconv.ParseFloat(v, 64)
			if err != nil || !(u >= 0 && u <= 1) {
				return "", o, fmt.Errorf("%s: cpu_util must be a number from 0 to 1, got %q", where, v)
			}
			o.CPUUtil = &u
		}
	}
	if _, ok := col[colIO]; ok {
		if v, where := field(colIO); v != "" {
			m, err := strconv.ParseFloat(v, 64)
			if err != nil || !(m >= 0) || math.IsInf(m, 0) {
				return "", o, fmt.Errorf("%s: io_mbps must be a finite non-negative number, got %q", where, v)
			}
			o.IOMBps = &m
		}
	}
	return name, o, nil
}

// shape parses a run's VM shape from the optional columns vcpus and
// memory_mib: nil when the row gives no vcpus. memory_mib needs vcpus.
func (col columns) shape(rec []string, line int) (*model.VMShape, error) {
	cell := func(name string) (string, string) {
		i, ok := col[name]
		if !ok {
			return "", ""
		}
		return strings.TrimSpace(rec[i]), fmt.Sprintf("line %d, column %d (%s)", line, i+1, name)
	}
	v, where := cell(colVCPUs)
	m, mwhere := cell(colMemory)
	if v == "" {
		if m != "" {
			return nil, fmt.Errorf("%s: memory_mib needs vcpus in the same row", mwhere)
		}
		return nil, nil
	}
	var s model.VMShape
	var err error
	if s.VCPUs, err = strconv.Atoi(v); err != nil || s.VCPUs < 1 || s.VCPUs > model.MaxCoresPerHost {
		return nil, fmt.Errorf("%s: vcpus must be an integer from 1 to %d, got %q", where, model.MaxCoresPerHost, v)
	}
	if m != "" {
		if s.MemoryMiB, err = strconv.Atoi(m); err != nil || s.MemoryMiB < 1 || s.MemoryMiB > model.MaxMemoryMiBPerHost {
			return nil, fmt.Errorf("%s: memory_mib must be an integer from 1 to %d, got %q", mwhere, model.MaxMemoryMiBPerHost, m)
		}
	}
	return &s, nil
}

// sameShape is a job's shape once a run of the given shape is added: one
// shape for all its runs that give one, else an error naming both.
func sameShape(job string, have, run *model.VMShape) (*model.VMShape, error) {
	switch {
	case run == nil:
		return have, nil
	case have == nil || *have == *run:
		return run, nil
	}
	return have, fmt.Errorf("job %s: runs on VMs of %s and of %s; a job's model holds for one VM shape (fit them as two jobs)", job, *have, *run)
}

// checkNodeCounts rejects a job measured at a single node count: no power
// law can be fitted through one x value.
func (col columns) checkNodeCounts(jobs []JobObservations) error {
	for _, j := range jobs {
		distinct := map[int]bool{}
		for _, o := range j.Observations {
			distinct[o.Nodes] = true
		}
		if len(distinct) < 2 {
			c := col[colNodes] + 1
			return fmt.Errorf("line %d, column %d (nodes): job %q is measured at a single node count (%d); a power law needs at least two", j.Line, c, j.Job, j.Observations[0].Nodes)
		}
	}
	return nil
}

// csvError renders encoding/csv's errors as "line L, column C: what".
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d, column %d: %v", pe.Line, pe.Column, pe.Err)
	}
	return err
}

// WriteObservations writes job's runs as an observations file, the form
// ReadObservations reads (failed runs left out: they were never fitted).
// A profile interrupted before two node counts were measured writes its runs
// so, rather than losing them: more rows can be added and the whole fitted
// with packer fit.
func WriteObservations(w io.Writer, job string, obs []model.Observation) error {
	cw := csv.NewWriter(w)
	cw.Write(runColumns)
	opt := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	for _, o := range obs {
		if o.Failed {
			continue
		}
		cw.Write([]string{job, strconv.Itoa(o.Nodes), strconv.FormatFloat(o.Seconds, 'g', -1, 64), opt(o.CPUUtil), opt(o.IOMBps)})
	}
	cw.Flush()
	return cw.Error()
}
