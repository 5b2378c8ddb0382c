package xenlibvirt

import (
	"errors"
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
		{`{"version": 2, "plan": "p"}`, "s.json: invalid state file: version: 2, this packer reads version 1"},
		{`{"version": 1}`, "s.json: invalid state file: plan: empty"},
		{`{"version": 1, "plan": "p", "phases": [{"index": 0, "status": "odd"}]}`, `s.json: invalid state file: phases[0].status: "odd"`},
		{`{"version": 1, "plan": "p", "phases": [{"index": 0, "status": "done"}], "vms": [{"phase": 3, "name": "a", "host_uri": "u", "state": "disk"}]}`,
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

// FuzzParseJournal: any input either fails with an InputError naming the
// file or parses to a journal whose records are all usable: every VM names
// its host and sits in a known phase and state.
func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(`{"version":1,"plan":"p","image":"/i","status":"running","phases":[{"index":0,"status":"running"}],"vms":[{"phase":0,"name":"n","host":"h","host_uri":"test:///h.xml","disk":"/d","state":"running"}]}`))
	f.Add([]byte(`{"version":1,"plan":"p"}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := ParseJournal(data, "fuzz.json")
		if err != nil {
			modeltest.NamesFile(t, err, "fuzz.json")
			return
		}
		for _, r := range j.VMs {
			if r.Phase < 0 || r.Phase >= len(j.Phases) || r.HostURI == "" {
				t.Fatalf("accepted record %+v", r)
			}
		}
		_ = j.NextPhase()
		_ = j.LiveVMs()
	})
}
