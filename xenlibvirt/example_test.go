package xenlibvirt_test

import (
	"fmt"

	"github.com/packer-sched/packer/xenlibvirt"
)

// Domain names carry the plan, the phase's number (from 1; the argument is the
// plan document's 0-based index), the job (made safe for names) and the VM's
// index; VM 0 is the job's Hadoop master.
func ExampleDomainName() {
	fmt.Println(xenlibvirt.DomainName("w1-91b8c627", 0, "s-srt-1", 0))
	fmt.Println(xenlibvirt.DomainName("w1-91b8c627", 2, "Big Sort", 3))
	// Output:
	// packer-w1-91b8c627-p1-s-srt-1-0
	// packer-w1-91b8c627-p3-big-sort-3
}

// Ownership needs packer's metadata naming this plan and this very domain.
func ExampleOwns() {
	m := &xenlibvirt.Metadata{Plan: "w1-91b8c627", Name: "packer-w1-91b8c627-p1-s-srt-1-0"}
	fmt.Println(xenlibvirt.Owns("w1-91b8c627", "packer-w1-91b8c627-p1-s-srt-1-0", m))
	fmt.Println(xenlibvirt.Owns("w1-91b8c627", "packer-w1-91b8c627-p1-s-srt-1-0", nil))
	// Output:
	// true
	// false
}
