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
// call for the domain's state, total CPU time, its vCPUs' times and run
// delays and its disks' block statistics. Only a running domain has counters: a QEMU domain that is
// shutting down still answers, with its block bytes gone (zero or absent)
// and its CPU time unreliable, so any state but running, and a record that
// lacks a number, is an error rather than a sample. A driver whose
// statistics lack both CPU and block numbers (libvirt's test driver reports
// only the state) is asked the older way: virDomainGetInfo, the domain's
// XML for its disks and virDomainBlockStats for each.
func (c *Conn) Counters(name string) (Counters, error) {
	var out Counters
	err := c.domain(name, func(d *libvirt.Domain) error {
		sts, err := c.conn.GetAllDomainStats([]*libvirt.Domain{d},
			libvirt.DOMAIN_STATS_STATE|libvirt.DOMAIN_STATS_CPU_TOTAL|libvirt.DOMAIN_STATS_VCPU|libvirt.DOMAIN_STATS_BLOCK, 0)
		if err != nil {
			return lvErr(err)
		}
		// The records' domains are the binding's, freed with the records
		// (virDomainStatsRecordListFree): not freed again here.
		if len(sts) != 1 {
			return fmt.Errorf("domain %s: %d statistics records", name, len(sts))
		}
		st := sts[0]
		if st.State == nil || !st.State.StateSet || st.State.State != libvirt.DOMAIN_RUNNING {
			return fmt.Errorf("domain %s: not running", name)
		}
		if st.Cpu == nil && len(st.Block) == 0 {
			return countersOneByOne(name, d, &out)
		}
		if st.Cpu == nil || !st.Cpu.TimeSet || len(st.Block) == 0 {
			return fmt.Errorf("domain %s: no CPU time or no block statistics", name)
		}
		out.CPU = time.Duration(st.Cpu.Time)
		timed := false
		for _, v := range st.Vcpu {
			// An offline vCPU has no time: it ran nothing.
			if v.TimeSet {
				out.VCPU += time.Duration(v.Time)
				out.Delay += time.Duration(v.Delay)
				timed = true
			}
		}
		if !timed {
			out.VCPU = out.CPU // a driver without vCPU statistics
		}
		for _, b := range st.Block {
			if !b.RdBytesSet || !b.WrBytesSet {
				return fmt.Errorf("domain %s: disk %s: no byte counts", name, b.Name)
			}
			out.ReadBytes += int64(b.RdBytes)
			out.WriteBytes += int64(b.WrBytes)
		}
		return nil
	})
	return out, err
}

// countersOneByOne reads d's counters with a call per number (no run
// delay among them).
func countersOneByOne(name string, d *libvirt.Domain, out *Counters) error {
	info, err := d.GetInfo()
	if err != nil {
		return lvErr(err)
	}
	out.CPU = time.Duration(info.CpuTime)
	vcpus, err := d.GetVcpus()
	if err != nil {
		vcpus = nil // a driver without per-vCPU times: CPU stands in below
	}
	for _, v := range vcpus {
		out.VCPU += time.Duration(v.CpuTime)
	}
	if len(vcpus) == 0 {
		out.VCPU = out.CPU
	}
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
