package xenlibvirt_test

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// closeCounter counts the Close calls of the connections it wraps.
type closeCounter struct {
	xenlibvirt.Hypervisor
	closed *atomic.Int32
}

func (c closeCounter) Close() error { c.closed.Add(1); return c.Hypervisor.Close() }

// slowHosts connects to c's hosts after a delay each, host "down" (by
// index) failing, and counts the connections made and closed and the most
// connects in flight at once.
func slowHosts(c *libvirttest.Cluster, delay time.Duration, down int, made, closed, peak *atomic.Int32) xenlibvirt.Connector {
	inner := c.Connector(func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		if i == down {
			return nil
		}
		made.Add(1)
		return closeCounter{hv, closed}
	})
	var inFlight atomic.Int32
	return xenlibvirt.ConnectorFunc(func(h xenlibvirt.InventoryHost) (xenlibvirt.Hypervisor, error) {
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(delay)
		inFlight.Add(-1)
		return inner.Connect(h)
	})
}

// TestHostsAreConnectedInParallel: hosts check reaches the hosts at the same
// time (a slow or unreachable host costs one timeout, not one per host), at
// most 8 at once; the report stays in inventory order. Counting the connects
// in flight, not the time taken, keeps the test sure on a loaded machine.
func TestHostsAreConnectedInParallel(t *testing.T) {
	c := libvirttest.NewCluster(t, 10, xenlibvirt.KVM)
	var made, closed, peak atomic.Int32
	rep := xenlibvirt.CheckHosts(nil, c.Inventory, slowHosts(c, 300*time.Millisecond, 5, &made, &closed, &peak))
	if p := peak.Load(); p < 2 || p > 8 {
		t.Errorf("at most %d hosts were connected to at once, want 2 to 8", p)
	}
	for i, h := range rep.Hosts {
		if h.Name != c.Inventory.Hosts[i].Name {
			t.Errorf("report row %d is host %s, want %s", i, h.Name, c.Inventory.Hosts[i].Name)
		}
		if h.Reachable != (i != 5) {
			t.Errorf("host %d reachable = %v (%s)", i, h.Reachable, h.Error)
		}
	}
	if made.Load() != 9 || closed.Load() != 9 {
		t.Errorf("%d connections made, %d closed; want 9 and 9", made.Load(), closed.Load())
	}
}

// TestConnectClosesEveryHostWhenOneFails: apply's Connect fails naming the
// unreachable host and leaves no other connection open.
func TestConnectClosesEveryHostWhenOneFails(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 4)
	c := libvirttest.NewCluster(t, 4, xenlibvirt.KVM)
	var made, closed, peak atomic.Int32
	_, err := xenlibvirt.Connect(pl, c.Inventory, slowHosts(c, 50*time.Millisecond, 2, &made, &closed, &peak))
	if err == nil || !strings.Contains(err.Error(), "host "+c.Inventory.Hosts[2].Name) {
		t.Fatalf("err = %v, want one naming host %s", err, c.Inventory.Hosts[2].Name)
	}
	if made.Load() != 3 || closed.Load() != 3 {
		t.Errorf("%d connections made, %d closed; want 3 and 3", made.Load(), closed.Load())
	}
}

// flakyStart refuses the first starts of every domain the way a host under a
// burst of starts does (EAGAIN from the kernel), or with a lasting error.
type flakyStart struct {
	xenlibvirt.Hypervisor
	mu      *sync.Mutex
	tries   map[string]int
	refuse  int
	lasting bool
}

func (h flakyStart) Start(name string) error {
	h.mu.Lock()
	h.tries[name]++
	n := h.tries[name]
	h.mu.Unlock()
	switch {
	case h.lasting:
		return errors.New("internal error: no such device")
	case n <= h.refuse:
		return errors.New("internal error: failed to load cgroup BPF prog: Resource temporarily unavailable")
	}
	return h.Hypervisor.Start(name)
}

// TestApplyRetriesAStartRefusedForNow: a start the host refuses for now is
// tried again and the plan applies; a lasting error fails at the first try.
func TestApplyRetriesAStartRefusedForNow(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	for _, lasting := range []bool{false, true} {
		c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
		libvirttest.NewAppliance(t, c, nil)
		var mu sync.Mutex
		tries := map[string]int{}
		hs := connect(t, pl, c, func(_ int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
			return flakyStart{hv, &mu, tries, 2, lasting}
		})
		j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: filepath.Join(t.TempDir(), "s.json")})
		mu.Lock()
		if !lasting && (err != nil || j.Status != xenlibvirt.StatusDone || len(tries) != 14 || slices.Min(slices.Collect(maps.Values(tries))) != 3 || slices.Max(slices.Collect(maps.Values(tries))) != 3) {
			t.Errorf("refused twice per VM: %v; tries %v", err, tries)
		}
		if lasting && (err == nil || !strings.Contains(err.Error(), "no such device") || slices.Max(slices.Collect(maps.Values(tries))) != 1) {
			t.Errorf("lasting error: %v; tries %v", err, tries)
		}
		mu.Unlock()
	}
}
