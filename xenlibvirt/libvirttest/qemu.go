package libvirttest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"libvirt.org/go/libvirt"

	"github.com/packer-sched/packer/xenlibvirt"
)

// ForeignDomain is the name of the domain QEMUCluster defines beside packer's,
// which must survive every apply and destroy.
const ForeignDomain = "packer-itest-foreign"

// QEMUCluster is two "hosts" for integration tests: two URIs of the one
// local libvirtd (qemu:///system and qemu+unix:///system), each with a
// transient disk pool, plus a transient pool over the appliance's directory
// and a foreign domain. Transient pools vanish when the test ends or
// libvirtd stops, so nothing stays defined.
type QEMUCluster struct {
	Conn      *xenlibvirt.Conn
	Inventory *xenlibvirt.Inventory
	// Work holds the disk pools' directories (under the appliance's
	// directory: QEMU runs as its own user and cannot enter t.TempDir).
	Work string
}

// NewQEMUCluster connects to PACKER_ITEST_URI (default qemu:///system) and
// prepares the hosts for the appliance in PACKER_ITEST_APPLIANCE (default
// /var/tmp/packer-itest, built by test/itest/build-appliance.sh); each host
// declares 1 core, 512 MiB and one disk, and VMs boot the appliance with
// cmdline. KVM is used when libvirt offers it and a canary guest proves it
// runs guests, else QEMU's TCG (see ChooseAccel). What a killed earlier run
// left behind is removed first (sweep).
func NewQEMUCluster(t testing.TB, cmdline string) *QEMUCluster {
	t.Helper()
	dir, uri := ApplianceDir(), QEMUURI()
	for _, f := range []string{"vmlinuz", "initrd.img", "appliance.qcow2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("appliance incomplete (run test/itest/build-appliance.sh %s): %v", dir, err)
		}
	}
	conn, err := xenlibvirt.Open(uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	clean(t, conn.Libvirt(), dir)
	hv := Accel(t, conn, dir)
	work, err := os.MkdirTemp(dir, workPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if _, err := conn.Pool(dir); err != nil {
		// No pool over the appliance yet (an operator's would do as well).
		transientPool(t, conn.Libvirt(), "packer-itest-images", dir)
	}
	inv := &xenlibvirt.Inventory{
		Image: filepath.Join(dir, "appliance.qcow2"), Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img"),
		Cmdline: cmdline,
	}
	for i, u := range []string{uri, strings.Replace(uri, "qemu://", "qemu+unix://", 1)} {
		pool := fmt.Sprintf("packer-itest-h%d-d0", i)
		transientPool(t, conn.Libvirt(), pool, filepath.Join(work, pool))
		inv.Hosts = append(inv.Hosts, xenlibvirt.InventoryHost{Name: fmt.Sprintf("h%d", i), URI: u, Hypervisor: hv,
			Cores: 1, MemoryMiB: 512, Disks: []string{pool}, Network: xenlibvirt.UserNetwork})
	}
	if err := inv.Validate(); err != nil {
		t.Fatal(err)
	}
	foreign, err := conn.Libvirt().DomainDefineXML(fmt.Sprintf("<domain type='%s'><name>%s</name><memory unit='MiB'>64</memory>"+
		"<os><type arch='x86_64'>hvm</type></os></domain>", hv, ForeignDomain))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = foreign.Undefine(); foreign.Free() })
	return &QEMUCluster{Conn: conn, Inventory: inv, Work: work}
}

// Accel is the domain type the integration tests use on conn (ChooseAccel,
// decided once per test binary), logged with the reason.
func Accel(t testing.TB, conn *xenlibvirt.Conn, dir string) string {
	t.Helper()
	facts, err := conn.Facts()
	if err != nil {
		t.Fatal(err)
	}
	hv, why, err := accel(conn, dir, facts.VirtTypes)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("libvirt %s, %d CPUs, %d MiB, domain types %v: using %s (%s)", facts.Type, facts.CPUs, facts.MemoryMiB, facts.VirtTypes, hv, why)
	return hv
}

// ApplianceDir is PACKER_ITEST_APPLIANCE, or /var/tmp/packer-itest where
// test/itest/run.sh builds the appliance by default.
func ApplianceDir() string {
	if dir := os.Getenv("PACKER_ITEST_APPLIANCE"); dir != "" {
		return dir
	}
	return "/var/tmp/packer-itest"
}

// QEMUURI is PACKER_ITEST_URI, or qemu:///system.
func QEMUURI() string {
	if uri := os.Getenv("PACKER_ITEST_URI"); uri != "" {
		return uri
	}
	return "qemu:///system"
}

// lockOnce takes the machine's integration lock once per test binary.
var (
	lockOnce sync.Once
	lockErr  error
)

// LockPath is the lock that keeps two integration runs on one machine from
// sweeping each other's domains: they share libvirtd, the foreign domain's
// name and the canaries' prefix, whatever their appliance directories. A
// fixed path, not $TMPDIR's, which differs between a shell and sudo or
// between CI jobs: /run/lock where it exists (Debian's), else /tmp.
var LockPath = lockPath()

func lockPath() string {
	if st, err := os.Stat("/run/lock"); err == nil && st.IsDir() {
		return "/run/lock/packer-itest.lock"
	}
	return "/tmp/packer-itest.lock"
}

// workPrefix begins the name of each cluster's work directory in the
// appliance's directory: distinctive, since sweep removes what bears it.
const workPrefix = "packer-itest-work-"

// exclusive takes LockPath for the rest of the process, or fails the test
// if another run holds it. The lock lives on a raw descriptor that is never
// closed (an *os.File's finalizer would close it, and so drop the lock);
// the kernel drops it when the process exits, killed or not.
func exclusive(t testing.TB) {
	t.Helper()
	lockOnce.Do(func() { lockErr = takeLock(LockPath) })
	if lockErr != nil {
		t.Fatal(lockErr)
	}
}

// takeLock locks path, held until the process exits. An existing lock file
// is opened read-only and without O_CREAT: in a sticky directory such as
// /tmp, fs.protected_regular refuses O_CREAT on another user's file, even
// to root, and flock needs no write access.
func takeLock(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ENOENT) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CREAT|syscall.O_CLOEXEC, 0o644)
	}
	if err != nil {
		return fmt.Errorf("integration lock %s: %w", path, err)
	}
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		syscall.Close(fd)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("another integration run holds %s (or this run's packages run at once: run.sh passes -p 1): "+
				"two runs on one libvirtd would remove each other's domains", path)
		}
		return fmt.Errorf("integration lock %s: %w", path, err)
	}
	return nil
}

// clean readies conn and dir for a test: it takes the machine's integration
// lock, then removes what a killed earlier run left (sweep).
func clean(t testing.TB, conn *libvirt.Connect, dir string) {
	t.Helper()
	exclusive(t)
	sweep(t, conn, dir)
}

// sweep removes what a killed earlier run of the tests left behind (a test
// binary killed by a timeout or a signal runs no cleanups); callers hold the
// machine's integration lock (exclusive) first. It removes the foreign domain, which
// would otherwise block the next definition of its name; canary domains
// that boot dir's kernel; packer's VMs whose disks lie in a work directory
// of dir; and those work directories. An operator's domains, packer's
// included, and canaries of `packer hosts check` boot no kernel of dir and
// have no disk there: nothing else matches.
func sweep(t testing.TB, conn *libvirt.Connect, dir string) {
	t.Helper()
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	doms, err := conn.ListAllDomains(0)
	if err != nil {
		t.Fatal(err)
	}
	// As libvirt writes them: the kernel as an element's text, a disk's
	// file as an attribute in single quotes, both XML-escaped.
	kernel := "<kernel>" + xmlEscape.Replace(filepath.Join(dir, "vmlinuz")) + "</kernel>"
	work := "'" + xmlEscape.Replace(filepath.Join(dir, workPrefix))
	for i := range doms {
		func(d *libvirt.Domain) {
			defer d.Free()
			name, err := d.GetName()
			if err != nil {
				t.Fatal(err)
			}
			desc, err := d.GetXMLDesc(0)
			if gone(err) {
				return // a transient domain that stopped meanwhile
			} else if err != nil {
				t.Fatal(err)
			}
			ours := name == ForeignDomain ||
				strings.HasPrefix(name, "packer-canary-") && strings.Contains(desc, kernel) ||
				strings.Contains(desc, work)
			if !ours {
				return
			}
			if err := d.Destroy(); err != nil && !gone(err) {
				// Not running (a defined domain, or one that powered off
				// meanwhile) is fine; still running is not.
				if active, aerr := d.IsActive(); aerr != nil || active {
					t.Fatalf("left by an earlier run: domain %s: destroy: %v", name, err)
				}
			}
			persistent, err := d.IsPersistent()
			if err != nil && !gone(err) {
				t.Fatalf("left by an earlier run: domain %s: %v", name, err)
			}
			if persistent {
				// With whatever state a killed run may have given it; a
				// driver that knows no such state (the test driver refuses
				// the NVRAM flag) undefines it plainly.
				flags := libvirt.DOMAIN_UNDEFINE_MANAGED_SAVE | libvirt.DOMAIN_UNDEFINE_SNAPSHOTS_METADATA | libvirt.DOMAIN_UNDEFINE_NVRAM
				if err := d.UndefineFlags(flags); err != nil && !gone(err) {
					if err := d.Undefine(); err != nil && !gone(err) {
						t.Fatalf("left by an earlier run: domain %s: undefine: %v", name, err)
					}
				}
			}
			t.Logf("removed domain %s, left by an earlier run", name)
		}(&doms[i])
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), workPrefix) {
			continue
		}
		w := filepath.Join(dir, e.Name())
		if err := os.RemoveAll(w); err != nil {
			t.Fatal(err)
		}
		t.Logf("removed %s, left by an earlier run", w)
	}
}

// xmlEscape escapes text as libvirt's XML writer does.
var xmlEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&apos;", `"`, "&quot;")

// gone reports whether err is libvirt's "no such domain".
func gone(err error) bool {
	var lerr libvirt.Error
	return errors.As(err, &lerr) && lerr.Code == libvirt.ERR_NO_DOMAIN
}

// transientPool creates a directory pool that vanishes when destroyed.
func transientPool(t testing.TB, conn *libvirt.Connect, name, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if old, err := conn.LookupStoragePoolByName(name); err == nil {
		// Left by a killed earlier run: packer-itest-* pools are the tests'.
		_ = old.Destroy()
		old.Free()
	}
	p, err := conn.StoragePoolCreateXML(fmt.Sprintf("<pool type='dir'><name>%s</name><target><path>%s</path></target></pool>", name, dir), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Destroy(); p.Free() })
}

// AssertOnlyForeign fails the test unless the foreign domain is the only
// domain and no disk is left in the pools.
func (q *QEMUCluster) AssertOnlyForeign(t testing.TB) {
	t.Helper()
	doms, err := q.Conn.Libvirt().ListAllDomains(0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range doms {
		n, _ := d.GetName()
		names = append(names, n)
		d.Free()
	}
	if len(names) != 1 || names[0] != ForeignDomain {
		t.Errorf("domains left: %v, want only %s", names, ForeignDomain)
	}
	left, _ := filepath.Glob(filepath.Join(q.Work, "packer-itest-h*-d0", "*"))
	if len(left) > 0 {
		t.Errorf("disks left: %v", left)
	}
}

// JobNetwork is the libvirt network UseJobNetwork creates: an isolated
// bridge (no forwarding, no DHCP, no address of the host's on it), so that
// the VMs of a job reach each other and nothing else.
const JobNetwork = "packer-itest-net"

// UseJobNetwork puts both hosts' VMs on one transient, isolated libvirt
// network (JobNetwork, bridge pkitbr0) and gives them static addresses in
// subnet: what an operator's bridge across two hosts gives a job. The
// network vanishes when the test ends or libvirtd stops.
func (q *QEMUCluster) UseJobNetwork(t testing.TB, subnet string) {
	t.Helper()
	conn := q.Conn.Libvirt()
	if old, err := conn.LookupNetworkByName(JobNetwork); err == nil {
		// Left by a killed earlier run: packer-itest-* networks are the tests'.
		_ = old.Destroy()
		old.Free()
	}
	n, err := conn.NetworkCreateXML(fmt.Sprintf("<network><name>%s</name><bridge name='pkitbr0' stp='off' delay='0'/></network>", JobNetwork))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Destroy(); n.Free() })
	q.Inventory.Subnet, q.Inventory.FirstAddress = subnet, 0
	for i := range q.Inventory.Hosts {
		q.Inventory.Hosts[i].Network = JobNetwork
	}
	if err := q.Inventory.Validate(); err != nil {
		t.Fatal(err)
	}
}
