package xenlibvirt

import (
	"encoding/xml"
	"errors"
	"fmt"
	"time"
)

// ErrCanaryTimeout is wrapped by BootCanary's error when the canary guest was
// started but did not power off in time: the accelerator is there but does not
// run guests (nested KVM often sits in the kernel decompressor for minutes).
var ErrCanaryTimeout = errors.New("canary guest did not power off")

// Canary is a tiny guest that proves a host's accelerator runs guests before a
// plan relies on it. It boots the appliance's kernel and initrd directly with
// no disk and no network, so the only thing it tests is that the CPU runs the
// guest; the appliance contract (run packer.run, then power off) ends it.
type Canary struct {
	// Hypervisor is the domain type to try: kvm, qemu or xen.
	Hypervisor string
	// Kernel and Initrd are paths on the host (the inventory's).
	Kernel, Initrd string
	// Cmdline is the guest's kernel command line; empty means a quiet serial
	// console and packer.run=true, which makes packer's appliance power off
	// as soon as it has booted, after its 4 s linger (and no panic=N: a
	// panicking canary hangs, and fails).
	Cmdline string
	// MemoryMiB is the guest's memory; 0 means 128.
	MemoryMiB int
	// Timeout bounds the whole boot; 0 means 20 s. A working KVM boots the
	// appliance and powers it off in 4–6 s (4 of them its linger) and TCG
	// in about 15 s on a 2-core machine, so 20 s tells a hung accelerator
	// from a slow one only for KVM: do not use a canary to judge TCG.
	Timeout time.Duration
}

// xml is the canary's domain XML under the given name: the fewest elements
// QEMU/KVM and Xen need to boot a kernel and stop when it powers off.
func (cn Canary) xml(name string) (string, error) {
	d := domainDoc{Type: cn.Hypervisor, Name: name, Memory: sized{Unit: "MiB", Value: cn.MemoryMiB}, VCPU: 1,
		OS:         osDoc{Kernel: cn.Kernel, Initrd: cn.Initrd, Cmdline: cn.Cmdline},
		OnPoweroff: "destroy", OnReboot: "destroy", OnCrash: "destroy"}
	if d.Memory.Value == 0 {
		d.Memory.Value = 128
	}
	if d.OS.Cmdline == "" {
		d.OS.Cmdline = "console=ttyS0 quiet packer.run=true"
	}
	switch cn.Hypervisor {
	case KVM, QEMU:
		d.OS.Type = osType{Arch: "x86_64", Value: "hvm"}
		// Without ACPI the guest's poweroff only halts it (see DomainXML).
		d.Features = &features{ACPI: &struct{}{}, APIC: &struct{}{}}
	case Xen:
		d.OS.Type = osType{Value: "xen"}
	default:
		return "", fmt.Errorf("xenlibvirt: canary: hypervisor %q is not kvm, qemu or xen", cn.Hypervisor)
	}
	if cn.Kernel == "" {
		return "", errors.New("xenlibvirt: canary: no kernel to boot")
	}
	out, err := xml.Marshal(d)
	return string(out), err
}
