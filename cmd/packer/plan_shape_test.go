package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/plan"
)

// shapeWorkload writes two jobs measured on VMs of the given shapes (a JSON
// object, or "" for none) and returns its path.
func shapeWorkload(t *testing.T, a, b string) string {
	t.Helper()
	job := func(name, shape string) string {
		s := `{"name": "` + name + `", "model": {"a": 1000, "b": -0.6}, "cpu_intensive": true, "io_intensive": false`
		if shape != "" {
			s += `, "vm_shape": ` + shape
		}
		return s + "}"
	}
	path := filepath.Join(t.TempDir(), "shape.json")
	if err := os.WriteFile(path, []byte(`{"name": "shape", "jobs": [`+job("a", a)+", "+job("b", b)+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPlanVMShape: on the default cluster (4 cores, 8192 MiB, k = r = 2)
// each VM has 2 vCPUs and 8192/3 = 2730 MiB. A job measured on that shape
// gets no note; one measured on other VMs gets one note naming it and both
// shapes, and --strict-shape refuses the plan with exit 2 and one line.
func TestPlanVMShape(t *testing.T) {
	same := `{"vcpus": 2, "memory_mib": 2730}`
	cases := []struct {
		name, a, b string
		cores      string
		want       []string // substrings of the shape notes, in order
	}{
		{"matching", same, same, "4", nil},
		{"differing vCPUs", same, same, "64", []string{
			"job a was measured on VMs of 2 vCPUs and 2730 MiB, this plan's VMs have 32 vCPUs and 2730 MiB",
			"job b was measured on VMs of 2 vCPUs and 2730 MiB, this plan's VMs have 32 vCPUs and 2730 MiB"}},
		{"differing memory", `{"vcpus": 2, "memory_mib": 4096}`, same, "4", []string{
			"job a was measured on VMs of 2 vCPUs and 4096 MiB, this plan's VMs have 2 vCPUs and 2730 MiB"}},
		{"missing", "", "", "4", []string{"VM shape unchecked: no job records"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"plan", "-w", shapeWorkload(t, tc.a, tc.b), "-a", "exact", "--cores", tc.cores, "--format", "json"}
			code, out, errs := packer(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			pl, err := plan.Parse([]byte(out), "stdout")
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, n := range pl.Notes {
				if strings.HasPrefix(n, "VM shape") {
					notes = append(notes, n)
				}
			}
			if len(notes) != len(tc.want) {
				t.Fatalf("shape notes %q, want %d", notes, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(notes[i], w) {
					t.Errorf("note %q, want %q", notes[i], w)
				}
			}
			code, out, errs = packer(t, "", append(args, "--strict-shape")...)
			mismatch := len(tc.want) > 0 && tc.a != ""
			switch {
			case !mismatch && code != 0:
				t.Errorf("--strict-shape refused a plan with no differing shape: exit %d: %s", code, errs)
			case mismatch && (code != 2 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 ||
				!strings.Contains(errs, "--strict-shape: ") || !strings.Contains(errs, "job a was measured on VMs of")):
				t.Errorf("--strict-shape: exit %d, stdout %q, stderr %q: want exit 2 and one line naming job a", code, out, errs)
			}
		})
	}
}
