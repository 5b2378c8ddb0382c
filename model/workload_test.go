package model

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseWorkload(t *testing.T) {
	src := `{"name": "W1", "jobs": [
	  {"name": "s-srt-1", "model": {"a": 1500.0, "b": -0.55}, "cpu_intensive": false, "io_intensive": true, "owner": "extra fields are allowed"},
	  {"name": "s-kmns-1", "model": {"a": 900, "b": -0.4}, "cpu_intensive": true}
	], "generator": "someone else's tool"}`
	w, err := ParseWorkload([]byte(src), "w1.json")
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "W1" || len(w.Jobs) != 2 || w.Jobs[0].Model != (PowerLaw{1500, -0.55}) || !w.Jobs[0].CanHost() || !w.Jobs[1].CanBeExtra() {
		t.Errorf("parsed %+v", w)
	}
	// A nameless workload is named after its file.
	w, err = ParseWorkload([]byte(`{"jobs": [{"name": "x", "model": {"a": 1, "b": 0}}]}`), "dir/mine.json")
	if err != nil || w.Name != "mine" {
		t.Errorf("name %q, err %v", w.Name, err)
	}
}

func TestParseWorkloadErrors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // every one must appear in the message
	}{
		{"empty", ``, []string{"f.json", "empty"}},
		{"malformed", "{\"jobs\": [\n  {\"name\": \"a\",, }]}", []string{"f.json", "line 2", "malformed"}},
		{"wrong type", `{"jobs": [{"name": "a", "model": {"a": "big", "b": -1}}]}`, []string{"f.json", "jobs.model.a", "string"}},
		{"no jobs", `{"name": "w", "jobs": []}`, []string{"f.json", "no jobs"}},
		{"missing jobs", `{"name": "w"}`, []string{"f.json", "no jobs"}},
		{"duplicate", `{"jobs": [{"name": "a", "model": {"a": 1, "b": -1}}, {"name": "a", "model": {"a": 2, "b": -1}}]}`, []string{"f.json", "jobs[1]", `"a"`, "already used"}},
		{"zero a", `{"jobs": [{"name": "srt", "model": {"a": 0, "b": -1}}]}`, []string{"f.json", "jobs[0]", `job "srt"`, "model.a", "got 0"}},
		{"negative a", `{"jobs": [{"name": "srt", "model": {"a": -3, "b": -1}}]}`, []string{`job "srt"`, "model.a", "-3"}},
		{"missing model", `{"jobs": [{"name": "srt"}]}`, []string{`job "srt"`, "model.a"}},
		{"missing b", `{"jobs": [{"name": "srt", "model": {"a": 1500, "exponent": -0.5}}]}`, []string{"jobs[0]", `job "srt"`, "model.b is missing"}},
		{"huge b", `{"jobs": [{"name": "srt", "model": {"a": 1, "b": 1e999}}]}`, []string{"f.json", "b"}},
		{"empty name", `{"jobs": [{"name": " ", "model": {"a": 1, "b": -1}}]}`, []string{"jobs[0]", "name is empty"}},
		{"bad range", `{"jobs": [{"name": "j", "model": {"a": 1, "b": -1}, "measured_range": {"min": 6, "max": 2}}]}`, []string{`job "j"`, "measured_range"}},
		{"trailing", `{"jobs": [{"name": "j", "model": {"a": 1, "b": -1}}]} {}`, []string{"trailing"}},
		{"array", `[]`, []string{"f.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseWorkload([]byte(c.src), "f.json")
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, ErrInvalidWorkload) {
				t.Errorf("%v does not wrap ErrInvalidWorkload", err)
			}
			var in *InputError
			if !errors.As(err, &in) || in.File != "f.json" {
				t.Errorf("%v is not an InputError for f.json", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestReadWorkloadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.json")
	w := &Workload{Name: "round", Jobs: []Job{{Name: "a", Model: PowerLaw{100, -0.5}, IOIntensive: true, Range: &NodeRange{2, 8}}}}
	b, err := w.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadWorkloadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "round" || got.Jobs[0].Model != w.Jobs[0].Model || *got.Jobs[0].Range != *w.Jobs[0].Range {
		t.Errorf("round trip: %+v", got)
	}
	if !got.Jobs[0].Extrapolated(9) || got.Jobs[0].Extrapolated(8) || got.Jobs[0].Extrapolated(2) {
		t.Error("measured range [2, 8]: only 9 is outside")
	}
	got, err = ReadWorkloadFile("-", strings.NewReader(string(b)))
	if err != nil || got.Name != "round" {
		t.Errorf("stdin: %v", err)
	}
	_, err = ReadWorkloadFile(filepath.Join(dir, "missing.json"), nil)
	if err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzParseWorkload: the parser never panics, and whatever it accepts is a
// valid workload that survives a round trip unchanged.
func FuzzParseWorkload(f *testing.F) {
	f.Add([]byte(`{"name": "W1", "jobs": [{"name": "s-srt-1", "model": {"a": 1500.0, "b": -0.55}, "cpu_intensive": false, "io_intensive": true}]}`))
	f.Add([]byte(`{"jobs": [{"name": "a", "model": {"a": 1, "b": -1}}, {"name": "a", "model": {"a": 2, "b": -1}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"a": 1e308, "b": 1e-300}, "measured_range": {"min": 1, "max": 1}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "e", "model": {"kind": "ernest", "theta": [20, 600, 3, 0.5]}}, {"name": "t", "model": {"kind": "table", "nodes": [2, 4], "seconds": [9, 5]}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "am", "model": {"kind": "amdahl", "a": 20, "c": 600}, "measured_range": {"min": 2, "max": 8}}]}`))
	f.Add([]byte(`{"jobs": [`))
	f.Add([]byte(`null`))
	// Implausible values, each refused (issue 41: they passed).
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"a": 1500, "b": -1e308}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"a": 1e12, "b": -0.5}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"a": 1500, "b": -0.5}, "measured_range": {"min": 1, "max": 1e9}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"kind": "table", "nodes": [1, 4194304], "seconds": [9, 1e-9]}}]}`))
	f.Add([]byte(`{"name": "", "jobs": [{"name": "", "model": {"a": 1, "b": 0}}]}`))
	// VM shapes: recorded, vCPUs only, and implausible.
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"a": 1500, "b": -0.5}, "vm_shape": {"vcpus": 2, "memory_mib": 4096}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"a": 1500, "b": -0.5}, "vm_shape": {"vcpus": 1}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"a": 1500, "b": -0.5}, "vm_shape": {"vcpus": 0, "memory_mib": 1e12}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "j", "model": {"a": 1500, "b": -0.5}, "vm_shape": null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkload(data, "fuzz.json")
		if err != nil {
			if !errors.Is(err, ErrInvalidWorkload) {
				t.Fatalf("error %v does not wrap ErrInvalidWorkload", err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "fuzz.json: ") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is not one line naming the file", msg)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("accepted an invalid workload: %v", err)
		}
		for _, j := range w.Jobs {
			if f1 := j.Seconds(1); j.Model.Kind() != KindTable && !(f1 >= MinJobSeconds && f1 <= MaxJobSeconds) {
				t.Fatalf("accepted job %q with F(1) = %v s, past the plausibility bounds", j.Name, f1)
			}
			if s := j.Shape; s != nil && (s.VCPUs < 1 || s.VCPUs > MaxCoresPerHost || s.MemoryMiB < 0 || s.MemoryMiB > MaxMemoryMiBPerHost) {
				t.Fatalf("accepted job %q with vm_shape %+v, past the plausibility bounds", j.Name, *s)
			}
		}
		b, err := w.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		w2, err := ParseWorkload(b, "again.json")
		if err != nil {
			t.Fatalf("round trip rejected: %v\n%s", err, b)
		}
		b2, _ := w2.MarshalIndent()
		if string(b) != string(b2) {
			t.Fatalf("round trip changed the workload:\n%s\n%s", b, b2)
		}
	})
}

// TestReadInput: "-" reads stdin under the name "<stdin>"; a missing file is
// an InputError naming it.
func TestReadInput(t *testing.T) {
	data, name, err := ReadInput("-", strings.NewReader("abc"))
	if err != nil || string(data) != "abc" || name != "<stdin>" {
		t.Errorf("stdin: %q %q %v", data, name, err)
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	_, name, err = ReadInput(missing, nil)
	var in *InputError
	if !errors.As(err, &in) || in.File != missing || name != missing {
		t.Errorf("missing file: name %q, error %v", name, err)
	}
}
