package workloads

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

func TestMerger(t *testing.T) {
	w1, _ := Get("W1") // 5 jobs
	w5, _ := Get("W5") // 5 jobs
	var m Merger
	if err := m.Add(w1, "W1"); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(w5, "w5.json"); err != nil {
		t.Fatal(err)
	}
	w, err := m.Workload("", "both")
	if err != nil {
		t.Fatal(err)
	}
	// 5 + 5 jobs, in order, named after both.
	if w.Name != "W1+W5" || w.Description != "both" || len(w.Jobs) != 10 || w.Jobs[5].Name != w5.Jobs[0].Name {
		t.Errorf("merged %q (%q) with %d jobs", w.Name, w.Description, len(w.Jobs))
	}
	// W1 again repeats its first job's name: the error names both sources.
	err = m.Add(w1, "again.json")
	if err == nil || !strings.HasPrefix(err.Error(), `again.json: job "`+w1.Jobs[0].Name+`" is also in W1;`) {
		t.Errorf("duplicate: %v", err)
	}
	// Nothing added: no jobs, an invalid workload.
	var empty Merger
	if _, err := empty.Workload("x", ""); !errors.Is(err, model.ErrInvalidWorkload) {
		t.Errorf("empty merge: %v", err)
	}
}

func TestOpen(t *testing.T) {
	w1, _ := Get("W1")
	doc, err := w1.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mine")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name             string
		stdin            string
		builtin, invalid bool
	}{
		{"W1", "", true, false},
		{"W9", "", true, true},           // no such built-in
		{path, "", false, false},         // an existing file, even without .json
		{"none.json", "", false, true},   // looks like a file: not a built-in name
		{"-", string(doc), false, false}, // standard input
		{"dir/W1", "", false, true},      // a path, though W1 is a built-in name
	} {
		w, builtin, err := Open(c.name, strings.NewReader(c.stdin))
		if builtin != c.builtin || (err != nil) != c.invalid || (err == nil && len(w.Jobs) != len(w1.Jobs)) {
			t.Errorf("%s: builtin %v, error %v", c.name, builtin, err)
		}
	}
}
