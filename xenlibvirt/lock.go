package xenlibvirt

import (
	"errors"
	"fmt"
	"os"
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
