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
	// VCPU is the time the domain's vCPU threads ran, summed over its
	// vCPUs: the guest's own work, and under TCG the emulation of it,
	// without the emulator and I/O threads. It is vcpu.N.time from the
	// domain statistics; virDomainGetVcpus's times for a driver that
	// answers only the older calls; and CPU where neither gives a vCPU
	// time. A vCPU the guest takes offline mid-run drops out of the sum,
	// which then falls, and the meter ignores samples until it has
	// recovered (packer's appliance never does this).
	VCPU time.Duration
	// Delay is the time the vCPU threads were ready to run but waited for
	// a host CPU, summed over the vCPUs (vcpu.N.delay: the threads' run
	// delay from /proc/…/schedstat); 0 where libvirt does not report it.
	Delay time.Duration
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
