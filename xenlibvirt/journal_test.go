package xenlibvirt

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/packer-sched/packer/model/modeltest"
)

func TestJournalNextPhaseAndLive(t *testing.T) {
	j := NewJournal(&Deployment{Plan: "p", Phases: []PhaseDeploy{{Index: 0}, {Index: 1}, {Index: 2}}})
	if j.NextPhase() != 0 {
		t.Errorf("fresh journal: next phase %d", j.NextPhase())
	}
	j.Phases[0].Status = StatusDone
	j.Phases[1].Status = StatusFailed
	if j.NextPhase() != 1 {
		t.Errorf("next phase %d, want the failed 1", j.NextPhase())
	}
	j.vm(1, "a", "h0", "u0").State = StateUndefined // disk left
	j.vm(1, "b", "h0", "u0").State = StateRemoved
	j.vm(1, "a", "h0", "u0").Disk = "/d/a" // same VM, same record
	if live := j.LiveVMs(); len(live) != 1 || live[0].Name != "a" || live[0].Disk != "/d/a" || len(j.VMs) != 2 {
		t.Errorf("live %+v of %+v", live, j.VMs)
	}
	for i := range j.Phases {
		j.Phases[i].Status = StatusDone
	}
	if j.NextPhase() != 3 {
		t.Errorf("all done: next phase %d, want 3", j.NextPhase())
	}
}

func TestParseJournalErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"version": 3, "plan": "p"}`, "s.json: invalid state file: version: 3, this packer reads versions 1 to 2; a newer packer wrote it"},
		{`{"version": 0, "plan": "p"}`, "s.json: invalid state file: version: 0, this packer reads versions 1 to 2"},
		// Version 1 had no intents: a state it never wrote is refused.
		{`{"version": 1, "plan": "p", "phases": [{"index": 0, "status": "running"}], "vms": [{"phase": 0, "name": "a", "host_uri": "u", "disk": "/d", "state": "creating"}]}`,
			`s.json: invalid state file: vms[0].state: "creating"`},
		// A VM that may exist names its disk, or destroy could not find it.
		{`{"version": 2, "plan": "p", "phases": [{"index": 0, "status": "running"}], "vms": [{"phase": 0, "name": "a", "host_uri": "u", "state": "creating"}]}`,
			"s.json: invalid state file: vms[0].disk: empty, and the VM is creating"},
		{`{"version": 1}`, "s.json: invalid state file: plan: empty"},
		{`{"version": 1, "plan": "p", "phases": [{"index": 0, "status": "odd"}]}`, `s.json: invalid state file: phases[0].status: "odd"`},
		{`{"version": 1, "plan": "p", "phases": [{"index": 0, "status": "done"}], "vms": [{"phase": 3, "name": "a", "host_uri": "u", "disk": "/d", "state": "disk"}]}`,
			"s.json: invalid state file: vms[0].phase: 3 outside 0..0"},
		{`{"version": 1, "plan": "p", "phases": [], "vms": [{"name": "a", "host_uri": "u", "state": "gone"}]}`, `s.json: invalid state file: vms[0].state: "gone"`},
		{"{\n\"version\": }", "s.json: invalid state file: line 2 col 12: invalid character '}' looking for beginning of value"},
	} {
		_, err := ParseJournal([]byte(tc.doc), "s.json")
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrBadJournal) {
			t.Errorf("ParseJournal:\n got %v\nwant %s", err, tc.want)
		}
	}
}

// TestOldJournalReadAndWrittenAsNew: a version 1 state file (written before
// intents) reads as it is, its VMs live as they were, and is written back
// as the current version with nothing else changed.
func TestOldJournalReadAndWrittenAsNew(t *testing.T) {
	v1 := `{"version":1,"plan":"p","image":"/i","status":"failed","phases":[{"index":0,"status":"failed"}],` +
		`"vms":[{"phase":0,"name":"a","host":"h","host_uri":"test:///h.xml","disk":"/d/a.qcow2","state":"defined","index":0},` +
		`{"phase":0,"name":"b","host":"h","host_uri":"test:///h.xml","disk":"/d/b.qcow2","state":"removed","index":1}],"step":7,"log":["7 apply failed"]}`
	j, err := ParseJournal([]byte(v1), "old.json")
	if err != nil {
		t.Fatal(err)
	}
	if live := j.LiveVMs(); len(live) != 1 || live[0].Name != "a" || !live[0].hasDomain() || live[0].Unconfirmed() {
		t.Errorf("live VMs %+v", live)
	}
	b, err := j.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseJournal(b, "new.json")
	if err != nil {
		t.Fatalf("written back: %v\n%s", err, b)
	}
	if again.Version != JournalVersion || j.Version != 1 {
		t.Errorf("written as version %d (read %d), want %d", again.Version, j.Version, JournalVersion)
	}
	again.Version = 1
	if !reflect.DeepEqual(again, j) {
		t.Errorf("round trip changed the journal:\n%+v\n%+v", j, again)
	}
}

// TestSaveReplacesTheWholeFile: each Save leaves the whole journal at the
// path, the last one's, and no temporary file beside it; a directory that
// does not exist is an error, not a silent loss.
func TestSaveReplacesTheWholeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.state.json")
	j := NewJournal(&Deployment{Plan: "p", Phases: []PhaseDeploy{{Index: 0}}})
	for step := range 3 {
		j.Step = step
		if err := j.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := ReadJournalFile(path)
		if err != nil || got.Step != step {
			t.Fatalf("after save %d: %+v, %v", step, got, err)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("files beside the journal: %v", names)
	}
	if err := j.Save(filepath.Join(dir, "missing", "s.json")); err == nil {
		t.Error("save into a missing directory succeeded")
	}
}

// FuzzParseJournal: any input either fails with an InputError naming the
// file or parses to a journal whose records are all usable: every VM names
// its host and sits in a known phase and state, one that may exist names
// its disk, a version 1 file holds no intent; and what Marshal writes of it
// parses to the same journal.
func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(`{"version":1,"plan":"p","image":"/i","status":"running","phases":[{"index":0,"status":"running"}],"vms":[{"phase":0,"name":"n","host":"h","host_uri":"test:///h.xml","disk":"/d","state":"running"}]}`))
	f.Add([]byte(`{"version":1,"plan":"p"}`))
	f.Add([]byte(`{`))
	for _, st := range states {
		f.Add([]byte(`{"version":2,"plan":"p","image":"/i","status":"running","phases":[{"index":0,"status":"running"}],"vms":[{"phase":0,"name":"n","host":"h","host_uri":"test:///h.xml",` +
			`"pool":"disk0","volume":"n.qcow2","disk":"/d/n.qcow2","uuid":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0","seed":"/d/n.cidata.iso","state":"` + st + `"}],"step":3,"log":["3 p1 h n: about to create disk /d/n.qcow2"]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := ParseJournal(data, "fuzz.json")
		if err != nil {
			modeltest.NamesFile(t, err, "fuzz.json")
			return
		}
		for _, r := range j.VMs {
			if r.Phase < 0 || r.Phase >= len(j.Phases) || r.HostURI == "" || r.Live() && r.Disk == "" || j.Version < 2 && r.Unconfirmed() {
				t.Fatalf("accepted record %+v of version %d", r, j.Version)
			}
		}
		_ = j.NextPhase()
		_ = j.LiveVMs()
		b, err := j.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseJournal(b, "again.json")
		if err != nil {
			t.Fatalf("written back: %v\n%s", err, b)
		}
		b2, _ := again.Marshal()
		if !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed the journal:\n%s\n%s", b, b2)
		}
	})
}
