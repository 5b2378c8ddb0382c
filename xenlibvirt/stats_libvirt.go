//go:build cgo

package xenlibvirt

import (
	"encoding/xml"
	"fmt"
	"time"

	"libvirt.org/go/libvirt"
)

var _ CounterReader = (*Conn)(nil)

// Counters implements CounterReader with one virConnectGetAllDomainStats
// call for the domain's total CPU time and its disks' block statistics. A
// driver whose statistics lack either (libvirt's test driver reports only
// the state) is asked the older way: virDomainGetInfo, the domain's XML for
// its disks and virDomainBlockStats for each. A domain that is not running
// has no counters: libvirt reports an error, which is returned.
func (c *Conn) Counters(name string) (Counters, error) {
	var out Counters
	err := c.domain(name, func(d *libvirt.Domain) error {
		sts, err := c.conn.GetAllDomainStats([]*libvirt.Domain{d},
			libvirt.DOMAIN_STATS_CPU_TOTAL|libvirt.DOMAIN_STATS_BLOCK, 0)
		if err != nil {
			return lvErr(err)
		}
		// The records' domains are the binding's, freed with the records
		// (virDomainStatsRecordListFree): not freed again here.
		if len(sts) != 1 || sts[0].Cpu == nil || !sts[0].Cpu.TimeSet || len(sts[0].Block) == 0 {
			return countersOneByOne(name, d, &out)
		}
		out.CPU = time.Duration(sts[0].Cpu.Time)
		for _, b := range sts[0].Block {
			if b.RdBytesSet {
				out.ReadBytes += int64(b.RdBytes)
			}
			if b.WrBytesSet {
				out.WriteBytes += int64(b.WrBytes)
			}
		}
		return nil
	})
	return out, err
}

// countersOneByOne reads d's counters with a call per number.
func countersOneByOne(name string, d *libvirt.Domain, out *Counters) error {
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
}
