package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"
)

// Workload is a named job set: the contract between packer's tools. Its JSON
// form is the workload file, for example
//
//	{"name": "W1", "jobs": [{"name": "s-srt-1", "model": {"a": 1500.0, "b": -0.55},
//	  "cpu_intensive": false, "io_intensive": true}]}
//
// A model without "kind" is the power law a·n^b. Other forms are named:
//
//	{"kind": "amdahl", "a": 20, "c": 600}                      a + c/n
//	{"kind": "ernest", "theta": [20, 600, 3, 0.5]}             θ0 + θ1/n + θ2·ln n + θ3·n
//	{"kind": "table", "nodes": [2, 4, 8], "seconds": [300, 160, 95]}
//
// Fields packer does not know are allowed and ignored, so other tools (the
// profiler among them) may write more; one that looks like a misspelt known
// field is refused (CheckFields).
type Workload struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Jobs        []Job  `json:"jobs"`
}

// ErrInvalidWorkload is wrapped by every error about a workload's content, so
// callers can tell bad input from failures of their own.
var ErrInvalidWorkload = errors.New("invalid workload")

// InputError is bad input: a file that cannot be read as what it should be.
// Its message names the file and, where there is one, the place in it.
type InputError struct {
	File string // file name as given, or "<stdin>"
	Err  error
}

func (e *InputError) Error() string {
	if e.File == "" { // never "packer: : …"
		return `"": ` + e.Err.Error()
	}
	return e.File + ": " + e.Err.Error()
}
func (e *InputError) Unwrap() error { return e.Err }

// Validate checks every job and that names are unique and the set is not empty.
func (w *Workload) Validate() error {
	if len(w.Jobs) == 0 {
		return fmt.Errorf("%w: jobs: the workload has no jobs", ErrInvalidWorkload)
	}
	if strings.IndexFunc(w.Name, unicode.IsControl) >= 0 {
		return fmt.Errorf("%w: name: %q holds a control character", ErrInvalidWorkload, w.Name)
	}
	seen := make(map[string]int, len(w.Jobs))
	for i, j := range w.Jobs {
		if err := j.Validate(); err != nil {
			return fmt.Errorf("%w: jobs[%d]: %w", ErrInvalidWorkload, i, err)
		}
		if strings.IndexFunc(j.Name, unicode.IsControl) >= 0 {
			return fmt.Errorf("%w: jobs[%d]: name: %q holds a control character", ErrInvalidWorkload, i, j.Name)
		}
		if k, dup := seen[j.Name]; dup {
			return fmt.Errorf("%w: jobs[%d]: job name %q is already used by jobs[%d]", ErrInvalidWorkload, i, j.Name, k)
		}
		seen[j.Name] = i
	}
	return nil
}

// ParseWorkload decodes and validates a workload file's bytes. name is used in
// error messages (a file path, or "<stdin>"). A workload without a name is
// named after the file.
func ParseWorkload(data []byte, name string) (*Workload, error) {
	data = TrimBOM(data)
	if err := WrongFile(data, FileWorkload); err != nil {
		return nil, &InputError{File: name, Err: err}
	}
	w, err := decodeWorkload(data)
	if err != nil {
		return nil, &InputError{File: name, Err: err}
	}
	if err := w.Validate(); err != nil {
		return nil, &InputError{File: name, Err: err}
	}
	if w.Name == "" {
		base := filepath.Base(name)
		w.Name = base[:len(base)-len(filepath.Ext(base))]
	}
	return w, nil
}

// ReadWorkloadFile reads and validates a workload file; "-" reads standard input.
func ReadWorkloadFile(path string, stdin io.Reader) (*Workload, error) {
	data, name, err := ReadInput(path, stdin)
	if err != nil {
		return nil, err
	}
	return ParseWorkload(data, name)
}

// ReadInput reads the workload file at path, or stdin for "-", and returns
// its bytes and its name for messages ("<stdin>" for "-"); a failure, one of
// more than MaxWorkloadBytes included, is an *InputError naming it.
func ReadInput(path string, stdin io.Reader) (data []byte, name string, err error) {
	const kind = "a workload file"
	if path != "-" {
		data, err = ReadFileLimit(path, MaxWorkloadBytes, kind)
		return data, path, err
	}
	name = "<stdin>"
	if data, err = ReadAllLimit(stdin, MaxWorkloadBytes, kind); err != nil {
		return nil, name, &InputError{File: name, Err: err}
	}
	return data, name, nil
}

// MarshalIndent returns the workload as an indented workload file, ending in a
// newline.
func (w *Workload) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// jsonError turns encoding/json's errors into ones that say where, in lines and
// columns, and which field.
func jsonError(data []byte, err error) error { return JSONError(data, err, ErrInvalidWorkload) }

// JSONError rewrites an error from decoding data with encoding/json so that it
// says where (line and column) and which field, wrapped in kind (a sentinel
// such as ErrInvalidWorkload). Every JSON reader of packer's shares it, so
// that all of them report bad input alike.
func JSONError(data []byte, err error, kind error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%w: malformed JSON at %s: %v", kind, JSONPosition(data, syn.Offset), syn)
	case errors.As(err, &typ) && typ.Field == "":
		return fmt.Errorf("%w: expected a JSON object, got JSON %s at %s", kind, typ.Value, JSONPosition(data, typ.Offset))
	case errors.As(err, &typ):
		return fmt.Errorf("%w: field %s at %s: expected %v, got JSON %s", kind, typ.Field, JSONPosition(data, typ.Offset), typ.Type, typ.Value)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the file is empty", kind)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: malformed JSON: unexpected end of file", kind)
	}
	return fmt.Errorf("%w: %v", kind, strings.TrimPrefix(err.Error(), "json: "))
}

// JSONPosition renders a byte offset into data as "line L, column C" (both
// from 1).
func JSONPosition(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// workloadAlias is Workload without methods, for workloadJSON.
type workloadAlias Workload

// workloadJSON reads a workload file with every job's model as plain fields,
// so that the decoder's errors name the field and the line in the whole file.
type workloadJSON struct {
	workloadAlias
	Jobs []jobJSON `json:"jobs"`
}

// decodeWorkload decodes a workload file's bytes without validating values.
// A model whose fields are missing is an error (see Job.UnmarshalJSON).
func decodeWorkload(data []byte) (*Workload, error) {
	var raw workloadJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, jsonError(data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the workload object at %s", ErrInvalidWorkload, JSONPosition(data, dec.InputOffset()))
	}
	if err := checkWorkloadFields(data); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidWorkload, err)
	}
	w := Workload(raw.workloadAlias)
	w.Jobs = make([]Job, len(raw.Jobs))
	if raw.Jobs == nil {
		w.Jobs = nil
	}
	for i, rj := range raw.Jobs {
		j, err := rj.job()
		if err != nil {
			return nil, fmt.Errorf("%w: jobs[%d]: job %q: %w", ErrInvalidWorkload, i, rj.Name, err)
		}
		w.Jobs[i] = j
	}
	return &w, nil
}
