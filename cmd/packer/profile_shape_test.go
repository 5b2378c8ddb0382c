package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/xenlibvirt"
)

// inventoryShape sizes VMs as xenlibvirt.Profile does: hosts of 8 and 6
// cores, 16384 and 12288 MiB, 2 and 3 disks give min 6 cores over min 2
// disks = 3 vCPUs and 12288/2 = 6144 MiB; vm_memory_mib and given vCPUs
// take precedence.
func TestInventoryShape(t *testing.T) {
	inv := &xenlibvirt.Inventory{Hosts: []xenlibvirt.InventoryHost{
		{Cores: 8, MemoryMiB: 16384, Disks: []string{"a", "b"}},
		{Cores: 6, MemoryMiB: 12288, Disks: []string{"a", "b", "c"}},
	}}
	if got := *inventoryShape(inv, nil); got != (model.VMShape{VCPUs: 3, MemoryMiB: 6144}) {
		t.Errorf("shape %+v, want 3 vCPUs and 6144 MiB", got)
	}
	inv.VMMemoryMiB = 2048
	if got := *inventoryShape(inv, &model.VMShape{VCPUs: 1}); got != (model.VMShape{VCPUs: 1, MemoryMiB: 2048}) {
		t.Errorf("shape %+v, want 1 vCPU (given) and 2048 MiB (vm_memory_mib)", got)
	}
}

// A local profile with --vcpus-per-node records that shape; plan reads it:
// no note on VMs of 2 vCPUs (4 cores over 2 disks), a note and, with
// --strict-shape, a refusal on VMs of 4 (8 cores). Without the flag the
// profile records no shape, as before.
func TestProfileRecordsVMShape(t *testing.T) {
	t.Setenv(profileHelperEnv, "1")
	dir := t.TempDir()
	prof := filepath.Join(dir, "profile.json")
	args := append([]string{"profile", "--job", "divider", "--nodes", "1,2", "--vcpus-per-node", "2", "--output", prof}, profileHelperCommand("divide", "100")...)
	if code, _, errs := packer(t, "", args...); code != 0 {
		t.Fatalf("profile: exit %d, stderr %q", code, errs)
	}
	w, err := model.ReadWorkloadFile(prof, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := w.Jobs[0].Shape; s == nil || *s != (model.VMShape{VCPUs: 2}) {
		t.Fatalf("profile's vm_shape = %+v, want 2 vCPUs", s)
	}
	code, out, errs := packer(t, "", "plan", "-w", prof, "-a", "exact")
	if code != 0 || strings.Contains(out, "VM shape") {
		t.Errorf("plan on 2-vCPU VMs: exit %d, stderr %q, a shape note in:\n%s", code, errs, out)
	}
	code, out, _ = packer(t, "", "plan", "-w", prof, "-a", "exact", "--cores", "8")
	if code != 0 || !strings.Contains(out, "Note: VM shape: job divider was measured on VMs of 2 vCPUs (memory not recorded), this plan's VMs have 4 vCPUs") {
		t.Errorf("plan on 4-vCPU VMs: exit %d, no note naming divider:\n%s", code, out)
	}
	code, out, errs = packer(t, "", "plan", "-w", prof, "-a", "exact", "--cores", "8", "--strict-shape")
	if code != 2 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "job divider") {
		t.Errorf("--strict-shape: exit %d, stdout %q, stderr %q: want exit 2 and one line", code, out, errs)
	}

	args = append([]string{"profile", "--job", "divider", "--nodes", "1,2", "--output", prof}, profileHelperCommand("divide", "100")...)
	if code, _, errs := packer(t, "", args...); code != 0 {
		t.Fatalf("profile without --vcpus-per-node: exit %d, stderr %q", code, errs)
	}
	if w, err := model.ReadWorkloadFile(prof, nil); err != nil || w.Jobs[0].Shape != nil {
		t.Errorf("profile without --vcpus-per-node: %v, vm_shape %+v", err, w.Jobs[0].Shape)
	}
}
