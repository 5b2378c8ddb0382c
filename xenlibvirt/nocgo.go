//go:build !cgo

package xenlibvirt

import "errors"

// ErrNoLibvirt is what every connection fails with in a build without cgo:
// libvirt's Go binding is a cgo package, and planning, simulating and
// reporting should not need a C tool chain and libvirt-dev to build.
var ErrNoLibvirt = errors.New("this packer was built without cgo, so it cannot reach libvirt; " +
	"build it with cgo: apt-get install -y libvirt-dev pkg-config && CGO_ENABLED=1 go build ./cmd/packer")

// Libvirt is the Connector that opens real libvirt connections; without cgo
// it refuses every host with ErrNoLibvirt.
var Libvirt Connector = ConnectorFunc(func(h InventoryHost) (Hypervisor, error) {
	return nil, ErrNoLibvirt
})

// Available reports whether this build can reach libvirt: ErrNoLibvirt.
func Available() error { return ErrNoLibvirt }
