package workloads

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/packer-sched/packer/model"
)

// A Merger joins workloads, typically several profiles and built-in sets,
// into one workload to plan: every job in order, every field kept. Job names
// must be unique across the inputs. The zero value is an empty merge.
type Merger struct {
	jobs  []model.Job
	names []string
	from  map[string]string // job name → the source it came from
}

// Add appends w's jobs. source names w in errors (its file, or its
// built-in name); a job name already added is an error naming both sources.
func (m *Merger) Add(w *model.Workload, source string) error {
	if m.from == nil {
		m.from = map[string]string{}
	}
	for _, j := range w.Jobs {
		if prev, dup := m.from[j.Name]; dup {
			return fmt.Errorf("%s: job %q is also in %s; job names must be unique in a workload (rename one)", source, j.Name, prev)
		}
		m.from[j.Name] = source
	}
	m.jobs = append(m.jobs, w.Jobs...)
	m.names = append(m.names, w.Name)
	return nil
}

// Workload returns the merged, validated workload, named name or, when name
// is empty, the inputs' names joined by +.
func (m *Merger) Workload(name, description string) (*model.Workload, error) {
	if name == "" {
		name = strings.Join(m.names, "+")
	}
	w := &model.Workload{Name: name, Description: description, Jobs: m.jobs}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// Open resolves a workload argument as the command line takes one: the
// workload file at the path name ("-" reads stdin) when such a file exists
// or name looks like a path (it has a / or \, or ends in .json), else the
// built-in workload of that name. builtin says which it tried, so that a
// caller can word a failed look-up of a built-in name.
func Open(name string, stdin io.Reader) (w *model.Workload, builtin bool, err error) {
	_, statErr := os.Stat(name)
	if name == "-" || statErr == nil || strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".json") {
		w, err := model.ReadWorkloadFile(name, stdin)
		return w, false, err
	}
	w, err = Get(name)
	return w, true, err
}
