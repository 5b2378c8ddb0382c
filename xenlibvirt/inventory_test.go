package xenlibvirt

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/model/modeltest"
)

const goodInventory = `{
  "image": "/var/lib/packer/images/appliance.qcow2",
  "hosts": [
    {"name": "h0", "uri": "qemu+ssh://h0/system", "hypervisor": "kvm", "cores": 4, "memory_mib": 8192, "disks": ["/srv/d0", "fast1"]},
    {"name": "h1", "uri": "xen:///system", "hypervisor": "xen", "cores": 4, "memory_mib": 8192, "disks": ["/srv/d0", "/srv/d1"], "network": "br0"}
  ]
}`

func TestParseInventoryDefaults(t *testing.T) {
	inv, err := ParseInventory([]byte(goodInventory), "inv.json")
	if err != nil {
		t.Fatal(err)
	}
	if inv.ImageFormat != "qcow2" || inv.Hosts[0].Network != "default" || inv.Hosts[1].Network != "br0" {
		t.Errorf("defaults not filled: format %q networks %q %q", inv.ImageFormat, inv.Hosts[0].Network, inv.Hosts[1].Network)
	}
}

func TestParseInventoryErrors(t *testing.T) {
	edit := func(from, to string) string { return strings.Replace(goodInventory, from, to, 1) }
	for _, tc := range []struct{ doc, want string }{
		{"", "inv.json: invalid inventory: empty document"},
		{"{\n  \"image\": 3}", "inv.json: invalid inventory: line 2 col 13: field image: number is not a string"},
		{"{\"image\": \"/x\",\n \"hots\": []}", `inv.json: invalid inventory: line 2 col 13: json: unknown field "hots"`},
		{goodInventory + "{}", "inv.json: invalid inventory: trailing data after the inventory at line 7 col 2"},
		{edit(`"/var/lib/packer/images/appliance.qcow2"`, `"appliance.qcow2"`), `inv.json: invalid inventory: image: "appliance.qcow2" is not an absolute path`},
		{edit(`"image": "/var`, `"image_format": "vmdk", "image": "/var`), `inv.json: invalid inventory: image_format: "vmdk" is not qcow2 or raw`},
		{edit(`"hypervisor": "xen"`, `"hypervisor": "vmware"`), `inv.json: invalid inventory: hosts[1].hypervisor: "vmware" is not kvm, qemu or xen`},
		{edit(`"name": "h1"`, `"name": "h0"`), `inv.json: invalid inventory: hosts[1].name: "h0" is already hosts[0]'s name`},
		{edit(`"xen:///system"`, `"qemu+ssh://h0/system"`), `inv.json: invalid inventory: hosts[1].uri: "qemu+ssh://h0/system" is already hosts[0]'s URI`},
		{edit(`"xen:///system"`, `"h1"`), `inv.json: invalid inventory: hosts[1].uri: "h1" is not a libvirt URI (like qemu:///system)`},
		{edit(`"cores": 4`, `"cores": 0`), `inv.json: invalid inventory: hosts[0].cores: 0 must be positive`},
		{edit(`"memory_mib": 8192`, `"memory_mib": -1`), `inv.json: invalid inventory: hosts[0].memory_mib: -1 must be positive`},
		{edit(`["/srv/d0", "/srv/d1"]`, `["/srv/d0", "/srv/d0"]`), `inv.json: invalid inventory: hosts[1].disks[1]: "/srv/d0" is already disks[0]`},
		{edit(`["/srv/d0", "/srv/d1"]`, `[]`), `inv.json: invalid inventory: hosts[1].disks: no disks`},
		{edit(`"cores": 4`, `"cores": 4097`), `inv.json: invalid inventory: hosts[0].cores: 4097 must be at most 4096`},
		{edit(`"cores": 4`, `"cores": 9223372036854775807`), `inv.json: invalid inventory: hosts[0].cores: 9223372036854775807 must be at most 4096`},
		{edit(`"memory_mib": 8192`, `"memory_mib": 1000000000000`), `inv.json: invalid inventory: hosts[0].memory_mib: 1000000000000 must be at most 67108864 (64 TiB)`},
		{edit(`"memory_mib": 8192`, `"memory_mib": 67108865`), `inv.json: invalid inventory: hosts[0].memory_mib: 67108865 must be at most 67108864 (64 TiB)`},
		{edit(`"memory_mib": 8192`, `"memory_mib": 1e12`), `inv.json: invalid inventory: line 4 col 102: field hosts.memory_mib: number 1e12 is not an integer in digits (like 8192)`},
		{edit(`"memory_mib": 8192`, `"memory_mib": 99999999999999999999`), `inv.json: invalid inventory: line 4 col 118: field hosts.memory_mib: number 99999999999999999999 is not an integer in range`},
		{edit(`["/srv/d0", "/srv/d1"]`, manyDisks(129)), `inv.json: invalid inventory: hosts[1].disks: 129 disks, at most 128 may be given`},
		{edit(`"image": "/var`, `"vm_memory_mib": 1000000000000, "image": "/var`), `inv.json: invalid inventory: vm_memory_mib: 1000000000000 is more than a host may have (67108864 MiB)`},
		{`{"image": "/x", "hosts": []}`, `inv.json: invalid inventory: hosts: no hosts`},
		{`{"version": 1, "jobs": [], "phases": [], "makespan": 1}`, `inv.json: invalid inventory: a plan document (from packer plan --output), not a host inventory`},
		{`{"jobs": [{"name": "j", "model": {"a": 1, "b": -1}}]}`, `inv.json: invalid inventory: a packer workload file (job models), not a host inventory`},
		{edit(`"image": "/var`, `"initrd": "/i", "image": "/var`), `inv.json: invalid inventory: initrd: "/i" given without a kernel`},
		{edit(`"br0"`, `"user"`), `inv.json: invalid inventory: hosts[1].network: "user" is QEMU's user-mode network; a xen host needs a libvirt network`},
		{edit(`"network": "br0"`, `"network": "n", "bridge": "br0"`), `inv.json: invalid inventory: hosts[1]: network "n" and bridge "br0": give one`},
		{edit(`"network": "br0"`, `"bridge": "a-very-long-bridge-name"`), `inv.json: invalid inventory: hosts[1].bridge: "a-very-long-bridge-name" is not a network device name (at most 15 characters, no spaces or slashes)`},
		{edit(`"image": "/var`, `"subnet": "10.77.0.0", "image": "/var`), `inv.json: invalid inventory: subnet: "10.77.0.0" is not an IPv4 network in CIDR form (like 10.77.0.0/16)`},
		{edit(`"image": "/var`, `"subnet": "fd00::/64", "image": "/var`), `inv.json: invalid inventory: subnet: "fd00::/64" is not an IPv4 network in CIDR form (like 10.77.0.0/16)`},
		{edit(`"image": "/var`, `"subnet": "10.77.0.5/24", "image": "/var`), `inv.json: invalid inventory: subnet: "10.77.0.5/24" has host bits set; the network is 10.77.0.0/24`},
		{edit(`"image": "/var`, `"subnet": "10.77.0.0/31", "image": "/var`), `inv.json: invalid inventory: subnet: "10.77.0.0/31" is too small for VMs (at most /30)`},
		{edit(`"image": "/var`, `"subnet": "10.77.0.0/28", "first_address": 15, "image": "/var`), `inv.json: invalid inventory: first_address: 15 is past the last address of 10.77.0.0/28`},
		{edit(`"image": "/var`, `"subnet": "10.77.0.0/24", "gateway": "10.78.0.1", "image": "/var`), `inv.json: invalid inventory: gateway: "10.78.0.1" is not an address in subnet 10.77.0.0/24`},
		{edit(`"image": "/var`, `"subnet": "10.77.0.0/24", "gateway": "10.77.0.10", "image": "/var`), `inv.json: invalid inventory: gateway: 10.77.0.10 is at offset 10, among the VMs' addresses (from first_address 10); give a lower one or raise first_address`},
		{edit(`"image": "/var`, `"gateway": "10.77.0.1", "image": "/var`), `inv.json: invalid inventory: gateway: "10.77.0.1" given without a subnet`},
		{edit(`"image": "/var`, `"subnet": "10.77.0.0/24", "dns": ["8.8.8"], "image": "/var`), `inv.json: invalid inventory: dns[0]: "8.8.8" is not an IP address`},
	} {
		_, err := ParseInventory([]byte(tc.doc), "inv.json")
		var in *model.InputError
		if err == nil || err.Error() != tc.want || !errors.As(err, &in) || !errors.Is(err, ErrBadInventory) {
			t.Errorf("ParseInventory:\n got %v\nwant %s", err, tc.want)
		}
	}
}

// manyDisks is a JSON list of n distinct disk directories.
func manyDisks(n int) string {
	d := make([]string, n)
	for i := range d {
		d[i] = fmt.Sprintf("%q", fmt.Sprintf("/srv/d%d", i))
	}
	return "[" + strings.Join(d, ", ") + "]"
}

// TestInventoryBoundsInclusive: a host at every bound (4096 cores, 64 TiB,
// 128 disks) is accepted; the bounds refuse only what lies past them.
func TestInventoryBoundsInclusive(t *testing.T) {
	doc := strings.NewReplacer(`"cores": 4`, `"cores": 4096`, `"memory_mib": 8192`, `"memory_mib": 67108864`,
		`["/srv/d0", "/srv/d1"]`, manyDisks(128)).Replace(goodInventory)
	inv, err := ParseInventory([]byte(doc), "inv.json")
	if err != nil {
		t.Fatal(err)
	}
	if h := inv.Hosts[1]; h.Cores != model.MaxCoresPerHost || h.MemoryMiB != model.MaxMemoryMiBPerHost || len(h.Disks) != model.MaxDisksPerHost {
		t.Errorf("host at the bounds read as %d cores, %d MiB, %d disks", h.Cores, h.MemoryMiB, len(h.Disks))
	}
}

// FuzzParseInventory: any input either fails with an InputError naming the
// file, or gives an inventory that validates again and survives a JSON
// round trip unchanged.
func FuzzParseInventory(f *testing.F) {
	f.Add([]byte(goodInventory))
	f.Add([]byte(`{"image":"/a","hosts":[{"name":"x","uri":"test:///x.xml","hypervisor":"qemu","cores":1,"memory_mib":1,"disks":["d"]}]}`))
	f.Add([]byte(`{"hosts": null}`))
	f.Add([]byte(`[]`))
	// Implausible sizes: refused, with the field named.
	f.Add([]byte(`{"image":"/a","hosts":[{"name":"x","uri":"test:///x.xml","hypervisor":"qemu","cores":1,"memory_mib":1000000000000,"disks":["d"]}]}`))
	f.Add([]byte(`{"image":"/a","hosts":[{"name":"x","uri":"test:///x.xml","hypervisor":"qemu","cores":1,"memory_mib":1e12,"disks":["d"]}]}`))
	f.Add([]byte(`{"image":"/a","hosts":[{"name":"x","uri":"test:///x.xml","hypervisor":"qemu","cores":100000,"memory_mib":1,"disks":["d"]}]}`))
	f.Add([]byte(`{"image":"/a","vm_memory_mib":1000000000000,"hosts":[{"name":"x","uri":"test:///x.xml","hypervisor":"qemu","cores":1,"memory_mib":1,"disks":["d"]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := ParseInventory(data, "fuzz.json")
		if err != nil {
			modeltest.NamesFile(t, err, "fuzz.json")
			return
		}
		for i, h := range inv.Hosts {
			if h.Cores > model.MaxCoresPerHost || h.MemoryMiB > model.MaxMemoryMiBPerHost || len(h.Disks) > model.MaxDisksPerHost {
				t.Fatalf("hosts[%d] passed with %d cores, %d MiB, %d disks", i, h.Cores, h.MemoryMiB, len(h.Disks))
			}
		}
		b, err := json.Marshal(inv)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseInventory(b, "again.json")
		if err != nil {
			t.Fatalf("round trip: %v\n%s", err, b)
		}
		b2, _ := json.Marshal(again)
		if string(b) != string(b2) {
			t.Fatalf("round trip changed the inventory:\n%s\n%s", b, b2)
		}
	})
}

// TestVMAddresses: a /28 from first_address 10 holds offsets 10 to 14 (15
// is the broadcast): five VMs, numbered 0 to 4.
func TestVMAddresses(t *testing.T) {
	inv := &Inventory{Subnet: "10.77.0.16/28", FirstAddress: 10}
	if got := inv.vmAddresses(); got != 5 {
		t.Fatalf("vmAddresses = %d, want 5", got)
	}
	for v, want := range []string{"10.77.0.26/28", "10.77.0.27/28", "10.77.0.28/28", "10.77.0.29/28", "10.77.0.30/28"} {
		a, err := inv.vmAddress(v)
		if err != nil || a.String() != want {
			t.Errorf("vmAddress(%d) = %v, %v; want %s", v, a, err, want)
		}
	}
	if _, err := inv.vmAddress(5); err == nil {
		t.Error("VM 5 got an address: the broadcast")
	}
	// Offsets carry across octets: 10.77.0.0/16 from 10, VM 250 is .1.4.
	inv = &Inventory{Subnet: "10.77.0.0/16", FirstAddress: 10}
	if a, _ := inv.vmAddress(250); a.String() != "10.77.1.4/16" {
		t.Errorf("vmAddress(250) = %v, want 10.77.1.4/16", a)
	}
}
