package xenlibvirt

import (
	"errors"
	"path/filepath"
	"testing"
)

// Two holders of one state file's lock exclude each other (flock locks are
// per open file, so this holds within one process too); after the first lets
// go, the second gets it.
func TestStateLockExcludes(t *testing.T) {
	state := filepath.Join(t.TempDir(), "packer-w1.state.json")
	unlock, err := lockState(state)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockState(state); !errors.Is(err, ErrStateLocked) {
		t.Fatalf("second lock: %v, want ErrStateLocked", err)
	}
	if _, err := Destroy(&Journal{}, nil, state, nil); !errors.Is(err, ErrStateLocked) {
		t.Errorf("destroy while the state is locked: %v, want ErrStateLocked", err)
	}
	unlock()
	again, err := lockState(state)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	again()
}
