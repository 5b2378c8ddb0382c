package model

import (
	"fmt"
	"strings"
)

// Job is one batch job of a workload: its runtime model and its resource class.
// A job can be CPU-intensive, I/O-intensive, both or neither; only a job that is
// exactly one of the two can take part in overcommitting (Aboulnaga et al., Packing the Most Onto Your Cloud, CloudDB 2009, section 5.2).
type Job struct {
	Name string `json:"name"`
	// Model predicts the job's runtime alone on n VMs: a PowerLaw unless the
	// file names another form (see Workload).
	Model        Model `json:"model"`
	CPUIntensive bool  `json:"cpu_intensive"`
	IOIntensive  bool  `json:"io_intensive"`
	// Description says what the job is, for people; optional.
	Description string `json:"description,omitempty"`
	// Range is the span of VM counts the model was measured on, when known.
	// A plan that gives the job a VM count outside it is an extrapolation.
	Range *NodeRange `json:"measured_range,omitempty"`
	// Shape is the VM shape (vCPUs, memory) the model was measured on, when
	// known: F(n) holds for n VMs of this shape (ShapeNotes, CheckShapes).
	Shape *VMShape `json:"vm_shape,omitempty"`
	// Profile records the measurements and fit the model and class came
	// from, when the job was profiled (packer profile, packer fit).
	Profile *Profile `json:"profile,omitempty"`
	// Run says what the job's VMs run when packer apply deploys it; nil
	// leaves that to the appliance.
	Run *RunSpec `json:"run,omitempty"`
}

// NodeRange is an inclusive range of VM counts.
type NodeRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Contains reports whether n lies within the range.
func (r NodeRange) Contains(n int) bool { return n >= r.Min && n <= r.Max }

// Seconds is the job's predicted runtime alone on n VMs.
func (j Job) Seconds(n int) float64 { return j.Model.Seconds(n) }

// Extrapolated reports whether n VMs lies outside the job's measured range; a
// job with no recorded range is never reported as extrapolated.
func (j Job) Extrapolated(n int) bool { return j.Range != nil && !j.Range.Contains(n) }

// CanHost reports whether the job may carry extra VMs beside its own: it must
// be I/O-intensive and not CPU-intensive, leaving CPU to spare.
func (j Job) CanHost() bool { return j.IOIntensive && !j.CPUIntensive }

// CanBeExtra reports whether the job may run on extra (overcommitted) VMs: it
// must be CPU-intensive and not I/O-intensive, since extra VMs have no disk of
// their own.
func (j Job) CanBeExtra() bool { return j.CPUIntensive && !j.IOIntensive }

// Class names the job's class for tables: "cpu", "io", "cpu+io" or "-".
func (j Job) Class() string {
	switch {
	case j.CPUIntensive && j.IOIntensive:
		return "cpu+io"
	case j.CPUIntensive:
		return "cpu"
	case j.IOIntensive:
		return "io"
	}
	return "-"
}

// Validate checks one job; errors name the job and the field.
func (j Job) Validate() error {
	if strings.TrimSpace(j.Name) == "" {
		return fmt.Errorf("job name is empty")
	}
	if j.Model == nil {
		return fmt.Errorf("job %q: model is missing", j.Name)
	}
	if err := j.Model.Validate(); err != nil {
		return fmt.Errorf("job %q: %w", j.Name, err)
	}
	if r := j.Range; r != nil && (r.Min < 1 || r.Max < r.Min || r.Max > MaxPrimaryVMs) {
		return fmt.Errorf("job %q: measured_range must have 1 ≤ min ≤ max ≤ %d, got [%d, %d]", j.Name, MaxPrimaryVMs, r.Min, r.Max)
	}
	if j.Shape != nil {
		if err := j.Shape.Validate(); err != nil {
			return fmt.Errorf("job %q: %w", j.Name, err)
		}
	}
	if j.Run != nil {
		if err := j.Run.Validate(); err != nil {
			return fmt.Errorf("job %q: %w", j.Name, err)
		}
	}
	return nil
}
