package xenlibvirt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestLogFollowsTheJournal: a step's line reaches the log only once the
// step is in the state file: a save that fails prints nothing, and the next
// one that succeeds prints the lines of every step it saved, in step order.
func TestLogFollowsTheJournal(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	r := &run{j: &Journal{Version: JournalVersion}, set: &Settings{StatePath: filepath.Join(dir, "missing", "state.json"), Log: &log}}
	if err := r.save(func(*Journal) {}, true, "define vm-1"); err == nil {
		t.Fatal("a save into a missing directory succeeded")
	}
	if log.Len() != 0 {
		t.Fatalf("a step the journal does not hold was logged: %q", log.String())
	}
	r.set.StatePath = filepath.Join(dir, "state.json")
	if err := r.save(func(*Journal) {}, true, "start vm-1"); err != nil {
		t.Fatal(err)
	}
	if got, want := log.String(), "define vm-1\nstart vm-1\n"; got != want {
		t.Fatalf("log %q, want %q", got, want)
	}
	data, err := os.ReadFile(r.set.StatePath)
	if err != nil || !bytes.Contains(data, []byte("1 define vm-1")) || !bytes.Contains(data, []byte("2 start vm-1")) {
		t.Fatalf("the state file does not hold both steps (%v):\n%s", err, data)
	}
}
