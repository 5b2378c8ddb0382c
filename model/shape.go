package model

import (
	"fmt"
	"strings"
)

// VMShape is the size of the VMs a job was measured on: a runtime model
// F(n) predicts the job on n VMs of this shape, and says nothing about VMs
// with more or fewer vCPUs or less memory.
type VMShape struct {
	// VCPUs is each VM's virtual CPUs.
	VCPUs int `json:"vcpus"`
	// MemoryMiB is each VM's memory in MiB; 0 (omitted) when not known,
	// and then only the vCPUs are compared.
	MemoryMiB int `json:"memory_mib,omitempty"`
}

// String writes the shape as notes do: "2 vCPUs and 4096 MiB".
func (s VMShape) String() string {
	v := fmt.Sprintf("%d vCPUs", s.VCPUs)
	if s.VCPUs == 1 {
		v = "1 vCPU"
	}
	if s.MemoryMiB == 0 {
		return v + " (memory not recorded)"
	}
	return fmt.Sprintf("%s and %d MiB", v, s.MemoryMiB)
}

// Validate checks the shape against the plausibility bounds: a VM has at
// least one vCPU and no more than a host's cores, and memory, when given,
// no more than a host's.
func (s VMShape) Validate() error {
	if s.VCPUs < 1 || s.VCPUs > MaxCoresPerHost {
		return fmt.Errorf("vm_shape: vcpus must be between 1 and %d, got %d", MaxCoresPerHost, s.VCPUs)
	}
	if s.MemoryMiB < 0 || s.MemoryMiB > MaxMemoryMiBPerHost {
		return fmt.Errorf("vm_shape: memory_mib must be between 1 and %d (64 TiB), or omitted, got %d", MaxMemoryMiBPerHost, s.MemoryMiB)
	}
	return nil
}

// Matches reports whether VMs of shape planned are those of s: the same
// vCPUs, and the same memory when s records it.
func (s VMShape) Matches(planned VMShape) bool {
	return s.VCPUs == planned.VCPUs && (s.MemoryMiB == 0 || s.MemoryMiB == planned.MemoryMiB)
}

// VMShape is the shape of the cluster's VMs: VCPUsPerVM and MemoryMiBPerVM.
func (c Cluster) VMShape() VMShape {
	return VMShape{VCPUs: c.VCPUsPerVM(), MemoryMiB: c.MemoryMiBPerVM()}
}

// maxUncheckedNames is the most job names a note on unchecked shapes lists.
const maxUncheckedNames = 5

// ShapeNotes are a plan's notes on the VM shapes its runtimes rest on: one
// per job measured on VMs of another shape than the cluster's, naming both,
// and one note for the jobs with no recorded shape (all of them, or which).
// A plan whose every job was measured on its VMs' shape gets none.
func ShapeNotes(jobs []Job, c Cluster) []string {
	planned := c.VMShape()
	var notes, unchecked []string
	for _, j := range jobs {
		switch {
		case j.Shape == nil:
			unchecked = append(unchecked, j.Name)
		case !j.Shape.Matches(planned):
			notes = append(notes, fmt.Sprintf("VM shape: job %s was measured on VMs of %s, this plan's VMs have %s: its runtimes assume the measured shape (--strict-shape refuses such a plan)",
				j.Name, j.Shape, planned))
		}
	}
	switch {
	case len(unchecked) == 0:
	case len(unchecked) == len(jobs):
		notes = append(notes, fmt.Sprintf("VM shape unchecked: no job records the shape (vCPUs, memory) of the VMs it was measured on (vm_shape); the runtimes hold only if those were like this plan's VMs, %s each", planned))
	default:
		names := unchecked[:min(len(unchecked), maxUncheckedNames)]
		more := ""
		if n := len(unchecked) - len(names); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		notes = append(notes, fmt.Sprintf("VM shape unchecked for %d of %d jobs, which record no vm_shape: %s%s", len(unchecked), len(jobs), strings.Join(names, ", "), more))
	}
	return notes
}

// CheckShapes returns an error naming the first job measured on VMs of
// another shape than the cluster's, and how many more there are, in one
// line; nil when every recorded shape matches. Jobs without a shape pass.
func CheckShapes(jobs []Job, c Cluster) error {
	planned := c.VMShape()
	var first *Job
	others := 0
	for i, j := range jobs {
		if j.Shape == nil || j.Shape.Matches(planned) {
			continue
		}
		if first == nil {
			first = &jobs[i]
		} else {
			others++
		}
	}
	if first == nil {
		return nil
	}
	more := ""
	if others > 0 {
		more = fmt.Sprintf(" (and %d more jobs)", others)
	}
	return fmt.Errorf("job %s was measured on VMs of %s, the cluster's VMs have %s%s: plan with --cores, --memory or --disks giving that shape, or without --strict-shape",
		first.Name, *first.Shape, planned, more)
}
