package xenlibvirt_test

import (
	"strings"
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
// index) failing, and counts the connections made and closed.
func slowHosts(c *libvirttest.Cluster, delay time.Duration, down int, made, closed *atomic.Int32) xenlibvirt.Connector {
	inner := c.Connector(func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		if i == down {
			return nil
		}
		made.Add(1)
		return closeCounter{hv, closed}
	})
	return xenlibvirt.ConnectorFunc(func(h xenlibvirt.InventoryHost) (xenlibvirt.Hypervisor, error) {
		time.Sleep(delay)
		return inner.Connect(h)
	})
}

// TestHostsAreConnectedInParallel: hosts check and apply's Connect reach
// the hosts at the same time, so eight hosts answering in 300 ms each take
// far less than 2.4 s; the report stays in inventory order.
func TestHostsAreConnectedInParallel(t *testing.T) {
	c := libvirttest.NewCluster(t, 8, xenlibvirt.KVM)
	var made, closed atomic.Int32
	start := time.Now()
	rep := xenlibvirt.CheckHosts(nil, c.Inventory, slowHosts(c, 300*time.Millisecond, 5, &made, &closed))
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("8 hosts of 300 ms each took %v: not connected in parallel", d)
	}
	for i, h := range rep.Hosts {
		if h.Name != c.Inventory.Hosts[i].Name {
			t.Errorf("report row %d is host %s, want %s", i, h.Name, c.Inventory.Hosts[i].Name)
		}
		if h.Reachable != (i != 5) {
			t.Errorf("host %d reachable = %v (%s)", i, h.Reachable, h.Error)
		}
	}
	if made.Load() != 7 || closed.Load() != 7 {
		t.Errorf("%d connections made, %d closed; want 7 and 7", made.Load(), closed.Load())
	}
}

// TestConnectClosesEveryHostWhenOneFails: apply's Connect fails naming the
// unreachable host and leaves no other connection open.
func TestConnectClosesEveryHostWhenOneFails(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 4)
	c := libvirttest.NewCluster(t, 4, xenlibvirt.KVM)
	var made, closed atomic.Int32
	_, err := xenlibvirt.Connect(pl, c.Inventory, slowHosts(c, 50*time.Millisecond, 2, &made, &closed))
	if err == nil || !strings.Contains(err.Error(), "host "+c.Inventory.Hosts[2].Name) {
		t.Fatalf("err = %v, want one naming host %s", err, c.Inventory.Hosts[2].Name)
	}
	if made.Load() != 3 || closed.Load() != 3 {
		t.Errorf("%d connections made, %d closed; want 3 and 3", made.Load(), closed.Load())
	}
}
