package traces

import (
	"encoding/json"
	"fmt"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
)

// checkSimFields refuses a simulation workload file with a misspelt field
// (model.CheckFields) at the top, in the cluster, in a job or in a job's
// maps or reduces: "reduce_slot": 4 would otherwise leave the default of 1
// without a word. Other unknown fields stay allowed.
func checkSimFields(data []byte) error {
	top, err := model.CheckFields(data, "", model.FieldNames(sim.Workload{}))
	if err != nil {
		return err
	}
	if c, ok := top["cluster"]; ok {
		if _, err := model.CheckFields(c, "cluster", model.FieldNames(sim.Cluster{})); err != nil {
			return err
		}
	}
	// One decoding of the jobs, their fields checked as maps: a day's
	// trace has tens of thousands.
	var jobs []map[string]json.RawMessage
	if json.Unmarshal(top["jobs"], &jobs) != nil {
		return nil
	}
	jobFields, taskFields := model.FieldNames(sim.Job{}), model.FieldNames(sim.Tasks{})
	for i, job := range jobs {
		at := fmt.Sprintf("jobs[%d]", i)
		if err := model.CheckFieldMap(job, at, jobFields); err != nil {
			return err
		}
		for _, f := range []string{"maps", "reduces"} {
			if t, ok := job[f]; ok {
				if _, err := model.CheckFields(t, at+"."+f, taskFields); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
