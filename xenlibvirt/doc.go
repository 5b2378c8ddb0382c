// Package xenlibvirt applies a plan document to real hosts through libvirt
// (KVM, QEMU or Xen): it is the effect at the right end of packer's pipeline
//
//	plan document + inventory → Check → Deployment (per phase) → Executor → hosts
//	                                                         ↘ Journal (state file)
//
// Everything up to the Deployment is pure and testable without libvirt:
// ParseInventory reads the operator's inventory, Check compares plan, inventory
// and what each host's libvirt reports (HostFacts), NewDeployment names every VM
// (packer-<plan>-p<phase>-<job>-<i>), gives it its identity (MAC, UUID, hostname,
// master mark) and builds its domain XML with DomainXML, one builder for
// kvm/qemu and xen. CheckHosts is hosts check: every host's facts and whether
// the plan fits, through a Connector bounded by WithTimeout.
//
// Phases: what people read (logs, errors, domain names, status) counts them
// from 1, as packer plan prints them (PhaseNumber); the plan document, the
// journal, domain metadata and Settings.Phase keep the 0-based index. The Executor then walks the phases through the Hypervisor
// interface, one value per host; the libvirt implementation is Open, and tests
// run the executor on libvirt's own test driver (package libvirttest).
//
// Ownership: packer only stops, undefines or deletes a domain whose <metadata>
// carries packer's namespace with this plan's id and the VM's own name, and
// only deletes a disk that its journal says it created, on top of this plan's
// image. Every change to a host is journaled ahead (Journal): the intent,
// naming what is about to be made, is on disk before libvirt is called and
// is confirmed after, so `packer status`, `apply --resume` and `destroy`
// work from the state file alone, even after a crash between the two.
//
// Profiling (Profile, packer profile --inventory) runs a job alone on n VMs
// and measures it from libvirt's counters only. Its CPU number is the VMs'
// vCPU time (vcpu.N.time: not QEMU's emulator and I/O threads) over the
// time the vCPUs could have run (their window less vcpu.N.delay, the time
// they waited for a host CPU), in a window that leaves out the boot of a
// VM whose job does I/O but not of one whose job does none; under TCG the
// emulation of a guest's disk requests runs on its vCPU too.
// ProfileSettings says in full what each number is, where it comes from and
// what it misses.
package xenlibvirt
