//go:build cgo

package xenlibvirt

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"libvirt.org/go/libvirt"
)

// events starts libvirt's default event loop once per process. It must run
// before the first connection is opened, or remote connections deliver no
// lifecycle events.
var events = sync.OnceValue(func() error {
	if err := libvirt.EventRegisterDefaultImpl(); err != nil {
		return fmt.Errorf("xenlibvirt: libvirt event loop: %w", lvErr(err))
	}
	go func() {
		for {
			// An error here is a broken poll(2); nothing to do but go on.
			_ = libvirt.EventRunDefaultImpl()
		}
	}()
	return nil
})

// testDriverFile returns the node file of a test:///abs/path URI; not for
// test:///default, libvirt's built-in one.
func testDriverFile(uri string) (string, bool) {
	file, ok := strings.CutPrefix(uri, "test://")
	if !ok || file == "/default" || !strings.HasPrefix(file, "/") {
		return "", false
	}
	return file, true
}

// Libvirt is the Connector that opens real libvirt connections.
var Libvirt Connector = ConnectorFunc(func(h InventoryHost) (Hypervisor, error) {
	c, err := Open(h.URI)
	if err != nil {
		return nil, err // not a Hypervisor holding a nil *Conn
	}
	return c, nil
})

// Available reports whether this build can reach libvirt: it can, being
// built with cgo (see nocgo.go for the build without).
func Available() error { return nil }

// Conn is the libvirt implementation of Hypervisor: one connection to one host.
type Conn struct {
	URI  string
	conn *libvirt.Connect

	// libvirt refuses a second registration of the binding's one callback
	// helper on a connection ("event callback already tracked"), so Conn
	// registers once and fans lifecycle events out to its subscribers.
	mu      sync.Mutex
	subs    map[int]func(name string, ev libvirt.DomainEventLifecycle)
	nextSub int
	cbID    int
	closeFn map[int]func(error)
}

var _ Hypervisor = (*Conn)(nil)

// Open connects to the libvirt at uri. A test:/// URI naming a file opens a
// fresh, private test-driver instance each time.
func Open(uri string) (*Conn, error) {
	if err := events(); err != nil {
		return nil, err
	}
	if file, ok := testDriverFile(uri); ok {
		// Checked here, or libxml2 adds its own warning on stderr to
		// libvirt's error.
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("connect %s: test driver node file: %w", uri, err)
		}
	}
	c, err := libvirt.NewConnect(uri)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", uri, lvErr(err))
	}
	// Keepalive makes a dead remote host show up as a lost connection
	// within ~15 s; local drivers refuse it, which is fine.
	_ = c.SetKeepAlive(5, 3)
	return &Conn{URI: uri, conn: c}, nil
}

// Libvirt returns the underlying connection, for tests that play the guest.
func (c *Conn) Libvirt() *libvirt.Connect { return c.conn }

// libvirtError shows libvirt's own message and keeps its code for errors.Is.
type libvirtError struct{ e libvirt.Error }

func (e libvirtError) Error() string { return strings.TrimSpace(e.e.Message) }
func (e libvirtError) Unwrap() []error {
	switch e.e.Code {
	case libvirt.ERR_NO_DOMAIN, libvirt.ERR_NO_STORAGE_VOL, libvirt.ERR_NO_STORAGE_POOL:
		return []error{e.e, ErrNotFound}
	}
	return []error{e.e}
}

func lvErr(err error) error {
	var le libvirt.Error
	if errors.As(err, &le) {
		return libvirtError{le}
	}
	return err
}

// Facts implements Hypervisor.
func (c *Conn) Facts() (HostFacts, error) {
	var f HostFacts
	t, err := c.conn.GetType()
	if err != nil {
		return f, lvErr(err)
	}
	f.Type = t
	ni, err := c.conn.GetNodeInfo()
	if err != nil {
		return f, lvErr(err)
	}
	f.CPUs, f.MemoryMiB = int(ni.Cpus), int(ni.Memory/1024)
	caps, err := c.conn.GetCapabilities()
	if err != nil {
		return f, lvErr(err)
	}
	f.VirtTypes, err = virtTypes(caps)
	return f, err
}

// virtTypes lists the domain types a capabilities document offers for
// x86 guests, sorted and without repeats.
func virtTypes(caps string) ([]string, error) {
	var doc struct {
		Guests []struct {
			Arch struct {
				Name    string `xml:"name,attr"`
				Domains []struct {
					Type string `xml:"type,attr"`
				} `xml:"domain"`
			} `xml:"arch"`
		} `xml:"guest"`
	}
	if err := xml.Unmarshal([]byte(caps), &doc); err != nil {
		return nil, fmt.Errorf("capabilities: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, g := range doc.Guests {
		if g.Arch.Name != "x86_64" && g.Arch.Name != "i686" {
			continue
		}
		for _, d := range g.Arch.Domains {
			if !seen[d.Type] {
				seen[d.Type] = true
				out = append(out, d.Type)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Pool implements Hypervisor. A directory is matched against every pool's
// target path here rather than with virStoragePoolLookupByTargetPath, which
// not every driver has (the test driver lacks it).
func (c *Conn) Pool(disk string) (Pool, error) {
	pools, err := c.conn.ListAllStoragePools(0)
	if err != nil {
		return Pool{}, fmt.Errorf("list storage pools: %w", lvErr(err))
	}
	var found *Pool
	var active bool
	for i := range pools {
		p := &pools[i]
		if found == nil {
			name, err1 := p.GetName()
			desc, err2 := p.GetXMLDesc(0)
			var doc struct {
				Path string `xml:"target>path"`
			}
			if err1 == nil && err2 == nil && xml.Unmarshal([]byte(desc), &doc) == nil &&
				(name == disk || strings.HasPrefix(disk, "/") && path.Clean(doc.Path) == path.Clean(disk)) {
				found = &Pool{Name: name, Path: doc.Path}
				active, _ = p.IsActive()
			}
		}
		p.Free()
	}
	switch {
	case found == nil && strings.HasPrefix(disk, "/"):
		return Pool{}, fmt.Errorf("%w: no storage pool has target %s (virsh pool-define-as NAME dir --target %s; virsh pool-start NAME)", ErrNotFound, disk, disk)
	case found == nil:
		return Pool{}, fmt.Errorf("%w: no storage pool named %s", ErrNotFound, disk)
	case !active:
		return *found, fmt.Errorf("storage pool %s %w (virsh pool-start %s)", found.Name, ErrPoolInactive, found.Name)
	}
	return *found, nil
}

// Volume implements Hypervisor.
func (c *Conn) Volume(path string) (string, error) {
	v, err := c.conn.LookupStorageVolByPath(path)
	if err != nil {
		return "", fmt.Errorf("volume %s: %w", path, lvErr(err))
	}
	defer v.Free()
	desc, err := v.GetXMLDesc(0)
	if err != nil {
		return "", lvErr(err)
	}
	var doc struct {
		Backing string `xml:"backingStore>path"`
	}
	if err := xml.Unmarshal([]byte(desc), &doc); err != nil {
		return "", fmt.Errorf("volume %s: %w", path, err)
	}
	return doc.Backing, nil
}

// CreateOverlay implements Hypervisor.
func (c *Conn) CreateOverlay(pool, name, backing, backingFormat string, gib int) (string, error) {
	p, err := c.conn.LookupStoragePoolByName(pool)
	if err != nil {
		return "", fmt.Errorf("storage pool %s: %w", pool, lvErr(err))
	}
	defer p.Free()
	capacity := ""
	if gib > 0 {
		capacity = fmt.Sprintf("<capacity unit='GiB'>%d</capacity>", gib)
	} else {
		// libvirt takes the size from the backing file when asked for zero
		// bytes on a qcow2 overlay.
		capacity = "<capacity unit='bytes'>0</capacity>"
	}
	var b strings.Builder
	b.WriteString("<volume><name>")
	_ = xml.EscapeText(&b, []byte(name))
	b.WriteString("</name>" + capacity + "<target><format type='qcow2'/></target><backingStore><path>")
	_ = xml.EscapeText(&b, []byte(backing))
	fmt.Fprintf(&b, "</path><format type='%s'/></backingStore></volume>", backingFormat)
	v, err := p.StorageVolCreateXML(b.String(), 0)
	if err != nil {
		return "", fmt.Errorf("create volume %s in pool %s: %w", name, pool, lvErr(err))
	}
	defer v.Free()
	path, err := v.GetPath()
	return path, lvErr(err)
}

// DeleteVolume implements Hypervisor.
func (c *Conn) DeleteVolume(path string) error {
	v, err := c.conn.LookupStorageVolByPath(path)
	if err != nil {
		return fmt.Errorf("volume %s: %w", path, lvErr(err))
	}
	defer v.Free()
	if err := v.Delete(0); err != nil {
		return fmt.Errorf("delete volume %s: %w", path, lvErr(err))
	}
	return nil
}

// Define implements Hypervisor.
func (c *Conn) Define(xml string) error {
	d, err := c.conn.DomainDefineXML(xml)
	if err != nil {
		return lvErr(err)
	}
	return d.Free()
}

func (c *Conn) domain(name string, fn func(*libvirt.Domain) error) error {
	d, err := c.conn.LookupDomainByName(name)
	if err != nil {
		return fmt.Errorf("domain %s: %w", name, lvErr(err))
	}
	defer d.Free()
	return fn(d)
}

// Start implements Hypervisor.
func (c *Conn) Start(name string) error {
	return c.domain(name, func(d *libvirt.Domain) error { return lvErr(d.Create()) })
}

// Destroy implements Hypervisor.
func (c *Conn) Destroy(name string) error {
	return c.domain(name, func(d *libvirt.Domain) error { return lvErr(d.Destroy()) })
}

// Undefine implements Hypervisor.
func (c *Conn) Undefine(name string) error {
	return c.domain(name, func(d *libvirt.Domain) error { return lvErr(d.Undefine()) })
}

// Domain implements Hypervisor.
func (c *Conn) Domain(name string) (DomainStatus, error) {
	var st DomainStatus
	err := c.domain(name, func(d *libvirt.Domain) error {
		s, _, err := d.GetState()
		if err != nil {
			return lvErr(err)
		}
		st.Running = s != libvirt.DOMAIN_SHUTOFF
		md, err := d.GetMetadata(libvirt.DOMAIN_METADATA_ELEMENT, MetadataNS, libvirt.DOMAIN_AFFECT_CONFIG)
		if errors.Is(err, libvirt.ERR_NO_DOMAIN_METADATA) {
			return nil
		}
		if err != nil {
			return lvErr(err)
		}
		m, err := ParseMetadata(md)
		if err != nil {
			// Unreadable metadata in our namespace is not proof of ownership.
			return nil
		}
		st.Meta = &m
		return nil
	})
	return st, err
}

// OnLifecycle calls fn with every lifecycle event of every domain on the
// connection until the returned function is called. fn runs on libvirt's
// event loop and must not block or call libvirt.
func (c *Conn) OnLifecycle(fn func(name string, ev libvirt.DomainEventLifecycle)) (func(), error) {
	return c.subscribe(fn, nil)
}

func (c *Conn) subscribe(fn func(string, libvirt.DomainEventLifecycle), lost func(error)) (func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil {
		id, err := c.conn.DomainEventLifecycleRegister(nil, func(_ *libvirt.Connect, d *libvirt.Domain, ev *libvirt.DomainEventLifecycle) {
			name, err := d.GetName()
			if err != nil {
				return
			}
			c.mu.Lock()
			subs := make([]func(string, libvirt.DomainEventLifecycle), 0, len(c.subs))
			for _, k := range sortedKeys(c.subs) {
				subs = append(subs, c.subs[k])
			}
			c.mu.Unlock()
			for _, s := range subs {
				s(name, *ev)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("watch %s: %w", c.URI, lvErr(err))
		}
		// Local drivers have no close callback; a lost remote host
		// reaches every watcher.
		_ = c.conn.RegisterCloseCallback(func(_ *libvirt.Connect, reason libvirt.ConnectCloseReason) {
			c.mu.Lock()
			fns := make([]func(error), 0, len(c.closeFn))
			for _, k := range sortedKeys(c.closeFn) {
				fns = append(fns, c.closeFn[k])
			}
			c.mu.Unlock()
			for _, f := range fns {
				f(fmt.Errorf("connection to %s lost (reason %d)", c.URI, reason))
			}
		})
		c.cbID = id
		c.subs = map[int]func(string, libvirt.DomainEventLifecycle){}
		c.closeFn = map[int]func(error){}
	}
	c.nextSub++
	key := c.nextSub
	c.subs[key] = fn
	if lost != nil {
		c.closeFn[key] = lost
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.subs, key)
			delete(c.closeFn, key)
			c.mu.Unlock()
		})
	}, nil
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// Watch implements Hypervisor.
func (c *Conn) Watch(fn func(Event)) (func(), error) {
	return c.subscribe(func(name string, ev libvirt.DomainEventLifecycle) {
		switch ev.Event {
		case libvirt.DOMAIN_EVENT_STARTED:
			fn(Event{Domain: name, Started: true})
		case libvirt.DOMAIN_EVENT_STOPPED:
			detail := libvirt.DomainEventStoppedDetailType(ev.Detail)
			fn(Event{Domain: name, Reason: stoppedReason(detail), Shutdown: detail == libvirt.DOMAIN_EVENT_STOPPED_SHUTDOWN})
		}
	}, func(err error) { fn(Event{Err: err}) })
}

func stoppedReason(d libvirt.DomainEventStoppedDetailType) string {
	switch d {
	case libvirt.DOMAIN_EVENT_STOPPED_SHUTDOWN:
		return "shut down"
	case libvirt.DOMAIN_EVENT_STOPPED_DESTROYED:
		return "destroyed"
	case libvirt.DOMAIN_EVENT_STOPPED_CRASHED:
		return "crashed"
	case libvirt.DOMAIN_EVENT_STOPPED_FAILED:
		return "failed"
	case libvirt.DOMAIN_EVENT_STOPPED_MIGRATED:
		return "migrated"
	case libvirt.DOMAIN_EVENT_STOPPED_SAVED:
		return "saved"
	}
	return fmt.Sprintf("stopped (%d)", d)
}

// Close implements Hypervisor.
func (c *Conn) Close() error {
	c.mu.Lock()
	registered, id := c.subs != nil, c.cbID
	c.subs, c.closeFn = nil, nil
	c.mu.Unlock()
	// Outside the lock: a callback in flight on the event loop takes it.
	if registered {
		_ = c.conn.DomainEventDeregister(id)
		_ = c.conn.UnregisterCloseCallback()
	}
	_, err := c.conn.Close()
	return lvErr(err)
}

// UploadVolume implements Hypervisor.
func (c *Conn) UploadVolume(pool, name string, data []byte) (string, error) {
	p, err := c.conn.LookupStoragePoolByName(pool)
	if err != nil {
		return "", fmt.Errorf("storage pool %s: %w", pool, lvErr(err))
	}
	defer p.Free()
	var b strings.Builder
	b.WriteString("<volume><name>")
	_ = xml.EscapeText(&b, []byte(name))
	fmt.Fprintf(&b, "</name><capacity unit='bytes'>%d</capacity><target><format type='raw'/></target></volume>", len(data))
	v, err := p.StorageVolCreateXML(b.String(), 0)
	if err != nil {
		return "", fmt.Errorf("create volume %s in pool %s: %w", name, pool, lvErr(err))
	}
	defer v.Free()
	path, err := v.GetPath()
	if err != nil {
		_ = v.Delete(0)
		return "", lvErr(err)
	}
	if err := c.upload(v, data); err != nil {
		var le libvirt.Error
		if errors.As(err, &le) && le.Code == libvirt.ERR_NO_SUPPORT && strings.HasPrefix(c.URI, "test:") {
			return path, nil // the test driver keeps no contents
		}
		_ = v.Delete(0)
		return "", fmt.Errorf("upload volume %s: %w", path, lvErr(err))
	}
	return path, nil
}

// upload sends data into v through a stream.
func (c *Conn) upload(v *libvirt.StorageVol, data []byte) error {
	st, err := c.conn.NewStream(0)
	if err != nil {
		return err
	}
	defer st.Free()
	if err := v.Upload(st, 0, uint64(len(data)), 0); err != nil {
		return err
	}
	for sent := 0; sent < len(data); {
		n, err := st.Send(data[sent:])
		if err != nil {
			_ = st.Abort()
			return err
		}
		sent += n
	}
	return st.Finish()
}

// Console implements Hypervisor. The copy runs on a goroutine of its own
// in a blocking read of libvirt's stream, which ends when the domain's
// console closes; stop only silences it, since aborting a stream another
// thread reads is not safe in every libvirt.
func (c *Conn) Console(name string, w io.Writer) (func(), <-chan error, error) {
	d, err := c.conn.LookupDomainByName(name)
	if err != nil {
		return nil, nil, fmt.Errorf("domain %s: %w", name, lvErr(err))
	}
	defer d.Free()
	st, err := c.conn.NewStream(0)
	if err != nil {
		return nil, nil, lvErr(err)
	}
	if err := d.OpenConsole("", st, libvirt.DOMAIN_CONSOLE_FORCE); err != nil {
		_ = st.Free()
		return nil, nil, fmt.Errorf("console of %s: %w", name, lvErr(err))
	}
	var stopped atomic.Bool
	done := make(chan error, 1)
	go func() {
		defer st.Free()
		buf := make([]byte, 16<<10)
		for {
			n, err := st.Recv(buf)
			if n > 0 && !stopped.Load() {
				_, _ = w.Write(buf[:n])
			}
			switch {
			case err != nil:
				done <- lvErr(err)
				return
			case n == 0:
				_ = st.Finish()
				done <- nil
				return
			}
		}
	}()
	return func() { stopped.Store(true) }, done, nil
}

// Network implements Hypervisor.
func (c *Conn) Network(name string) error {
	n, err := c.conn.LookupNetworkByName(name)
	if err != nil {
		var le libvirt.Error
		if errors.As(err, &le) && le.Code == libvirt.ERR_NO_NETWORK {
			return fmt.Errorf("%w: no libvirt network named %s (virsh net-list --all)", ErrNotFound, name)
		}
		return lvErr(err)
	}
	defer n.Free()
	if active, err := n.IsActive(); err != nil {
		return lvErr(err)
	} else if !active {
		return fmt.Errorf("libvirt network %s is not active (virsh net-start %s)", name, name)
	}
	return nil
}

// Bridge implements Hypervisor.
func (c *Conn) Bridge(name string) error {
	i, err := c.conn.LookupInterfaceByName(name)
	if err != nil {
		var le libvirt.Error
		switch {
		case errors.As(err, &le) && le.Code == libvirt.ERR_NO_INTERFACE:
			return fmt.Errorf("%w: the host has no network interface %s (ip link show %s)", ErrNotFound, name, name)
		case errors.As(err, &le) && le.Code == libvirt.ERR_NO_SUPPORT:
			return nil // no interface driver to ask: QEMU will say when it starts
		}
		return lvErr(err)
	}
	defer i.Free()
	if active, err := i.IsActive(); err == nil && !active {
		return fmt.Errorf("interface %s is down (ip link set %s up)", name, name)
	}
	return nil
}
