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

// packer fit records the shape when the observations file gives it: the
// columns vcpus and memory_mib, one shape per job over all its runs.
func TestFitRecordsShapeFromColumns(t *testing.T) {
	csv := "job,nodes,seconds,vcpus,memory_mib\n" +
		"sort,2,40,2,4096\nsort,4,21,2,4096\n" +
		"grep,2,30,4,\ngrep,4,16,4,\n" +
		"wc,2,10,,\nwc,4,6,,\n"
	f, err := FitObservations(strings.NewReader(csv), "runs.csv", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*model.VMShape{"sort": {VCPUs: 2, MemoryMiB: 4096}, "grep": {VCPUs: 4}, "wc": nil}
	for _, j := range f.Workload.Jobs {
		w := want[j.Name]
		if (j.Shape == nil) != (w == nil) || w != nil && *j.Shape != *w {
			t.Errorf("job %s: shape %+v, want %+v", j.Name, j.Shape, w)
		}
	}
	if len(f.Workload.Jobs) != 3 {
		t.Fatalf("%d jobs fitted, want 3", len(f.Workload.Jobs))
	}
}

func TestFitShapeColumnsBadInput(t *testing.T) {
	for _, tc := range []struct{ csv, want string }{
		{"job,nodes,seconds,vcpus\nsort,2,40,2\nsort,4,21,4\n",
			"runs.csv: line 3: job sort: runs on VMs of 2 vCPUs (memory not recorded) and of 4 vCPUs (memory not recorded)"},
		{"job,nodes,seconds,vcpus,memory_mib\nsort,2,40,,512\n", "runs.csv: line 2, column 5 (memory_mib): memory_mib needs vcpus"},
		{"job,nodes,seconds,vcpus\nsort,2,40,0\n", `runs.csv: line 2, column 4 (vcpus): vcpus must be an integer from 1 to 4096, got "0"`},
		{"job,nodes,seconds,vcpus,memory_mib\nsort,2,40,2,1e12\n", `line 2, column 5 (memory_mib): memory_mib must be an integer from 1 to 67108864, got "1e12"`},
	} {
		_, err := FitObservations(strings.NewReader(tc.csv), "runs.csv", "", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line containing %q", tc.csv, err, tc.want)
		}
	}
	// Across files, too.
	_, err := FitObservationFiles([]ObservationFile{
		{R: strings.NewReader("job,nodes,seconds,vcpus\nsort,2,40,2\n"), File: "a.csv"},
		{R: strings.NewReader("job,nodes,seconds,vcpus\nsort,4,21,8\n"), File: "b.csv"},
	}, "", nil)
	if err == nil || !strings.Contains(err.Error(), "b.csv: line 2: job sort: runs on VMs of 2 vCPUs") {
		t.Errorf("two files, two shapes: %v", err)
	}
}
