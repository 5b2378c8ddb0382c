package xenlibvirt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// ErrStateLocked is returned when another packer process holds the state
// file: two applies, or an apply and a destroy, must not interleave their
// journals or tear down each other's VMs.
var ErrStateLocked = errors.New("state file is in use by another packer process")

// lockState takes an exclusive lock on statePath's companion lock file
// (statePath + ".lock"), without waiting; the returned function releases it.
// The lock file is left in place: removing it would race with a process
// about to lock it.
func lockState(statePath string) (unlock func(), err error) {
	f, err := os.OpenFile(statePath+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", statePath, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s (lock %s.lock)", ErrStateLocked, statePath, statePath)
		}
		return nil, fmt.Errorf("lock %s: %w", statePath, err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// cleanStaleTemps removes the temporary files a journal write leaves when
// packer is killed between creating and renaming one (.STATE.tmp-*). Only
// the holder of the state's lock may call it: no other writer is then mid-way.
func cleanStaleTemps(statePath string, log io.Writer) {
	dir, base := filepath.Split(statePath)
	if dir == "" {
		dir = "."
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".tmp-*"))
	for _, t := range tmps {
		if os.Remove(t) == nil {
			fmt.Fprintf(log, "removed %s, left by a packer run that was killed\n", t)
		}
	}
}

// globEscape quotes the pattern characters of filepath.Match in s.
func globEscape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}
