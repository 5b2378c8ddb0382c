package xenlibvirt

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Booter is the optional ability of a Hypervisor to boot a canary guest
// (Conn has it). hosts check --canary asks every reachable host for it.
type Booter interface {
	BootCanary(ctx context.Context, cn Canary) (time.Duration, error)
}

// DefaultCanaryTimeout bounds one host's canary in hosts check: a working
// KVM boots packer's appliance and powers it off in 4–6 s, TCG in 15–30 s on
// a loaded 2-core machine; a KVM that hangs guests never does.
const DefaultCanaryTimeout = 60 * time.Second

// ErrNoCanary is wrapped by a canary that could not be tried: the inventory
// boots its appliance from disk (a canary needs a kernel and an initrd), or
// the host's connection cannot boot guests.
var ErrNoCanary = errors.New("no canary possible")

// CanaryReport is one host's canary: how long the guest took to power off,
// or why it did not.
type CanaryReport struct {
	OK      bool    `json:"ok"`
	Seconds float64 `json:"seconds,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// RunCanaries boots a canary on every reachable host of r, all hosts at
// once, each with the hypervisor its inventory entry names and the
// inventory's kernel and initrd (packer.run=true: an appliance that keeps
// packer's contract powers off at once), and records each outcome in
// r.Hosts[i].Canary. It reports whether every canary powered off.
func (r *HostsReport) RunCanaries(ctx context.Context, inv *Inventory, c Connector, timeout time.Duration) bool {
	if timeout <= 0 {
		timeout = DefaultCanaryTimeout
	}
	var wg sync.WaitGroup
	for i := range r.Hosts {
		if !r.Hosts[i].Reachable {
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			took, err := canaryOn(ctx, inv, inv.Hosts[i], c, timeout)
			rep := &CanaryReport{OK: err == nil, Seconds: took.Seconds()}
			if err != nil {
				rep.Error = err.Error()
			}
			r.Hosts[i].Canary = rep
		}(i)
	}
	wg.Wait()
	ok := true
	for _, h := range r.Hosts {
		ok = ok && (h.Canary == nil || h.Canary.OK)
	}
	return ok
}

// canaryOn connects to h and boots one canary there.
func canaryOn(ctx context.Context, inv *Inventory, h InventoryHost, c Connector, timeout time.Duration) (time.Duration, error) {
	if inv.Kernel == "" {
		return 0, fmt.Errorf("%w: the inventory boots the appliance from disk; a canary needs kernel and initrd", ErrNoCanary)
	}
	hv, err := c.Connect(h)
	if err != nil {
		return 0, err
	}
	defer hv.Close()
	b, ok := hv.(Booter)
	if !ok {
		return 0, fmt.Errorf("%w: this connection cannot boot guests", ErrNoCanary)
	}
	return b.BootCanary(ctx, Canary{Hypervisor: h.Hypervisor, Kernel: inv.Kernel, Initrd: inv.Initrd, Timeout: timeout})
}

// FailedCanaries lists the hosts whose canary failed, each as "NAME: why".
func (r *HostsReport) FailedCanaries() []string {
	var out []string
	for _, h := range r.Hosts {
		if h.Canary != nil && !h.Canary.OK {
			out = append(out, fmt.Sprintf("%s: %s", h.Name, h.Canary.Error))
		}
	}
	return out
}
