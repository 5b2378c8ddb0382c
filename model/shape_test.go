package model

import (
	"strings"
	"testing"
)

// shapeJobs are three jobs measured on VMs of the given shapes (nil: none).
func shapeJobs(shapes ...*VMShape) []Job {
	var jobs []Job
	for i, s := range shapes {
		jobs = append(jobs, Job{Name: string(rune('a' + i)), Model: PowerLaw{A: 100, B: -0.5}, Shape: s})
	}
	return jobs
}

// The paper's cluster: 4 cores and 8192 MiB over k = 2 disks and one extra
// VM (r = 2), so each VM has 4/2 = 2 vCPUs and 8192/3 = 2730 MiB.
func TestShapeNotesHandWorked(t *testing.T) {
	c := PaperCluster()
	if got := c.VMShape(); got != (VMShape{VCPUs: 2, MemoryMiB: 2730}) {
		t.Fatalf("paper cluster's VM shape = %+v, want 2 vCPUs, 2730 MiB", got)
	}
	same := &VMShape{VCPUs: 2, MemoryMiB: 2730}
	cases := []struct {
		name  string
		jobs  []Job
		c     Cluster
		notes []string // substrings, one per note, in order
	}{
		{"matching shape", shapeJobs(same, same), c, nil},
		{"vcpus only recorded, matching", shapeJobs(&VMShape{VCPUs: 2}), c, nil},
		{"differing vCPUs", shapeJobs(same, &VMShape{VCPUs: 1, MemoryMiB: 2730}), c,
			[]string{"job b was measured on VMs of 1 vCPU and 2730 MiB, this plan's VMs have 2 vCPUs and 2730 MiB"}},
		{"differing memory", shapeJobs(&VMShape{VCPUs: 2, MemoryMiB: 4096}, same), c,
			[]string{"job a was measured on VMs of 2 vCPUs and 4096 MiB, this plan's VMs have 2 vCPUs and 2730 MiB"}},
		// --cores 64: 32 vCPUs per VM, where the jobs were measured on 2.
		{"--cores 64", shapeJobs(same), Cluster{Hosts: 9, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 64, MemoryMiBPerHost: 8192},
			[]string{"job a was measured on VMs of 2 vCPUs and 2730 MiB, this plan's VMs have 32 vCPUs and 2730 MiB"}},
		// --disks 4 with 4 cores: 1 vCPU per VM, 8192/(4+2) = 1365 MiB.
		{"--disks 4", shapeJobs(same), Cluster{Hosts: 9, DisksPerHost: 4, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192},
			[]string{"job a was measured on VMs of 2 vCPUs and 2730 MiB, this plan's VMs have 1 vCPU and 1365 MiB"}},
		{"missing shape, all jobs", shapeJobs(nil, nil, nil), c,
			[]string{"VM shape unchecked: no job records"}},
		{"missing shape, some jobs", shapeJobs(same, nil, &VMShape{VCPUs: 4}), c,
			[]string{"job c was measured on VMs of 4 vCPUs (memory not recorded)", "VM shape unchecked for 1 of 3 jobs, which record no vm_shape: b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			notes := ShapeNotes(tc.jobs, tc.c)
			if len(notes) != len(tc.notes) {
				t.Fatalf("%d notes, want %d: %q", len(notes), len(tc.notes), notes)
			}
			for i, want := range tc.notes {
				if !strings.Contains(notes[i], want) {
					t.Errorf("note %d = %q, want it to contain %q", i, notes[i], want)
				}
			}
			// CheckShapes refuses exactly the cases with a per-job note.
			mismatch := 0
			for _, n := range notes {
				if strings.HasPrefix(n, "VM shape: job ") {
					mismatch++
				}
			}
			if err := CheckShapes(tc.jobs, tc.c); (err != nil) != (mismatch > 0) {
				t.Fatalf("CheckShapes = %v with %d mismatched jobs", err, mismatch)
			} else if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("CheckShapes's error is not one line: %q", err)
			}
		})
	}
}

func TestShapeNotesNamesAtMostFiveUnchecked(t *testing.T) {
	shapes := make([]*VMShape, 9)
	shapes[0] = &VMShape{VCPUs: 2, MemoryMiB: 2730}
	notes := ShapeNotes(shapeJobs(shapes...), PaperCluster())
	want := "VM shape unchecked for 8 of 9 jobs, which record no vm_shape: b, c, d, e, f and 3 more"
	if len(notes) != 1 || notes[0] != want {
		t.Fatalf("notes = %q, want [%q]", notes, want)
	}
}

func TestCheckShapesCountsTheOthers(t *testing.T) {
	one := &VMShape{VCPUs: 1}
	err := CheckShapes(shapeJobs(one, nil, one, one), PaperCluster())
	want := "job a was measured on VMs of 1 vCPU (memory not recorded), the cluster's VMs have 2 vCPUs and 2730 MiB (and 2 more jobs)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("CheckShapes = %v, want it to start %q", err, want)
	}
}

func TestVMShapeValidate(t *testing.T) {
	for _, tc := range []struct {
		s    VMShape
		want string // "" for valid
	}{
		{VMShape{VCPUs: 1}, ""},
		{VMShape{VCPUs: MaxCoresPerHost, MemoryMiB: MaxMemoryMiBPerHost}, ""},
		{VMShape{VCPUs: 0, MemoryMiB: 2048}, "vm_shape: vcpus must be between 1 and 4096, got 0"},
		{VMShape{VCPUs: MaxCoresPerHost + 1}, "got 4097"},
		{VMShape{VCPUs: 2, MemoryMiB: -1}, "vm_shape: memory_mib must be between 1 and 67108864 (64 TiB), or omitted, got -1"},
		{VMShape{VCPUs: 2, MemoryMiB: MaxMemoryMiBPerHost + 1}, "got 67108865"},
	} {
		err := tc.s.Validate()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Validate = %v, want %q", tc.s, err, tc.want)
		}
	}
}

// Old workload files, without vm_shape, stay readable; a shape written is
// read back as it was.
func TestWorkloadVMShapeRoundTrip(t *testing.T) {
	old, err := ParseWorkload([]byte(`{"jobs": [{"name": "a", "model": {"a": 100, "b": -0.5}}]}`), "old.json")
	if err != nil || old.Jobs[0].Shape != nil {
		t.Fatalf("old file: %v, shape %v", err, old.Jobs[0].Shape)
	}
	w, err := ParseWorkload([]byte(`{"jobs": [{"name": "a", "model": {"a": 100, "b": -0.5}, "vm_shape": {"vcpus": 2, "memory_mib": 4096}}]}`), "new.json")
	if err != nil {
		t.Fatal(err)
	}
	if s := w.Jobs[0].Shape; s == nil || *s != (VMShape{VCPUs: 2, MemoryMiB: 4096}) {
		t.Fatalf("shape read = %+v", s)
	}
	_, err = ParseWorkload([]byte(`{"jobs": [{"name": "a", "model": {"a": 100, "b": -0.5}, "vm_shape": {"vcpus": 2, "memory_mib": -5}}]}`), "bad.json")
	if err == nil || !strings.Contains(err.Error(), `bad.json: `) || !strings.Contains(err.Error(), "memory_mib") || !strings.Contains(err.Error(), "-5") {
		t.Fatalf("bad shape: %v, want one line naming file, field and value", err)
	}
}
