package libvirttest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/packer-sched/packer/xenlibvirt"
)

// TestSweepRemovesOnlyLeftovers: on a test-driver host holding what a
// killed run leaves (the foreign domain, a running canary of the
// appliance, a packer VM with its disk in a work directory) beside an
// operator's domains that resemble them (a canary of another kernel, a VM
// whose disk lies in a directory that merely ends like the work one, an
// unrelated running domain), sweep removes exactly the leftovers and the
// work directories, and keeps the appliance's other files.
func TestSweepRemovesOnlyLeftovers(t *testing.T) {
	tmp := t.TempDir()
	uri, err := WriteHost(tmp, "h0", HostSpec{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := xenlibvirt.Open(uri)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lv := conn.Libvirt()
	// A name libvirt must escape in its XML.
	dir := filepath.Join(tmp, "app'l&iance")
	work := filepath.Join(dir, workPrefix+"123")
	for _, d := range []string{work, filepath.Join(dir, "keep"), filepath.Join(dir, "work-of-an-operator")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(dir, "vmlinuz"), filepath.Join(work, "disk.qcow2")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	domain := func(name, kernel, disk string) string {
		x := "<domain type='test'><name>" + name + "</name><memory unit='MiB'>64</memory><os><type>hvm</type>"
		if kernel != "" {
			x += "<kernel>" + xmlEscape.Replace(kernel) + "</kernel>"
		}
		x += "</os><devices>"
		if disk != "" {
			x += fmt.Sprintf("<disk type='file' device='disk'><source file='%s'/><target dev='vda' bus='virtio'/></disk>", xmlEscape.Replace(disk))
		}
		return x + "</devices></domain>"
	}
	define := func(name, kernel, disk string, start bool) {
		defineDomain(t, lv, domain(name, kernel, disk), start)
	}
	transient := func(name, kernel string) {
		d, err := lv.DomainCreateXML(domain(name, kernel, ""), 0)
		if err != nil {
			t.Fatal(err)
		}
		d.Free()
	}
	define(ForeignDomain, "", "", false)
	transient("packer-canary-0123456789ab", filepath.Join(dir, "vmlinuz"))
	define("packer-itest-1-p1-job-0", filepath.Join(dir, "vmlinuz"), filepath.Join(work, "disk.qcow2"), true)
	transient("packer-canary-ba9876543210", "/srv/images/vmlinuz")
	define("operators-vm", "", "/srv"+work+"/disk.qcow2", true)
	define("operators-other", "", "/srv/disk.qcow2", false)

	sweep(t, lv, dir)

	left := domainNames(t, lv, false)
	// test:///default's own domain "test" is not there: a node file's host
	// starts empty.
	if want := []string{"operators-other", "operators-vm", "packer-canary-ba9876543210"}; !slices.Equal(left, want) {
		t.Errorf("domains left %v, want %v", left, want)
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("work directory %s still there (%v)", work, err)
	}
	for _, f := range []string{filepath.Join(dir, "vmlinuz"), filepath.Join(dir, "keep"), filepath.Join(dir, "work-of-an-operator")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("sweep removed %s: %v", f, err)
		}
	}
}

// TestTakeLockExcludesASecondRun: while one open file holds the lock, as
// another run's process would, takeLock refuses; once it is released,
// takeLock holds it, and a second takeLock (a second run) is refused.
func TestTakeLockExcludesASecondRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "packer-itest.lock")
	other, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if err := takeLock(path); err == nil || !strings.Contains(err.Error(), "another integration run holds") {
		t.Fatalf("with the lock held elsewhere: %v", err)
	}
	other.Close() // releases it
	if err := takeLock(path); err != nil {
		t.Fatal(err)
	}
	if err := takeLock(path); err == nil {
		t.Fatal("a second takeLock got the lock the first holds")
	}
}
