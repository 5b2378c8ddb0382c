package xenlibvirt

import (
	"time"
)

// Counters are a running domain's cumulative counters as its hypervisor
// keeps them, read by packer profile (see ProfileSettings for what they
// include and miss).
type Counters struct {
	// CPU is libvirt's CPU time of the domain (virDomainGetInfo's cpuTime):
	// for QEMU/KVM the user and system time of the whole QEMU process, its
	// vCPU threads and the emulator and I/O threads that serve the guest.
	CPU time.Duration
	// ReadBytes and WriteBytes are the bytes the guest read from and wrote
	// to its virtual disks (virDomainBlockStats), summed over every disk.
	ReadBytes, WriteBytes int64
}

// CounterReader is a Hypervisor that can read a running domain's counters;
// *Conn is one. Profiling needs it, apply does not, so it is an ability
// found by type assertion rather than part of Hypervisor.
type CounterReader interface {
	Counters(name string) (Counters, error)
}
