package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSimulateIdleNote: the small workload's 76 tasks on 400 nodes leave the
// slots nearly idle; the note goes to stderr (the table unchanged on stdout)
// and into the JSON document. On its own 8 nodes there is no note.
func TestSimulateIdleNote(t *testing.T) {
	code, out, errs := packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "--nodes", "400")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "packer: note: map slots") || !strings.Contains(errs, "policies cannot differ much; try --nodes ") {
		t.Errorf("stderr lacks the idle note: %q", errs)
	}
	if strings.Contains(out, "cannot differ") {
		t.Errorf("the idle note is on stdout:\n%s", out)
	}
	code, out, errs = packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "--nodes", "400", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Idle *struct {
			Nodes          int    `json:"nodes"`
			SuggestedNodes int    `json:"suggested_nodes"`
			Note           string `json:"note"`
		} `json:"idle_cluster"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Idle == nil || doc.Idle.Nodes != 400 || doc.Idle.SuggestedNodes < 1 || doc.Idle.SuggestedNodes >= 400 {
		t.Errorf("idle_cluster %+v, want 400 nodes and fewer suggested", doc.Idle)
	}
	if _, _, errs := packer(t, "", "simulate", "-w", "testdata/simulate-small.json"); strings.Contains(errs, "cannot differ") {
		t.Errorf("8 nodes: an idle note: %q", errs)
	}
}
