package plan_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
)

// TestReadFileIsBounded: /dev/zero and a file one byte over MaxFileBytes
// (sparse: a hole, read by its size alone) end in one line naming the file
// and the limit, quickly.
func TestReadFileIsBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.plan.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, plan.MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", big} {
		start := time.Now()
		_, err := plan.ReadFile(path)
		want := path + ": too large: a plan document may be at most 64 MiB"
		if !errors.Is(err, model.ErrTooLarge) || err == nil || err.Error() != want {
			t.Errorf("ReadFile(%s): %v, want %q", path, err, want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("ReadFile(%s) took %v", path, d)
		}
	}
}
