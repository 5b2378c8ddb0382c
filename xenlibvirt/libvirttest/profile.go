package libvirttest

import (
	"fmt"
	"path/filepath"
	"testing"
)

// AddDisks gives each of the cluster's hosts k disks (transient pools
// packer-itest-h<i>-d<d>) and declares k cores, so that packer profile can
// run up to 2k VMs of one vCPU and 256 MiB each with a disk of its own.
func (q *QEMUCluster) AddDisks(t testing.TB, k int) {
	t.Helper()
	for i := range q.Inventory.Hosts {
		h := &q.Inventory.Hosts[i]
		for d := len(h.Disks); d < k; d++ {
			pool := fmt.Sprintf("packer-itest-h%d-d%d", i, d)
			transientPool(t, q.Conn.Libvirt(), pool, filepath.Join(q.Work, pool))
			h.Disks = append(h.Disks, pool)
		}
		h.Cores, h.MemoryMiB = k, 256*k
	}
	if err := q.Inventory.Validate(); err != nil {
		t.Fatal(err)
	}
}

// AssertNothingLeft is AssertOnlyForeign over every disk pool of the hosts.
func (q *QEMUCluster) AssertNothingLeft(t testing.TB) {
	t.Helper()
	q.AssertOnlyForeign(t)
	left, _ := filepath.Glob(filepath.Join(q.Work, "packer-itest-h*-d*", "*"))
	if len(left) > 0 {
		t.Errorf("disks left: %v", left)
	}
}
