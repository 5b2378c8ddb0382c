package xenlibvirt

import (
	"fmt"
	"net/netip"
)

// defaultFirstAddress is Inventory.FirstAddress's default.
const defaultFirstAddress = 10

// validateSubnet checks the inventory's subnet, first_address, gateway and
// dns on their own and fills first_address's default.
func (inv *Inventory) validateSubnet() error {
	if inv.Subnet == "" {
		switch {
		case inv.FirstAddress != 0:
			return fmt.Errorf("first_address: %d given without a subnet", inv.FirstAddress)
		case inv.Gateway != "":
			return fmt.Errorf("gateway: %q given without a subnet", inv.Gateway)
		case len(inv.DNS) > 0:
			return fmt.Errorf("dns: given without a subnet")
		}
		return nil
	}
	p, err := netip.ParsePrefix(inv.Subnet)
	if err != nil || !p.Addr().Is4() {
		return fmt.Errorf("subnet: %q is not an IPv4 network in CIDR form (like 10.77.0.0/16)", inv.Subnet)
	}
	if p.Masked() != p {
		return fmt.Errorf("subnet: %q has host bits set; the network is %s", inv.Subnet, p.Masked())
	}
	if p.Bits() > 30 {
		return fmt.Errorf("subnet: %q is too small for VMs (at most /30)", inv.Subnet)
	}
	if inv.FirstAddress < 0 {
		return fmt.Errorf("first_address: %d is negative", inv.FirstAddress)
	}
	if inv.FirstAddress == 0 {
		inv.FirstAddress = defaultFirstAddress
	}
	if inv.FirstAddress >= subnetSize(p)-1 {
		return fmt.Errorf("first_address: %d is past the last address of %s", inv.FirstAddress, inv.Subnet)
	}
	if inv.Gateway != "" {
		g, err := netip.ParseAddr(inv.Gateway)
		if err != nil || !p.Contains(g) {
			return fmt.Errorf("gateway: %q is not an address in subnet %s", inv.Gateway, inv.Subnet)
		}
		if off := offsetIn(p, g); off >= inv.FirstAddress {
			return fmt.Errorf("gateway: %s is at offset %d, among the VMs' addresses (from first_address %d); give a lower one or raise first_address", g, off, inv.FirstAddress)
		}
	}
	for i, d := range inv.DNS {
		if _, err := netip.ParseAddr(d); err != nil {
			return fmt.Errorf("dns[%d]: %q is not an IP address", i, d)
		}
	}
	return nil
}

// subnetSize is the number of addresses in p, network and broadcast
// included.
func subnetSize(p netip.Prefix) int { return 1 << (32 - p.Bits()) }

// offsetIn is a's offset from p's network address.
func offsetIn(p netip.Prefix, a netip.Addr) int { return int(ip4(a)) - int(ip4(p.Addr())) }

// ip4 and addr4 convert between an IPv4 address and its 32-bit number.
func ip4(a netip.Addr) uint32 {
	x := a.As4()
	return uint32(x[0])<<24 | uint32(x[1])<<16 | uint32(x[2])<<8 | uint32(x[3])
}

func addr4(x uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)})
}

// vmAddresses is how many VM addresses the inventory's subnet holds: from
// FirstAddress up to the last before the broadcast address.
func (inv *Inventory) vmAddresses() int {
	p, err := netip.ParsePrefix(inv.Subnet)
	if err != nil {
		return 0
	}
	return subnetSize(p) - 1 - inv.FirstAddress
}

// vmAddress is the address of the plan's VM number v (counting every VM of
// every phase in deployment order, from 0): offset FirstAddress + v in the
// subnet. A VM's number, and so its address, follows from where it sits in
// the plan; no two VMs of a plan share one, and a resumed apply gives each
// VM the address it had.
func (inv *Inventory) vmAddress(v int) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(inv.Subnet)
	if err != nil {
		return netip.Prefix{}, err
	}
	if v < 0 || v >= inv.vmAddresses() {
		return netip.Prefix{}, fmt.Errorf("VM %d has no address in subnet %s from offset %d", v, inv.Subnet, inv.FirstAddress)
	}
	return netip.PrefixFrom(addr4(ip4(p.Addr())+uint32(inv.FirstAddress+v)), p.Bits()), nil
}
