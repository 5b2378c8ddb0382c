package xenlibvirt

import (
	"encoding/json"
	"errors"
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
		{`{"image": "/x", "hosts": []}`, `inv.json: invalid inventory: hosts: no hosts`},
		{`{"version": 1, "jobs": [], "phases": [], "makespan": 1}`, `inv.json: invalid inventory: a plan document (from packer plan --output), not a host inventory`},
		{`{"jobs": [{"name": "j", "model": {"a": 1, "b": -1}}]}`, `inv.json: invalid inventory: a packer workload file (job models), not a host inventory`},
		{edit(`"image": "/var`, `"initrd": "/i", "image": "/var`), `inv.json: invalid inventory: initrd: "/i" given without a kernel`},
		{edit(`"br0"`, `"user"`), `inv.json: invalid inventory: hosts[1].network: "user" is QEMU's user-mode network; a xen host needs a libvirt network`},
	} {
		_, err := ParseInventory([]byte(tc.doc), "inv.json")
		var in *model.InputError
		if err == nil || err.Error() != tc.want || !errors.As(err, &in) || !errors.Is(err, ErrBadInventory) {
			t.Errorf("ParseInventory:\n got %v\nwant %s", err, tc.want)
		}
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
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := ParseInventory(data, "fuzz.json")
		if err != nil {
			modeltest.NamesFile(t, err, "fuzz.json")
			return
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
