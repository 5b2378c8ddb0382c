// Package libvirttest simulates hosts for xenlibvirt's tests on libvirt's own
// test driver: each host is a test:///abs/path.xml URI describing its CPUs,
// memory, storage pools and the appliance's files, and one connection per
// host is kept for the test's life, because every connection to a file URI
// is a fresh instance. Appliance plays the guests: it powers every packer VM
// off shortly after it starts, as the real appliance does when its job ends.
package libvirttest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/packer-sched/packer/xenlibvirt"
)

// Paths of the appliance's files on every simulated host.
const (
	ImageDir = "/var/lib/packer/images"
	Image    = ImageDir + "/appliance.qcow2"
	Kernel   = ImageDir + "/vmlinuz"
	Initrd   = ImageDir + "/initrd.img"
)

// HostSpec describes one simulated host. Zero fields take the paper's
// machine: 4 CPUs, 8192 MiB, 2 disks, the image present.
type HostSpec struct {
	CPUs      int
	MemoryMiB int
	Disks     int
	// NoImage leaves the appliance's files out, for tests of the check.
	NoImage bool
	// Bridge, when set, gives the host a bridge interface of that name.
	Bridge string
}

// DiskDir is the target directory of host h's disk pool d.
func DiskDir(host string, d int) string { return fmt.Sprintf("/srv/%s/disk%d", host, d) }

// WriteHost writes a test-driver node file for host name into dir and returns
// its URI.
func WriteHost(dir, name string, s HostSpec) (string, error) {
	setDefault(&s.CPUs, 4)
	setDefault(&s.MemoryMiB, 8192)
	setDefault(&s.Disks, 2)
	var b strings.Builder
	fmt.Fprintf(&b, "<node>\n  <cpu><mhz>2400</mhz><model>x86_64</model><active>%d</active><nodes>1</nodes><sockets>1</sockets><cores>%d</cores><threads>1</threads></cpu>\n", s.CPUs, s.CPUs)
	fmt.Fprintf(&b, "  <memory>%d</memory>\n", s.MemoryMiB*1024)
	pool := func(i int, name, path, vols string) {
		fmt.Fprintf(&b, "  <pool type='dir'><name>%s</name><uuid>35bb2ad9-388a-cdfe-461a-%012x</uuid>"+
			"<capacity unit='GiB'>1000</capacity><allocation>0</allocation><available unit='GiB'>1000</available>"+
			"<target><path>%s</path></target>%s</pool>\n", name, i, path, vols)
	}
	vols := ""
	if !s.NoImage {
		for _, f := range []string{Image, Kernel, Initrd} {
			vols += fmt.Sprintf("<volume type='file'><name>%s</name><capacity unit='GiB'>4</capacity><allocation>0</allocation>"+
				"<target><path>%s</path></target></volume>", filepath.Base(f), f)
		}
	}
	pool(99, "images", ImageDir, vols)
	// The network VMs join by default; Bridge names a host bridge beside it.
	fmt.Fprintf(&b, "  <network><name>default</name><uuid>35bb2ad9-388a-cdfe-461a-0000000000a0</uuid><bridge name='virbr0'/></network>\n")
	if s.Bridge != "" {
		fmt.Fprintf(&b, "  <interface type='bridge' name='%s'><start mode='onboot'/><mac address='aa:bb:cc:00:00:01'/><bridge stp='off'/></interface>\n", s.Bridge)
	}
	for d := 0; d < s.Disks; d++ {
		pool(d, fmt.Sprintf("disk%d", d), DiskDir(name, d), "")
	}
	b.WriteString("</node>\n")
	path := filepath.Join(dir, name+".xml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	return "test://" + path, nil
}

// Cluster is a set of simulated hosts with their open connections.
type Cluster struct {
	Inventory *xenlibvirt.Inventory
	Conns     []*xenlibvirt.Conn
}

// NewCluster writes and opens n simulated hosts named h0, h1, … with the
// given spec (specs[i] for host i when there are as many, else specs[0] or
// the zero spec), and an inventory for them with the given hypervisor kind
// declaring what the spec has. The connections close at the test's end.
func NewCluster(t testing.TB, n int, hypervisor string, specs ...HostSpec) *Cluster {
	t.Helper()
	dir := t.TempDir()
	c := &Cluster{Inventory: &xenlibvirt.Inventory{Image: Image, Kernel: Kernel, Initrd: Initrd}}
	for i := 0; i < n; i++ {
		var s HostSpec
		switch {
		case len(specs) > i:
			s = specs[i]
		case len(specs) > 0:
			s = specs[0]
		}
		name := fmt.Sprintf("h%d", i)
		uri, err := WriteHost(dir, name, s)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := xenlibvirt.Open(uri)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		c.Conns = append(c.Conns, conn)
		f, err := conn.Facts()
		if err != nil {
			t.Fatal(err)
		}
		h := xenlibvirt.InventoryHost{Name: name, URI: uri, Hypervisor: hypervisor, Cores: f.CPUs, MemoryMiB: f.MemoryMiB}
		for d := 0; d < max(s.Disks, 2); d++ {
			if d%2 == 0 {
				h.Disks = append(h.Disks, DiskDir(name, d)) // by directory
			} else {
				h.Disks = append(h.Disks, fmt.Sprintf("disk%d", d)) // by pool name
			}
		}
		if s.Disks > 0 {
			h.Disks = h.Disks[:s.Disks]
		}
		c.Inventory.Hosts = append(c.Inventory.Hosts, h)
	}
	if err := c.Inventory.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// shared wraps a connection so that the executor's Close leaves it open.
type shared struct{ *xenlibvirt.Conn }

func (shared) Close() error { return nil }

// Connector hands out the cluster's connections by URI; wrap may replace
// each (for fault injection), nil keeps them.
func (c *Cluster) Connector(wrap func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor) xenlibvirt.Connector {
	return xenlibvirt.ConnectorFunc(func(h xenlibvirt.InventoryHost) (xenlibvirt.Hypervisor, error) {
		for i, ih := range c.Inventory.Hosts {
			if ih.URI == h.URI {
				var hv xenlibvirt.Hypervisor = shared{c.Conns[i]}
				if wrap != nil {
					hv = wrap(i, hv)
				}
				if hv == nil {
					return nil, fmt.Errorf("host %s unreachable (simulated)", h.Name)
				}
				return hv, nil
			}
		}
		return nil, fmt.Errorf("no simulated host with URI %s", h.URI)
	})
}

// Appliance plays the guests on every host: each domain whose name starts
// with "packer-" powers off (a guest shutdown) once started, unless hold
// says to keep it running. Started counts the boots it saw. Stop ends it.
type Appliance struct {
	mu      sync.Mutex
	started []string
	stops   []func()
	hold    func(name string) bool
	stopped bool
	guests  sync.WaitGroup // power-offs in flight
}

// NewAppliance starts playing the guests of c; hold (may be nil) keeps the
// named domains running, as a job that never ends.
func NewAppliance(t testing.TB, c *Cluster, hold func(name string) bool) *Appliance {
	t.Helper()
	a := &Appliance{hold: hold}
	for _, conn := range c.Conns {
		lc := conn.Libvirt()
		stop, err := conn.OnLifecycle(func(name string, ev libvirt.DomainEventLifecycle) {
			if ev.Event != libvirt.DOMAIN_EVENT_STARTED || !strings.HasPrefix(name, "packer-") {
				return
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.stopped {
				return
			}
			a.started = append(a.started, name)
			if a.hold != nil && a.hold(name) {
				return
			}
			// Not from inside the event loop's callback.
			a.guests.Add(1)
			go func() {
				defer a.guests.Done()
				dom, err := lc.LookupDomainByName(name)
				if err != nil {
					return
				}
				defer dom.Free()
				_ = dom.Shutdown()
			}()
		})
		if err != nil {
			t.Fatal(err)
		}
		a.stops = append(a.stops, stop)
	}
	t.Cleanup(a.Stop)
	return a
}

// Started returns the names of the packer domains booted so far, in order.
func (a *Appliance) Started() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.started...)
}

// Stop ends the simulation and waits for power-offs in flight.
func (a *Appliance) Stop() {
	a.mu.Lock()
	a.stopped = true
	stops := a.stops
	a.stops = nil
	a.mu.Unlock()
	for _, s := range stops {
		s()
	}
	a.guests.Wait()
}

// Foreign defines a domain that is not packer's on host i (no packer
// metadata), running if start is set, and returns its name.
func (c *Cluster) Foreign(t testing.TB, i int, name string, start bool) string {
	t.Helper()
	defineDomain(t, c.Conns[i].Libvirt(), fmt.Sprintf("<domain type='test'><name>%s</name><memory unit='MiB'>256</memory><vcpu>1</vcpu><os><type>hvm</type></os></domain>", name), start)
	return name
}

// Flush returns once every event each host's connection raised before the
// call has been handed to its subscribers: it defines and undefines a
// sentinel domain and waits for its removal's event; a connection hands its
// events on in order, so every earlier one has been handed on by then. A
// test that plays a dead process on the live connections calls it before
// the next "process" subscribes, since a real one's events went to its own
// connection. Test-driver hosts only; not from two goroutines at once.
func (c *Cluster) Flush(t testing.TB) {
	t.Helper()
	for i := range c.Conns {
		c.flushHost(t, i)
	}
}

func (c *Cluster) flushHost(t testing.TB, i int) {
	t.Helper()
	conn := c.Conns[i]
	name := fmt.Sprintf("packertest-flush-%d", i)
	gone := make(chan struct{}, 1)
	stop, err := conn.OnLifecycle(func(n string, ev libvirt.DomainEventLifecycle) {
		if n == name && ev.Event == libvirt.DOMAIN_EVENT_UNDEFINED {
			select {
			case gone <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	defineDomain(t, conn.Libvirt(), fmt.Sprintf("<domain type='test'><name>%s</name><memory unit='MiB'>256</memory><vcpu>1</vcpu><os><type>hvm</type></os></domain>", name), false)
	if err := conn.Undefine(name); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gone:
	case <-time.After(time.Minute): // libvirt reports within milliseconds
		t.Fatalf("host %d: no event of the sentinel's removal within a minute", i)
	}
}

// defineDomain defines the domain of xml on conn, running if start is set.
func defineDomain(t testing.TB, conn *libvirt.Connect, xml string, start bool) {
	t.Helper()
	d, err := conn.DomainDefineXML(xml)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	if start {
		if err := d.Create(); err != nil {
			t.Fatal(err)
		}
	}
}

// Domains lists the domain names on host i, with "*" after running ones.
func (c *Cluster) Domains(t testing.TB, i int) []string {
	t.Helper()
	return domainNames(t, c.Conns[i].Libvirt(), true)
}

// domainNames lists the domain names on conn in order, with "*" after
// running ones if mark.
func domainNames(t testing.TB, conn *libvirt.Connect, mark bool) []string {
	t.Helper()
	doms, err := conn.ListAllDomains(0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range doms {
		name, _ := d.GetName()
		if active, _ := d.IsActive(); mark && active {
			name += "*"
		}
		out = append(out, name)
		d.Free()
	}
	sort.Strings(out)
	return out
}

// Volumes lists the volume paths in host i's disk pools.
func (c *Cluster) Volumes(t testing.TB, i int) []string {
	t.Helper()
	var out []string
	for d := range c.Inventory.Hosts[i].Disks {
		p, err := c.Conns[i].Libvirt().LookupStoragePoolByName(fmt.Sprintf("disk%d", d))
		if err != nil {
			t.Fatal(err)
		}
		vols, err := p.ListAllStorageVolumes(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vols {
			path, _ := v.GetPath()
			out = append(out, path)
			v.Free()
		}
		p.Free()
	}
	sort.Strings(out)
	return out
}

// AssertNoPackerLeft fails the test if any host still has a packer-* domain
// or a disk volume: teardown removed everything packer made.
func (c *Cluster) AssertNoPackerLeft(t testing.TB) {
	t.Helper()
	for i := range c.Conns {
		for _, d := range c.Domains(t, i) {
			if strings.HasPrefix(d, "packer-") {
				t.Errorf("host %d: domain %s left behind", i, d)
			}
		}
		if v := c.Volumes(t, i); len(v) > 0 {
			t.Errorf("host %d: disks left behind: %v", i, v)
		}
	}
}

// setDefault sets *v to d when *v is the zero value, the "unset" of a
// settings field.
func setDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
