//go:build cgo

package xenlibvirt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"libvirt.org/go/libvirt"
)

// BootCanary starts the canary as a transient domain on c and waits until it
// powers off, returning how long that took. Only a guest shutdown counts:
// libvirt's stopped event must say "shut down", so a guest that crashes,
// or resets (a triple fault) into on_reboot=destroy, fails the canary, and
// a kernel panic (no panic=N on the canary's command line) hangs into the
// timeout. A guest still running at the timeout (or when ctx ends) is
// destroyed; being transient, it leaves nothing defined behind either way.
// Its name, packer-canary-<random hex>, cannot collide with a plan's VMs or
// anyone else's domain.
func (c *Conn) BootCanary(ctx context.Context, cn Canary) (time.Duration, error) {
	timeout := cn.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return 0, err
	}
	name := "packer-canary-" + hex.EncodeToString(rnd[:])
	doc, err := cn.xml(name)
	if err != nil {
		return 0, err
	}
	fail := func(err error) error {
		return fmt.Errorf("xenlibvirt: canary on %s (%s): %w", c.URI, cn.Hypervisor, err)
	}
	stopped := make(chan libvirt.DomainEventStoppedDetailType, 1)
	unsubscribe, err := c.OnLifecycle(func(n string, ev libvirt.DomainEventLifecycle) {
		if n == name && ev.Event == libvirt.DOMAIN_EVENT_STOPPED {
			select {
			case stopped <- libvirt.DomainEventStoppedDetailType(ev.Detail):
			default:
			}
		}
	})
	if err != nil {
		return 0, fail(err)
	}
	defer unsubscribe()
	start := time.Now()
	d, err := c.conn.DomainCreateXML(doc, 0)
	if err != nil {
		return 0, fail(fmt.Errorf("start: %w", lvErr(err)))
	}
	defer d.Free()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case detail := <-stopped:
		if detail != libvirt.DOMAIN_EVENT_STOPPED_SHUTDOWN {
			return 0, fail(fmt.Errorf("%w: the guest %s", ErrCanaryTimeout, stoppedReason(detail)))
		}
		return time.Since(start), nil
	case <-ctx.Done():
		_ = d.Destroy()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return 0, fail(fmt.Errorf("%w within %v", ErrCanaryTimeout, timeout))
		}
		return 0, ctx.Err()
	}
}
