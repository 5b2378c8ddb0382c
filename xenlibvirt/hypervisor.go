package xenlibvirt

import (
	"errors"
	"io"
)

// Hypervisor is one host's libvirt, reduced to what apply needs. Open returns
// the libvirt implementation; tests wrap it to inject faults. Methods are
// safe for concurrent use.
type Hypervisor interface {
	// Facts reports the driver type, domain types, CPUs and memory. Gather
	// fills in the pools and images.
	Facts() (HostFacts, error)
	// Pool resolves a disk of the inventory: a storage pool's name, or the
	// target directory of one.
	Pool(disk string) (Pool, error)
	// Volume reports the backing file of the volume at path ("" if none);
	// an error wrapping ErrNotFound if there is no such volume.
	Volume(path string) (backing string, err error)
	// CreateOverlay creates a qcow2 volume name in pool on top of backing
	// (of format backingFormat), of gib GiB (0: the backing file's size), and
	// returns its path.
	CreateOverlay(pool, name, backing, backingFormat string, gib int) (string, error)
	// DeleteVolume deletes the volume at path.
	DeleteVolume(path string) error
	// UploadVolume creates a raw volume name in pool holding data (through
	// libvirt's volume upload, so that it works on remote hosts) and returns
	// its path. The test driver stores no contents: there the volume is
	// created empty.
	UploadVolume(pool, name string, data []byte) (string, error)
	// Console copies a running domain's console to w until the console
	// closes (the domain stopped: done then receives nil) or fails (done
	// receives why). stop makes the copy end and write nothing more, as
	// soon as it can.
	Console(name string, w io.Writer) (stop func(), done <-chan error, err error)
	// Network reports nil when the libvirt network name exists and is
	// active, else what is wrong (wrapping ErrNotFound when it is missing).
	Network(name string) error
	// Bridge reports nil when the host has an active network interface
	// name (libvirt's interface driver; nil too when the driver cannot
	// tell), else what is wrong.
	Bridge(name string) error
	// Define defines a persistent domain from XML.
	Define(xml string) error
	// Start boots a defined domain.
	Start(name string) error
	// Domain reports whether a domain exists, whether it is running, and its
	// packer metadata (nil when it has none); ErrNotFound if it does not exist.
	Domain(name string) (DomainStatus, error)
	// Destroy powers a running domain off at once.
	Destroy(name string) error
	// Undefine removes a domain's definition.
	Undefine(name string) error
	// Watch calls fn for every domain that starts (Event.Started) or stops
	// (powers off, crashes, is destroyed), in the order the host reports
	// them, a domain's start before any stop of that run of it, and with a
	// non-nil error if the connection is lost, until the returned function
	// is called. fn must not block. Apply counts a VM's stops only after its
	// start, so a Watch that reports no starts leaves its phases waiting.
	Watch(fn func(Event)) (stop func(), err error)
	// Close releases the connection.
	Close() error
}

// ErrNotFound is wrapped by Hypervisor errors about a domain, volume or pool
// that does not exist.
var ErrNotFound = errors.New("not found")

// ErrPoolInactive is wrapped by Pool's error for a storage pool that exists
// but is not started; Pool returns the pool with it.
var ErrPoolInactive = errors.New("is not active")

// DomainStatus is what Hypervisor.Domain reports.
type DomainStatus struct {
	Running bool
	// Meta is the domain's packer metadata; nil when it has none.
	Meta *Metadata
}

// Event is a domain starting (Started set) or stopping, or the connection
// being lost (Err set).
type Event struct {
	Domain string
	// Started is true when the domain started running.
	Started bool
	// Shutdown is true when the guest powered itself off, the one way a
	// VM's job ends well; Reason says how it stopped otherwise.
	Shutdown bool
	Reason   string
	Err      error
}

// Connector opens a Hypervisor for an inventory host. Connect is called
// for several hosts at once (hosts check and apply reach them in parallel),
// so it must be safe for concurrent use.
type Connector interface {
	Connect(h InventoryHost) (Hypervisor, error)
}

// ConnectorFunc adapts a function to Connector.
type ConnectorFunc func(h InventoryHost) (Hypervisor, error)

// Connect calls f.
func (f ConnectorFunc) Connect(h InventoryHost) (Hypervisor, error) { return f(h) }
