package xenlibvirt_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/xenlibvirt"
)

// TestReadersAreBounded: the inventory, state file and run record readers
// refuse /dev/zero and a file one byte over their limit (sparse: a hole,
// read by its size alone) in one line naming the file and the limit,
// quickly.
func TestReadersAreBounded(t *testing.T) {
	dir := t.TempDir()
	sparse := func(name string, size int64) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		return path
	}
	runDir := filepath.Join(dir, "big.run")
	if err := os.Mkdir(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	record := sparse(filepath.Join("big.run", xenlibvirt.RunRecordFile), xenlibvirt.MaxRunRecordBytes+1)
	for _, c := range []struct {
		path, want string
		read       func(string) error
	}{
		{"/dev/zero", "an inventory file may be at most 16 MiB", func(p string) error { _, err := xenlibvirt.ReadInventoryFile(p); return err }},
		{sparse("inv.json", xenlibvirt.MaxInventoryBytes+1), "an inventory file may be at most 16 MiB", func(p string) error { _, err := xenlibvirt.ReadInventoryFile(p); return err }},
		{"/dev/zero", "a state file may be at most 64 MiB", func(p string) error { _, err := xenlibvirt.ReadJournalFile(p); return err }},
		{sparse("s.state.json", xenlibvirt.MaxJournalBytes+1), "a state file may be at most 64 MiB", func(p string) error { _, err := xenlibvirt.ReadJournalFile(p); return err }},
		{record, "a run record may be at most 16 MiB", func(string) error { _, err := xenlibvirt.ReadRunRecord(runDir); return err }},
	} {
		start := time.Now()
		err := c.read(c.path)
		if want := c.path + ": too large: " + c.want; !errors.Is(err, model.ErrTooLarge) || err.Error() != want {
			t.Errorf("%s: %v, want %q", c.path, err, want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", c.path, d)
		}
	}
}
