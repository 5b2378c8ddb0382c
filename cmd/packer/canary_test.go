package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/packer-sched/packer/xenlibvirt"
)

// bootable plays a host's accelerator for hosts check --canary: its canary
// powers off after took, or fails with err.
type bootable struct {
	xenlibvirt.Hypervisor
	took time.Duration
	err  error
	got  *xenlibvirt.Canary
}

func (b bootable) BootCanary(_ context.Context, cn xenlibvirt.Canary) (time.Duration, error) {
	*b.got = cn
	return b.took, b.err
}

// TestHostsCheckCanary: h0's canary powers off in 1.5 s, h1's hangs like
// nested KVM; hosts check --canary shows both, exits 1 and names h1 in one
// line. The canary boots the inventory's kernel as the host's hypervisor.
func TestHostsCheckCanary(t *testing.T) {
	c, _, _, _ := simulated(t)
	var got [2]xenlibvirt.Canary
	connector = c.Connector(func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		b := bootable{Hypervisor: hv, took: 1500 * time.Millisecond, got: &got[i]}
		if i == 1 {
			b.took, b.err = 0, fmt.Errorf("canary on h1 (kvm): %w within 20s", xenlibvirt.ErrCanaryTimeout)
		}
		return b
	})
	inv := *c.Inventory
	inv.Kernel, inv.Initrd = "/var/lib/packer/vmlinuz", "/var/lib/packer/initrd.img"
	invPath := writeInventory(t, filepath.Join(t.TempDir(), "inventory.json"), &inv)
	code, out, errs := packer(t, "", "hosts", "check", "--inventory", invPath, "--canary", "--canary-timeout", "20s")
	want := "packer: hosts check: the canary failed on 1 of 2 hosts: h1: canary on h1 (kvm): canary guest did not power off within 20s\n"
	if code != 1 || errs != want {
		t.Errorf("exit %d, stderr %q; want 1, %q", code, errs, want)
	}
	for _, w := range []string{"│ canary", "powered off in 1.5 s", "failed: canary on h1"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	for i, cn := range got {
		if cn.Hypervisor != inv.Hosts[i].Hypervisor || cn.Kernel != inv.Kernel || cn.Initrd != inv.Initrd || cn.Timeout != 20*time.Second {
			t.Errorf("host %d booted %+v", i, cn)
		}
	}
	// Without --canary nothing boots and the table has no canary column.
	code, out, _ = packer(t, "", "hosts", "check", "--inventory", invPath)
	if code != 0 || strings.Contains(out, "CANARY") {
		t.Errorf("without --canary: exit %d\n%s", code, out)
	}
	// An inventory that boots from disk has no kernel for a canary.
	inv.Kernel, inv.Initrd = "", ""
	writeInventory(t, invPath, &inv)
	code, _, errs = packer(t, "", "hosts", "check", "--inventory", invPath, "--canary")
	if code != 1 || !strings.Contains(errs, "the canary failed on 2 of 2 hosts") || !strings.Contains(errs, "boots the appliance from disk") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
