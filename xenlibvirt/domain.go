package xenlibvirt

import (
	"bytes"
	"crypto/sha256"
	"encoding/xml"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// MetadataNS is the XML namespace of packer's <metadata> element in a domain.
// A domain is packer's only if it carries this element (see Owns).
const MetadataNS = "https://github.com/packer-sched/packer/xmlns/vm/1"

// metadataPrefix is the namespace prefix packer's element is written with.
const metadataPrefix = "packer"

// VM is one virtual machine of one phase with everything that identifies it:
// where it runs, its disk, its name and its identity inside the guest.
type VM struct {
	Meta Metadata
	// Host is the plan's host index, HostName its inventory name.
	Host     int
	HostName string
	// Disk is the inventory disk (pool name or directory) the VM's overlay
	// goes on; DiskIndex its index 0..k−1.
	Disk      string
	DiskIndex int
	// Name is the libvirt domain name, packer-<plan>-p<phase number>-<job>-<i>.
	Name string
	// Hostname is handed to the guest: <job>-<i>; MasterHostname is the
	// hostname of the job's VM 0, the Hadoop master.
	Hostname       string
	MasterHostname string
	UUID           string
	MAC            string
	// Address is the VM's static address with its subnet's length (the
	// inventory's subnet); the zero Prefix without one.
	Address netip.Prefix
}

// Metadata is what packer writes into a domain's <metadata> and reads back to
// decide whether the domain is its own.
type Metadata struct {
	XMLName xml.Name `xml:"vm"`
	Plan    string   `xml:"plan"`
	Phase   int      `xml:"phase"`
	Job     string   `xml:"job"`
	Role    string   `xml:"role"`
	Index   int      `xml:"index"`
	// Master marks the job's Hadoop master, its VM 0 (the packing paper, section 2).
	Master bool   `xml:"master"`
	Name   string `xml:"name"`
}

// ParseMetadata reads the element libvirt returns for MetadataNS.
func ParseMetadata(s string) (Metadata, error) {
	var m Metadata
	if err := xml.Unmarshal([]byte(s), &m); err != nil {
		return Metadata{}, fmt.Errorf("xenlibvirt: domain metadata: %w", err)
	}
	m.XMLName = xml.Name{} // as written, so that values compare equal
	return m, nil
}

// Owns reports whether a domain named name whose packer metadata is m (nil:
// none) belongs to plan: its metadata names this plan and this very domain.
// A domain that merely has a matching name is someone else's.
func Owns(plan, name string, m *Metadata) bool {
	return m != nil && m.Plan == plan && m.Name == name
}

// nameSafe reduces s to lower-case [a-z0-9-], runs of anything else becoming
// one '-', so that job names are safe in domain, file and host names.
func nameSafe(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// Limits names are kept within: a DNS label (the guest's hostname) is at most
// 63 bytes, a file name (the overlay, libvirt's <name>.xml) at most 255. A job
// name longer than maxJobPart is cut and a hash of the whole name appended,
// so that a 10,000-character job name still makes valid, distinct names
// before any host is touched.
const (
	maxHostname = 63
	maxFileName = 255
	maxJobPart  = 40
)

// jobPart is the job's name as it appears in domain and host names: made safe
// (nameSafe) and, when longer than maxJobPart, cut to leave room for "-" and
// 8 hex digits of the SHA-256 of the original name. It is "" only when the
// name has no letter or digit at all.
func jobPart(job string) string {
	s := nameSafe(job)
	if len(s) <= maxJobPart {
		return s
	}
	h := sha256.Sum256([]byte(job))
	return strings.Trim(s[:maxJobPart-9], "-") + "-" + fmt.Sprintf("%x", h[:4])
}

// PhaseNumber is how people count phases, from 1, as packer plan prints them;
// plan documents, journals and domain metadata keep the 0-based index.
func PhaseNumber(index int) int { return index + 1 }

// DomainName is packer-<plan>-p<phase number>-<job>-<index>, the job name made
// safe and short (jobPart); phase is the 0-based index, the name carries the
// phase's number from 1.
func DomainName(plan string, phase int, job string, index int) string {
	return fmt.Sprintf("packer-%s-p%d-%s-%d", plan, PhaseNumber(phase), jobPart(job), index)
}

// guestHostname is <job>-<index>, within a DNS label's 63 characters.
func guestHostname(job string, index int) string {
	suffix := "-" + strconv.Itoa(index)
	j := jobPart(job)
	if j == "" {
		j = "vm"
	}
	if len(j)+len(suffix) > maxHostname {
		j = strings.Trim(j[:maxHostname-len(suffix)], "-")
	}
	return j + suffix
}

// identity derives the VM's UUID and MAC from its domain name and a salt, so
// that a resumed apply recreates the same machine. The MAC is in the
// hypervisor's customary range (52:54:00 for QEMU/KVM, 00:16:3e for Xen);
// salt lets the caller step past a MAC already taken in the phase.
func identity(name, hypervisor string, salt int) (uuid, mac string) {
	h := sha256.Sum256([]byte(name + "\x00" + strconv.Itoa(salt)))
	u := h[:16]
	u[6] = u[6]&0x0f | 0x50 // version 5 (name-based, SHA)
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	uuid = fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	prefix := "52:54:00"
	if hypervisor == Xen {
		prefix = "00:16:3e"
	}
	return uuid, fmt.Sprintf("%s:%02x:%02x:%02x", prefix, h[16], h[17], h[18])
}

// UserNetwork as an inventory host's network gives VMs QEMU's user-mode
// networking instead of a libvirt network: it needs no bridge and no
// privileges (QEMU/KVM only).
const UserNetwork = "user"

// identityArgs are the packer.* words that tell a guest who it is.
func identityArgs(vm VM) []string {
	m := vm.Meta
	args := []string{"packer.plan=" + m.Plan, "packer.job=" + jobPart(m.Job), "packer.index=" + strconv.Itoa(m.Index),
		"packer.role=" + m.Role, "packer.hostname=" + vm.Hostname, "packer.master=" + vm.MasterHostname}
	if m.Master {
		args = append(args, "packer.is_master=1")
	}
	return args
}

// DomainSpec is what DomainXML needs beyond the VM's identity.
type DomainSpec struct {
	// Hypervisor is kvm, qemu or xen.
	Hypervisor string
	VCPUs      int
	MemoryMiB  int
	// DiskPath is the VM's copy-on-write overlay, DiskFormat its format
	// (the overlay is always qcow2).
	DiskPath string
	// SeedPath is the VM's NoCloud seed volume (raw ISO 9660), attached
	// read-only as its second disk; "" for none.
	SeedPath string
	// Network is the libvirt network, or Bridge the host's bridge device,
	// the VM's NIC joins.
	Network string
	Bridge  string
	Kernel  string
	Initrd  string
	// Cmdline is appended to packer's own packer.* kernel arguments.
	Cmdline string
}

// DomainXML builds the libvirt domain XML of one VM for kvm, qemu or xen.
// The differences are confined to the domain type, the OS type (hvm for
// QEMU/KVM; xen, that is paravirtual, for Xen), the disk bus (virtio or xen)
// and the NIC model. The guest learns its identity from the kernel command
// line when the appliance boots directly (packer.hostname, packer.master,
// packer.job, packer.index, packer.role, packer.plan), and from the metadata
// element otherwise; the job's master carries packer.is_master=1.
// The domain is destroyed, not restarted, when the guest powers off: the
// appliance powering off is how a job says it is done.
func DomainXML(vm VM, s DomainSpec) (string, error) {
	if s.VCPUs <= 0 || s.MemoryMiB <= 0 {
		return "", fmt.Errorf("xenlibvirt: domain %s: vcpus %d and memory %d MiB must be positive", vm.Name, s.VCPUs, s.MemoryMiB)
	}
	d := domainDoc{Type: s.Hypervisor, Name: vm.Name, UUID: vm.UUID,
		Memory: sized{Unit: "MiB", Value: s.MemoryMiB}, VCPU: s.VCPUs,
		OnPoweroff: "destroy", OnReboot: "restart", OnCrash: "destroy"}
	var meta bytes.Buffer
	m := vm.Meta
	fmt.Fprintf(&meta, "<%s:vm xmlns:%s=%q>", metadataPrefix, metadataPrefix, MetadataNS)
	for _, f := range [][2]string{{"plan", m.Plan}, {"phase", strconv.Itoa(m.Phase)}, {"job", m.Job},
		{"role", m.Role}, {"index", strconv.Itoa(m.Index)}, {"master", strconv.FormatBool(m.Master)}, {"name", m.Name}} {
		fmt.Fprintf(&meta, "<%s:%s>", metadataPrefix, f[0])
		if err := xml.EscapeText(&meta, []byte(f[1])); err != nil {
			return "", err
		}
		fmt.Fprintf(&meta, "</%s:%s>", metadataPrefix, f[0])
	}
	fmt.Fprintf(&meta, "</%s:vm>", metadataPrefix)
	d.Metadata = &metadataDoc{Inner: meta.String()}

	bus, dev, nic := "virtio", "vda", &nicModel{Type: "virtio"}
	switch s.Hypervisor {
	case KVM, QEMU:
		d.OS.Type = osType{Arch: "x86_64", Value: "hvm"}
		// Without ACPI the guest's poweroff only halts it, and the domain
		// never stops: the job's end would go unseen.
		d.Features = &features{ACPI: &struct{}{}, APIC: &struct{}{}}
		// An appliance booting from its disk has no packer kernel command
		// line: it reads its identity from SMBIOS (dmidecode -t 11 lists
		// the OEM strings, -s system-serial-number is the hostname).
		d.Sysinfo = &sysinfo{Type: "smbios",
			System: []sysEntry{{Name: "manufacturer", Value: "packer"}, {Name: "product", Value: "packer Hadoop appliance"},
				{Name: "serial", Value: vm.Hostname}},
			OEM: identityArgs(vm)}
		d.OS.SMBIOS = &smbios{Mode: "sysinfo"}
	case Xen:
		d.OS.Type = osType{Value: "xen"}
		bus, dev, nic = "xen", "xvda", nil
		if s.Kernel == "" {
			d.Bootloader = "pygrub"
		}
	default:
		return "", fmt.Errorf("xenlibvirt: domain %s: hypervisor %q is not kvm, qemu or xen", vm.Name, s.Hypervisor)
	}
	if s.Hypervisor == Xen && s.Network == UserNetwork {
		return "", fmt.Errorf("xenlibvirt: domain %s: network %q is QEMU's; Xen needs a libvirt network", vm.Name, UserNetwork)
	}
	if s.Kernel != "" {
		d.OS.Kernel, d.OS.Initrd = s.Kernel, s.Initrd
		args := identityArgs(vm)
		if s.Cmdline != "" {
			args = append(args, s.Cmdline)
		}
		d.OS.Cmdline = strings.Join(args, " ")
	} else if s.Hypervisor != Xen {
		d.OS.Boot = &boot{Dev: "hd"}
	}
	d.Devices = &devices{Disk: []disk{{Type: "file", Device: "disk", Driver: driver{Name: "qemu", Type: "qcow2"},
		Source: source{File: s.DiskPath}, Target: target{Dev: dev, Bus: bus}}}}
	if s.SeedPath != "" {
		d.Devices.Disk = append(d.Devices.Disk, disk{Type: "file", Device: "disk", Driver: driver{Name: "qemu", Type: "raw"},
			Source: source{File: s.SeedPath}, Target: target{Dev: dev[:len(dev)-1] + "b", Bus: bus}, ReadOnly: &struct{}{}})
	}
	d.Devices.Interface = iface{Type: "network", MAC: mac{Address: vm.MAC}, Source: &netSource{Network: s.Network}, Model: nic}
	if s.Bridge != "" {
		d.Devices.Interface.Type, d.Devices.Interface.Source = "bridge", &netSource{Bridge: s.Bridge}
	}
	if s.Network == UserNetwork {
		// QEMU's own user-mode network: no bridge, no privileges.
		d.Devices.Interface.Type, d.Devices.Interface.Source = "user", nil
	}
	d.Devices.Console = &console{Type: "pty"}
	out, err := xml.MarshalIndent(d, "", "  ")
	if err != nil {
		return "", fmt.Errorf("xenlibvirt: domain %s: %w", vm.Name, err)
	}
	return string(out) + "\n", nil
}

// domainDoc is a domain's XML: a VM's (DomainXML) or, without UUID,
// metadata and devices, a canary's (Canary.xml).
type domainDoc struct {
	XMLName    xml.Name     `xml:"domain"`
	Type       string       `xml:"type,attr"`
	Name       string       `xml:"name"`
	UUID       string       `xml:"uuid,omitempty"`
	Metadata   *metadataDoc `xml:"metadata"`
	Memory     sized        `xml:"memory"`
	VCPU       int          `xml:"vcpu"`
	Bootloader string       `xml:"bootloader,omitempty"`
	Sysinfo    *sysinfo     `xml:"sysinfo"`
	OS         osDoc        `xml:"os"`
	Features   *features    `xml:"features"`
	OnPoweroff string       `xml:"on_poweroff"`
	OnReboot   string       `xml:"on_reboot"`
	OnCrash    string       `xml:"on_crash"`
	Devices    *devices     `xml:"devices"`
}

type metadataDoc struct {
	Inner string `xml:",innerxml"`
}

type features struct {
	ACPI *struct{} `xml:"acpi"`
	APIC *struct{} `xml:"apic"`
}

type sized struct {
	Unit  string `xml:"unit,attr"`
	Value int    `xml:",chardata"`
}

type osDoc struct {
	Type    osType  `xml:"type"`
	Kernel  string  `xml:"kernel,omitempty"`
	Initrd  string  `xml:"initrd,omitempty"`
	Cmdline string  `xml:"cmdline,omitempty"`
	Boot    *boot   `xml:"boot"`
	SMBIOS  *smbios `xml:"smbios"`
}

type osType struct {
	Arch  string `xml:"arch,attr,omitempty"`
	Value string `xml:",chardata"`
}

type sysinfo struct {
	Type   string     `xml:"type,attr"`
	System []sysEntry `xml:"system>entry"`
	OEM    []string   `xml:"oemStrings>entry"`
}

type sysEntry struct {
	Name  string `xml:"name,attr"`
	Value string `xml:",chardata"`
}

type smbios struct {
	Mode string `xml:"mode,attr"`
}

type boot struct {
	Dev string `xml:"dev,attr"`
}

type devices struct {
	Disk      []disk   `xml:"disk"`
	Interface iface    `xml:"interface"`
	Console   *console `xml:"console"`
}

type disk struct {
	Type     string    `xml:"type,attr"`
	Device   string    `xml:"device,attr"`
	Driver   driver    `xml:"driver"`
	Source   source    `xml:"source"`
	Target   target    `xml:"target"`
	ReadOnly *struct{} `xml:"readonly"`
}

type driver struct {
	Name string `xml:"name,attr"`
	Type string `xml:"type,attr"`
}

type source struct {
	File string `xml:"file,attr"`
}

type target struct {
	Dev string `xml:"dev,attr"`
	Bus string `xml:"bus,attr"`
}

type iface struct {
	Type   string     `xml:"type,attr"`
	MAC    mac        `xml:"mac"`
	Source *netSource `xml:"source"`
	Model  *nicModel  `xml:"model"`
}

type mac struct {
	Address string `xml:"address,attr"`
}

type netSource struct {
	Network string `xml:"network,attr,omitempty"`
	Bridge  string `xml:"bridge,attr,omitempty"`
}

type nicModel struct {
	Type string `xml:"type,attr"`
}

type console struct {
	Type string `xml:"type,attr"`
}
