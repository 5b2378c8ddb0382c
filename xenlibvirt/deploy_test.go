package xenlibvirt

import (
	"slices"
	"testing"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/workloads"
)

// TestCheckHypervisor: Check is pure, so facts of real drivers can be made
// up: a kvm host needs libvirt's QEMU driver offering the kvm domain type, a
// xen host the Xen driver; the test driver stands in for any.
func TestCheckHypervisor(t *testing.T) {
	w, err := workloads.Get("W1")
	if err != nil {
		t.Fatal(err)
	}
	c := model.PaperCluster()
	c.Hosts = 1
	pl := plantest.Sequential(t, w, c)
	inv := &Inventory{Image: "/i", Hosts: []InventoryHost{{Name: "h0", URI: "qemu:///system", Cores: 4, MemoryMiB: 8192, Disks: []string{"a", "b"}}}}
	facts := func(typ string, virt ...string) []HostFacts {
		return []HostFacts{{Type: typ, VirtTypes: virt, CPUs: 4, MemoryMiB: 8192, Pools: []Pool{{"a", "/a"}, {"b", "/b"}}}}
	}
	for _, tc := range []struct {
		hv    string
		facts []HostFacts
		want  []string
	}{
		{KVM, facts("QEMU", "kvm", "qemu"), nil},
		{QEMU, facts("QEMU", "qemu"), nil},
		{KVM, facts("QEMU", "qemu"), []string{"host h0: hypervisor kvm, but libvirt offers domain types qemu"}},
		{KVM, facts("Xen", "xen"), []string{"host h0: hypervisor kvm, but libvirt's driver is Xen"}},
		{Xen, facts("Xen", "xen"), nil},
		{Xen, facts("QEMU", "kvm", "qemu"), []string{"host h0: hypervisor xen, but libvirt's driver is QEMU"}},
		{Xen, facts("TEST", "test"), nil},
	} {
		inv.Hosts[0].Hypervisor = tc.hv
		if got := Check(pl, inv, tc.facts); !slices.Equal(got, tc.want) {
			t.Errorf("%s on %s %v: %q, want %q", tc.hv, tc.facts[0].Type, tc.facts[0].VirtTypes, got, tc.want)
		}
	}
}

func TestVirtTypes(t *testing.T) {
	caps := `<capabilities><guest><os_type>hvm</os_type><arch name='x86_64'><domain type='qemu'/><domain type='kvm'/></arch></guest>
<guest><os_type>hvm</os_type><arch name='i686'><domain type='qemu'/></arch></guest>
<guest><os_type>hvm</os_type><arch name='aarch64'><domain type='tcg'/></arch></guest></capabilities>`
	got, err := virtTypes(caps)
	if err != nil || !slices.Equal(got, []string{"kvm", "qemu"}) {
		t.Errorf("virtTypes = %v, %v; want [kvm qemu] (x86 only, sorted, once each)", got, err)
	}
}
