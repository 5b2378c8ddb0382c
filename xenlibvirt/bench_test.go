package xenlibvirt_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// BenchmarkApplyTestDriver measures the executor's own cost (journal writes,
// libvirt calls, event handling) on the test driver, whose guests power off
// at once, for W1 on P = 2, 9 and 32 hosts. It reports VMs per second.
func BenchmarkApplyTestDriver(b *testing.B) {
	for _, hosts := range []int{2, 9, 32} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			pl := plantest.PaperPair(b, "W1", hosts)
			vms := 0
			for _, n := range planVMs(pl) {
				vms += n
			}
			c := libvirttest.NewCluster(b, hosts, xenlibvirt.KVM)
			libvirttest.NewAppliance(b, c, nil)
			hs, err := xenlibvirt.Connect(pl, c.Inventory, c.Connector(nil))
			if err != nil {
				b.Fatal(err)
			}
			defer hs.Close()
			state := b.TempDir() + "/state.json"
			b.ResetTimer()
			for range b.N {
				j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, Parallel: 8})
				if err != nil || j.Status != xenlibvirt.StatusDone || len(j.VMs) != vms {
					b.Fatalf("apply: %v", err)
				}
			}
			b.ReportMetric(float64(vms*b.N)/b.Elapsed().Seconds(), "VMs/s")
		})
	}
}
