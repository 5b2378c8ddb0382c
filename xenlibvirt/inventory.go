package xenlibvirt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/packer-sched/packer/model"
)

// ErrBadInventory is wrapped by every error ParseInventory reports.
var ErrBadInventory = errors.New("invalid inventory")

// Inventory is the operator's description of the physical hosts a plan is
// applied to and of the Hadoop appliance the VMs run. Plan host i is
// Hosts[i]; hosts beyond the plan's count are spares and left alone.
type Inventory struct {
	// Image is the Hadoop appliance's disk image, the same absolute path on
	// every host, inside a libvirt storage pool (so that packer can find it
	// through libvirt on remote hosts). Each VM gets a copy-on-write overlay.
	Image string `json:"image"`
	// ImageFormat is the image's format; default qcow2.
	ImageFormat string `json:"image_format,omitempty"`
	// Kernel, Initrd and Cmdline boot the appliance directly (no boot loader)
	// when Kernel is set; both files must be in a storage pool as well.
	// Cmdline is passed on, after packer's own packer.* arguments.
	Kernel  string `json:"kernel,omitempty"`
	Initrd  string `json:"initrd,omitempty"`
	Cmdline string `json:"cmdline,omitempty"`
	// VMMemoryMiB is each VM's memory in MiB; default the plan's
	// memory_mib_per_vm (host memory over the most VMs a host runs).
	VMMemoryMiB int `json:"vm_memory_mib,omitempty"`
	// DiskGiB is the virtual size of each VM's overlay in GiB; default the
	// image's own size (0).
	DiskGiB int `json:"disk_gib,omitempty"`
	// Subnet (IPv4 CIDR, e.g. "10.77.0.0/16") gives every VM of the plan a
	// static address of its own in it, handed to the guest with its host
	// name and the job's other VMs' addresses (for /etc/hosts), so that a
	// job's VMs on different hosts reach each other by name. The hosts'
	// networks or bridges must join one layer-2 segment carrying it. Empty:
	// the guests take what their network's DHCP gives and know no peers.
	Subnet string `json:"subnet,omitempty"`
	// FirstAddress is the offset in Subnet of the first VM's address;
	// default 10, leaving .1 to .9 of a /24 for the gateway and the hosts.
	FirstAddress int `json:"first_address,omitempty"`
	// Gateway is the VMs' default route, an address in Subnet outside the
	// VMs' range; empty: none.
	Gateway string `json:"gateway,omitempty"`
	// DNS servers the VMs are told of; empty: none.
	DNS []string `json:"dns,omitempty"`
	// Hosts are the physical machines, in the plan's host order.
	Hosts []InventoryHost `json:"hosts"`
}

// InventoryHost is one physical machine.
type InventoryHost struct {
	// Name identifies the host in tables, errors and the journal.
	Name string `json:"name"`
	// URI is the libvirt connection URI: qemu:///system,
	// qemu+ssh://host/system, xen:///system, or test:///abs/path.xml for
	// libvirt's test driver. In an inventory file, test:rel/path.xml (no
	// slashes after the colon) names a node file relative to the inventory
	// file's directory; reading the file makes it test:///abs/path.xml.
	URI string `json:"uri"`
	// Hypervisor is kvm, qemu (emulation, TCG) or xen: the domain type.
	Hypervisor string `json:"hypervisor"`
	// Cores is the number of physical cores the plan may use.
	Cores int `json:"cores"`
	// MemoryMiB is the memory the plan may use, in MiB.
	MemoryMiB int `json:"memory_mib"`
	// Disks are the k physical disks, in the plan's disk order: each is a
	// libvirt storage pool's name or its target directory (absolute path).
	Disks []string `json:"disks"`
	// Network is the libvirt network VMs attach to; default "default"
	// (unless Bridge is given); "user" gives QEMU's user-mode networking
	// (no bridge needed, but no VM reaches another).
	Network string `json:"network,omitempty"`
	// Bridge is a bridge device of the host (such as br0) VMs attach to
	// directly, in place of a libvirt network.
	Bridge string `json:"bridge,omitempty"`
}

// Hypervisor kinds an inventory may name.
const (
	KVM  = "kvm"
	QEMU = "qemu"
	Xen  = "xen"
)

// MaxInventoryBytes is the largest inventory file ReadInventoryFile reads:
// 16 MiB, tens of thousands of hosts.
const MaxInventoryBytes = 16 << 20

// ReadInventoryFile reads and validates an inventory file; one of more than
// MaxInventoryBytes is refused before it is parsed.
func ReadInventoryFile(path string) (*Inventory, error) {
	data, err := model.ReadFileLimit(path, MaxInventoryBytes, "an inventory file")
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, &model.InputError{File: path, Err: err}
	}
	return parseInventory(data, path, dir)
}

// ParseInventory decodes and validates an inventory; name is used in errors,
// which are *model.InputError naming the file and the field or line.
// Unknown fields are rejected: a misspelt field in an inventory would
// silently deploy something else. Relative test-driver URIs are left as they
// are (and refused): only ReadInventoryFile knows what they are relative to.
func ParseInventory(data []byte, name string) (*Inventory, error) {
	return parseInventory(data, name, "")
}

// resolveTestURI turns test:rel/path.xml into test:///dir/rel/path.xml.
func resolveTestURI(uri, dir string) string {
	rel, ok := strings.CutPrefix(uri, "test:")
	if !ok || dir == "" || rel == "" || strings.HasPrefix(rel, "/") {
		return uri
	}
	return "test://" + filepath.Join(dir, rel)
}

func parseInventory(data []byte, name, dir string) (*Inventory, error) {
	var inv Inventory
	data = model.TrimBOM(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&inv); err != nil {
		// Only a file that is not an inventory is sniffed, so a good
		// inventory is parsed once.
		if wrong := model.WrongFile(data, model.FileInventory); wrong != nil {
			return nil, &model.InputError{File: name, Err: fmt.Errorf("%w: %w", ErrBadInventory, wrong)}
		}
		return nil, &model.InputError{File: name, Err: fmt.Errorf("%w: %s", ErrBadInventory, jsonErr(data, dec, err))}
	}
	if dec.More() {
		return nil, &model.InputError{File: name, Err: fmt.Errorf("%w: trailing data after the inventory at %s", ErrBadInventory, lineCol(data, dec.InputOffset()))}
	}
	for i := range inv.Hosts {
		inv.Hosts[i].URI = resolveTestURI(inv.Hosts[i].URI, dir)
	}
	if err := inv.Validate(); err != nil {
		return nil, &model.InputError{File: name, Err: err}
	}
	return &inv, nil
}

// Validate checks the inventory on its own (not against a plan) and fills
// defaults: image_format qcow2 and network "default".
func (inv *Inventory) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadInventory, fmt.Sprintf(format, a...))
	}
	if inv.ImageFormat == "" {
		inv.ImageFormat = "qcow2"
	}
	for _, f := range []struct{ field, path string }{{"image", inv.Image}, {"kernel", inv.Kernel}, {"initrd", inv.Initrd}} {
		if (f.path != "" || f.field == "image") && !filepath.IsAbs(f.path) {
			return bad("%s: %q is not an absolute path", f.field, f.path)
		}
	}
	switch inv.ImageFormat {
	case "qcow2", "raw":
	default:
		return bad("image_format: %q is not qcow2 or raw", inv.ImageFormat)
	}
	if inv.Initrd != "" && inv.Kernel == "" {
		return bad("initrd: %q given without a kernel", inv.Initrd)
	}
	if inv.VMMemoryMiB < 0 {
		return bad("vm_memory_mib: %d is negative", inv.VMMemoryMiB)
	}
	if inv.VMMemoryMiB > model.MaxMemoryMiBPerHost {
		return bad("vm_memory_mib: %d is more than a host may have (%d MiB)", inv.VMMemoryMiB, model.MaxMemoryMiBPerHost)
	}
	if inv.DiskGiB < 0 {
		return bad("disk_gib: %d is negative", inv.DiskGiB)
	}
	if err := inv.validateSubnet(); err != nil {
		return bad("%v", err)
	}
	if len(inv.Hosts) == 0 {
		return bad("hosts: no hosts")
	}
	names, uris := map[string]int{}, map[string]int{}
	for i := range inv.Hosts {
		h := &inv.Hosts[i]
		at := fmt.Sprintf("hosts[%d]", i)
		if h.Name == "" || strings.ContainsAny(h.Name, " \t\n/") {
			return bad("%s.name: %q must be non-empty, without spaces or slashes", at, h.Name)
		}
		if j, dup := names[h.Name]; dup {
			return bad("%s.name: %q is already hosts[%d]'s name", at, h.Name, j)
		}
		names[h.Name] = i
		if !strings.Contains(h.URI, ":/") {
			return bad("%s.uri: %q is not a libvirt URI (like qemu:///system)", at, h.URI)
		}
		if j, dup := uris[h.URI]; dup {
			// Two entries for one machine would double its capacity.
			return bad("%s.uri: %q is already hosts[%d]'s URI", at, h.URI, j)
		}
		uris[h.URI] = i
		switch h.Hypervisor {
		case KVM, QEMU, Xen:
		default:
			return bad("%s.hypervisor: %q is not kvm, qemu or xen", at, h.Hypervisor)
		}
		if err := h.validateSize(); err != nil {
			return bad("%s.%v", at, err)
		}
		seen := map[string]int{}
		for d, disk := range h.Disks {
			if disk == "" || strings.ContainsAny(disk, "\n\t") {
				return bad("%s.disks[%d]: %q is not a pool name or directory", at, d, disk)
			}
			if e, dup := seen[disk]; dup {
				// Two VMs "on different disks" would share one spindle.
				return bad("%s.disks[%d]: %q is already disks[%d]", at, d, disk, e)
			}
			seen[disk] = d
		}
		if h.Bridge != "" && h.Network != "" {
			return bad("%s: network %q and bridge %q: give one", at, h.Network, h.Bridge)
		}
		if h.Bridge != "" && (strings.ContainsAny(h.Bridge, " \t\n/") || len(h.Bridge) > 15) {
			return bad("%s.bridge: %q is not a network device name (at most 15 characters, no spaces or slashes)", at, h.Bridge)
		}
		if h.Network == "" && h.Bridge == "" {
			h.Network = "default"
		}
		if h.Network == UserNetwork && h.Hypervisor == Xen {
			return bad("%s.network: %q is QEMU's user-mode network; a xen host needs a libvirt network", at, h.Network)
		}
	}
	return nil
}

// validateSize checks a host's cores, memory and number of disks against
// model's plausibility bounds: `memory_mib: 1000000000000` is a slip of
// the fingers, not a host to plan for. Its error starts with the field.
func (h *InventoryHost) validateSize() error {
	switch {
	case h.Cores <= 0:
		return fmt.Errorf("cores: %d must be positive", h.Cores)
	case h.Cores > model.MaxCoresPerHost:
		return fmt.Errorf("cores: %d must be at most %d", h.Cores, model.MaxCoresPerHost)
	case h.MemoryMiB <= 0:
		return fmt.Errorf("memory_mib: %d must be positive", h.MemoryMiB)
	case h.MemoryMiB > model.MaxMemoryMiBPerHost:
		return fmt.Errorf("memory_mib: %d must be at most %d (64 TiB)", h.MemoryMiB, model.MaxMemoryMiBPerHost)
	case len(h.Disks) == 0:
		return errors.New("disks: no disks")
	case len(h.Disks) > model.MaxDisksPerHost:
		return fmt.Errorf("disks: %d disks, at most %d may be given", len(h.Disks), model.MaxDisksPerHost)
	}
	return nil
}

// jsonErr turns a decoding error into a message with a line and column.
func jsonErr(data []byte, dec *json.Decoder, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s: %v", lineCol(data, syn.Offset-1), syn) // Offset counts the bad byte
	case errors.As(err, &typ):
		return fmt.Sprintf("%s: field %s: %s is not %s", lineCol(data, typ.Offset), typ.Field, typ.Value, jsonKind(typ.Type, typ.Value))
	case errors.Is(err, io.EOF):
		return "empty document"
	}
	return fmt.Sprintf("%s: %v", lineCol(data, dec.InputOffset()), err)
}

// jsonKind names the Go type a JSON value (described as value, e.g.
// "number 1e12") failed to fit as people read it: "number 1e12 is not an
// integer in digits" rather than "is not a int".
func jsonKind(t reflect.Type, value string) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if num, ok := strings.CutPrefix(value, "number "); ok && !strings.ContainsAny(num, ".eE") {
			return "an integer in range"
		}
		return "an integer in digits (like 8192)"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}

// lineCol formats a byte offset as "line L col C", both from 1.
func lineCol(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d col %d", line, col)
}
