package profile

import (
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// A profile records the VM shape it was measured on, and a plan reads it
// back from the profile's file as it was written.
func TestProfileRecordsShapeRoundTrip(t *testing.T) {
	obs := []model.Observation{{Nodes: 2, Seconds: 40}, {Nodes: 4, Seconds: 21}, {Nodes: 8, Seconds: 11}}
	shape := &model.VMShape{VCPUs: 2, MemoryMiB: 2730}
	w, _, err := FitMeasured("sort", []string{"./sort.sh"}, obs, &Settings{Shape: shape})
	if err != nil {
		t.Fatal(err)
	}
	shape.VCPUs = 64 // the caller's value, changed after: the job keeps its own
	b, err := w.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"vm_shape": {`) {
		t.Fatalf("profile has no vm_shape:\n%s", b)
	}
	back, err := model.ParseWorkload(b, "sort.json")
	if err != nil {
		t.Fatal(err)
	}
	got := back.Jobs[0].Shape
	if got == nil || *got != (model.VMShape{VCPUs: 2, MemoryMiB: 2730}) {
		t.Fatalf("shape read back = %+v, want 2 vCPUs and 2730 MiB", got)
	}
	// The paper's cluster has VMs of that shape: no note.
	if notes := model.ShapeNotes(back.Jobs, model.PaperCluster()); len(notes) != 0 {
		t.Fatalf("notes on a matching shape: %q", notes)
	}

	// Without a shape, none is written: the file is as before.
	w, _, err = FitMeasured("sort", nil, obs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := w.MarshalIndent(); w.Jobs[0].Shape != nil || strings.Contains(string(b), "vm_shape") {
		t.Fatalf("a profile without a shape records one:\n%s", b)
	}
}

func TestProfileRefusesImplausibleShape(t *testing.T) {
	obs := []model.Observation{{Nodes: 2, Seconds: 40}, {Nodes: 4, Seconds: 21}}
	_, _, err := FitMeasured("sort", nil, obs, &Settings{Shape: &model.VMShape{VCPUs: 0}})
	if err == nil || !strings.Contains(err.Error(), "vm_shape: vcpus must be between 1 and 4096, got 0") {
		t.Fatalf("FitMeasured with 0 vCPUs: %v", err)
	}
}
