package xenlibvirt

import (
	"encoding/xml"
	"fmt"
	"time"

	"libvirt.org/go/libvirt"
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

var _ CounterReader = (*Conn)(nil)

// Counters implements CounterReader. A domain that is not running has no
// counters: libvirt reports an error, which is returned.
func (c *Conn) Counters(name string) (Counters, error) {
	var out Counters
	err := c.domain(name, func(d *libvirt.Domain) error {
		info, err := d.GetInfo()
		if err != nil {
			return lvErr(err)
		}
		out.CPU = time.Duration(info.CpuTime)
		desc, err := d.GetXMLDesc(0)
		if err != nil {
			return lvErr(err)
		}
		var doc struct {
			Disks []struct {
				Target struct {
					Dev string `xml:"dev,attr"`
				} `xml:"target"`
			} `xml:"devices>disk"`
		}
		if err := xml.Unmarshal([]byte(desc), &doc); err != nil {
			return fmt.Errorf("domain %s: %w", name, err)
		}
		for _, disk := range doc.Disks {
			st, err := d.BlockStats(disk.Target.Dev)
			if err != nil {
				return fmt.Errorf("domain %s: disk %s: %w", name, disk.Target.Dev, lvErr(err))
			}
			if st.RdBytesSet {
				out.ReadBytes += st.RdBytes
			}
			if st.WrBytesSet {
				out.WriteBytes += st.WrBytes
			}
		}
		return nil
	})
	return out, err
}
