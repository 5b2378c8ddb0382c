package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Model predicts a job's runtime when it runs alone. The packing paper
// (Aboulnaga et al., CloudDB 2009, section 4) calls its power law "one of many
// possible statistical models": every consumer of runtimes (solvers, LP
// export, placement, simulator, charts) reads a job through this interface,
// and only model/ knows the forms.
type Model interface {
	// Seconds is the predicted wall time on n VMs; it is 0 for n ≤ 0 (a job
	// with no VMs in a phase takes no time in it).
	Seconds(n int) float64
	// Kind names the form, as the workload file's "kind" does.
	Kind() Kind
	// Validate reports parameters that cannot describe a runtime; the
	// message names the field (model.a, model.theta, …).
	Validate() error
	// String shows the fitted formula for people.
	String() string
}

// Kind names a form of runtime model.
type Kind string

// The forms packer fits. Their order is the order of preference when two
// forms predict equally well: fewer parameters first, the power law first of
// all since the planners were designed around it.
const (
	// KindPower is F(n) = a·n^b (PowerLaw).
	KindPower Kind = "power"
	// KindAmdahl is F(n) = a + c/n (Amdahl).
	KindAmdahl Kind = "amdahl"
	// KindErnest is F(n) = θ0 + θ1/n + θ2·ln n + θ3·n (Ernest).
	KindErnest Kind = "ernest"
	// KindTable is a measured table with monotone interpolation (Table).
	KindTable Kind = "table"
)

// Kinds lists every form in order of preference; flags, help and "unknown
// form" errors come from this one list.
var Kinds = []Kind{KindPower, KindAmdahl, KindErnest, KindTable}

// ParseKind reads a form's name, case-insensitively.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Kinds, k) {
		return k, nil
	}
	return "", fmt.Errorf("model: unknown model form %q (want one of %s)", s, KindNames())
}

// KindNames joins the forms' names for help texts: "power, amdahl, ernest, table".
func KindNames() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// modelJSON is every form's fields in a workload file. A model without
// "kind" is the power law, so that files written before other forms existed
// read exactly as they did. Pointers tell a missing number from a zero.
type modelJSON struct {
	Kind    string    `json:"kind,omitempty"`
	A       *float64  `json:"a,omitempty"`
	B       *float64  `json:"b,omitempty"`
	C       *float64  `json:"c,omitempty"`
	Theta   []float64 `json:"theta,omitempty"`
	Nodes   []int     `json:"nodes,omitempty"`
	Seconds []float64 `json:"seconds,omitempty"`
}

// model builds the form the fields name. It checks presence and shape only;
// Validate checks the values.
func (m modelJSON) model() (Model, error) {
	// both returns the two parameters of a two-parameter form, or names the
	// first that is missing.
	both := func(formula, xName, yName string, x, y *float64) (float64, float64, error) {
		switch {
		case x == nil:
			return 0, 0, fmt.Errorf("model.%s is missing (%s needs both)", xName, formula)
		case y == nil:
			return 0, 0, fmt.Errorf("model.%s is missing (%s needs both)", yName, formula)
		}
		return *x, *y, nil
	}
	kind := KindPower
	if m.Kind != "" {
		k, err := ParseKind(m.Kind)
		if err != nil {
			return nil, fmt.Errorf("model.kind: unknown form %q (want one of %s)", m.Kind, KindNames())
		}
		kind = k
	}
	switch kind {
	case KindPower:
		a, b, err := both("F(n) = a·n^b", "a", "b", m.A, m.B)
		return PowerLaw{A: a, B: b}, err
	case KindAmdahl:
		a, c, err := both("F(n) = a + c/n", "a", "c", m.A, m.C)
		return Amdahl{A: a, C: c}, err
	case KindErnest:
		if len(m.Theta) != len(Ernest{}.Theta) {
			return nil, fmt.Errorf("model.theta must hold 4 numbers (θ0 + θ1/n + θ2·ln n + θ3·n), got %d", len(m.Theta))
		}
		var e Ernest
		copy(e.Theta[:], m.Theta)
		return e, nil
	}
	if len(m.Nodes) != len(m.Seconds) {
		return nil, fmt.Errorf("model.nodes has %d entries but model.seconds %d", len(m.Nodes), len(m.Seconds))
	}
	return &Table{Nodes: slices.Clone(m.Nodes), Times: slices.Clone(m.Seconds)}, nil
}

// ParseModel reads one model object of a workload file: {"a": …, "b": …} is
// the power law, other forms are named by "kind". The model is validated.
func ParseModel(data []byte) (Model, error) {
	var m modelJSON
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	mod, err := m.model()
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if err := mod.Validate(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return mod, nil
}

// jobAlias is Job without its methods, so that jobJSON can embed it without
// recursing into Job.UnmarshalJSON.
type jobAlias Job

// jobJSON reads a job: its own "model" field, being shallower, shadows the
// embedded one, so the model decodes as plain fields and encoding/json's
// errors keep their full path (jobs.model.a) and offset.
type jobJSON struct {
	jobAlias
	Model modelJSON `json:"model"`
}

// job builds the Job; it checks the model's fields are present, not valid.
func (j jobJSON) job() (Job, error) {
	out := Job(j.jobAlias)
	m, err := j.Model.model()
	if err != nil {
		return out, err
	}
	out.Model = m
	return out, nil
}

// UnmarshalJSON reads a job of a workload or plan file; see Workload for the
// model's forms. A model with a field missing is an error, since encoding/json
// would read it as 0 and plan a job that never speeds up without a word.
func (j *Job) UnmarshalJSON(data []byte) error {
	var raw jobJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	job, err := raw.job()
	if err != nil {
		return fmt.Errorf("job %q: %w", raw.Name, err)
	}
	*j = job
	return nil
}
