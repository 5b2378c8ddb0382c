//go:build cgo

package xenlibvirt

import (
	"encoding/xml"
	"fmt"
	"time"

	"libvirt.org/go/libvirt"
)

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
