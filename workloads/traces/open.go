package traces

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads"
)

// OpenForSimulation resolves a workload argument for the simulator: a
// built-in name (builtin is then true) or a packer workload file gives the
// jobs and their models (jobs); a simulation workload file (what the
// importers write) gives the tasks (tasks). "-" reads in; a name is a file
// if such a file exists or it looks like a path.
func OpenForSimulation(name string, in io.Reader) (tasks *sim.Workload, jobs *model.Workload, builtin bool, err error) {
	_, statErr := os.Stat(name)
	if name != "-" && statErr != nil && !strings.ContainsAny(name, `/\`) && !strings.HasSuffix(name, ".json") {
		jobs, err = workloads.Get(name)
		return nil, jobs, true, err
	}
	data, name, err := model.ReadInput(name, in)
	if err != nil {
		return nil, nil, false, err
	}
	data = model.TrimBOM(data)
	if err := model.WrongFile(data, model.FileWorkload, model.FileSimWorkload); err != nil {
		return nil, nil, false, &model.InputError{File: name, Err: err}
	}
	if sim.IsModelWorkload(data) {
		jobs, err = model.ParseWorkload(data, name)
		return nil, jobs, false, err
	}
	// A misspelt field is named before the checks it would make fail (a
	// "maen" leaves mean 0, which is refused as such).
	if err := checkSimFields(data); err != nil {
		return nil, nil, false, &model.InputError{File: name, Err: fmt.Errorf("%w: %w", sim.ErrInvalidWorkload, err)}
	}
	tasks, err = sim.ParseWorkload(data, name)
	return tasks, nil, false, err
}
