package workloads

import (
	"errors"
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
