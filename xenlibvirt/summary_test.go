package xenlibvirt_test

import (
	"fmt"
	"testing"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/xenlibvirt"
)

// TestSummary: the line apply shows before it asks counts the VMs of the
// phases it will run and names only the hosts the plan uses.
func TestSummary(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	inv := &xenlibvirt.Inventory{}
	for i := range 3 { // one host more than the plan uses
		inv.Hosts = append(inv.Hosts, xenlibvirt.InventoryHost{Name: fmt.Sprintf("h%d", i)})
	}
	all, first := 0, 0
	for i, ph := range pl.Phases {
		for _, h := range ph.Hosts {
			all += len(h.VMs)
			if i == 0 {
				first += len(h.VMs)
			}
		}
	}
	s := &xenlibvirt.Settings{StatePath: "j.json"}
	want := fmt.Sprintf("packer will apply plan %s (%d phases, %d VMs) on hosts h0, h1; journal j.json", pl.ID, len(pl.Phases), all)
	if got := xenlibvirt.Summary(pl, inv, s); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	s.OnePhase, s.Phase, s.Resume = true, 0, true
	want = fmt.Sprintf("packer will apply plan %s (phase 1 of %d, %d VMs) on hosts h0, h1, resuming; journal j.json", pl.ID, len(pl.Phases), first)
	if got := xenlibvirt.Summary(pl, inv, s); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
