package xenlibvirt

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
)

// ErrDoesNotFit is wrapped by every error Check reports: the plan asks for more
// than the inventory or the hosts' libvirt offer.
var ErrDoesNotFit = errors.New("plan does not fit the hosts")

// HostFacts is what one host's libvirt reports, gathered by Gather before
// anything is changed; Check and NewDeployment are pure functions of it.
type HostFacts struct {
	// Type is libvirt's driver name: QEMU, Xen or TEST (the test driver).
	Type string `json:"type"`
	// VirtTypes are the domain types the host's capabilities offer for
	// x86_64 or i686 guests: kvm, qemu, xen, test.
	VirtTypes []string `json:"virt_types"`
	CPUs      int      `json:"cpus"`
	MemoryMiB int      `json:"memory_mib"`
	// Pools resolve the inventory's disks in order; PoolErr is set when the
	// disk is no usable storage pool on the host, the Pool then zero if
	// missing, named if inactive.
	Pools   []Pool   `json:"pools"`
	PoolErr []string `json:"pool_errors,omitempty"`
	// Missing lists the image, kernel and initrd paths the host's storage
	// pools do not have.
	Missing []string `json:"missing,omitempty"`
}

// Pool is a libvirt storage pool: its name and target directory.
type Pool struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// Simulated reports whether the host is libvirt's test driver, which accepts
// any domain type and runs nothing.
func (f HostFacts) Simulated() bool { return strings.EqualFold(f.Type, "test") }

// Gather asks one host's libvirt for the facts Check needs. It changes nothing.
func Gather(hv Hypervisor, h InventoryHost, inv *Inventory) (HostFacts, error) {
	f, err := hv.Facts()
	if err != nil {
		return f, fmt.Errorf("host %s (%s): %w", h.Name, h.URI, err)
	}
	f.Pools = make([]Pool, len(h.Disks))
	f.PoolErr = make([]string, len(h.Disks))
	hasErr := false
	for i, d := range h.Disks {
		p, err := hv.Pool(d)
		if err != nil {
			f.PoolErr[i] = err.Error()
			hasErr = true
			if errors.Is(err, ErrPoolInactive) {
				f.Pools[i] = p // there, but stopped: say which
			}
			continue
		}
		f.Pools[i] = p
	}
	if !hasErr {
		f.PoolErr = nil
	}
	for _, p := range []string{inv.Image, inv.Kernel, inv.Initrd} {
		if p == "" {
			continue
		}
		if _, err := hv.Volume(p); err != nil {
			f.Missing = append(f.Missing, p)
		}
	}
	return f, nil
}

// memoryPerVM is the inventory's vm_memory_mib, else the plan's.
func memoryPerVM(pl *plan.Plan, inv *Inventory) int {
	if inv.VMMemoryMiB > 0 {
		return inv.VMMemoryMiB
	}
	return pl.Cluster.MemoryMiBPerVM
}

// Check compares the plan with the inventory and the facts of the plan's hosts
// (facts[i] for inventory host i, i < plan hosts) and returns every way the
// plan does not fit, each naming the host and what is short, in host order.
// The test driver enforces no capacity, so this is packer's only guard:
//
//   - the inventory has at least P hosts, each with at least k disks, and each
//     disk is a storage pool on its host;
//   - the image (and kernel, initrd) are in a pool on every host;
//   - the host's libvirt offers the inventory's hypervisor (kvm needs the
//     kvm domain type; the test driver stands in for any);
//   - in every phase, the primary VMs' vCPUs fit the cores (extra VMs
//     overcommit the CPU by design, the packing paper's section 3), and all VMs'
//     memory fits the memory, both as the inventory declares them and as
//     libvirt reports them.
func Check(pl *plan.Plan, inv *Inventory, facts []HostFacts) []string {
	var out []string
	c := pl.Cluster
	out = append(out, checkJobNames(pl)...)
	if len(inv.Hosts) < c.Hosts {
		out = append(out, fmt.Sprintf("inventory has %d hosts, the plan needs %d", len(inv.Hosts), c.Hosts))
	}
	mem := memoryPerVM(pl, inv)
	vcpus := c.VCPUsPerVM
	for hi := 0; hi < min(c.Hosts, len(inv.Hosts), len(facts)); hi++ {
		h, f := inv.Hosts[hi], facts[hi]
		bad := func(format string, a ...any) {
			out = append(out, fmt.Sprintf("host %s: %s", h.Name, fmt.Sprintf(format, a...)))
		}
		if len(h.Disks) < c.DisksPerHost {
			bad("%d disks, the plan puts VMs on %d", len(h.Disks), c.DisksPerHost)
		}
		for d, e := range f.PoolErr {
			if e != "" && d < c.DisksPerHost {
				bad("disk %d %q: %s", d, h.Disks[d], e)
			}
		}
		for _, m := range f.Missing {
			bad("%s is in none of its storage pools", m)
		}
		if !f.Simulated() {
			want := h.Hypervisor
			if want == Xen && !strings.EqualFold(f.Type, "xen") || want != Xen && !strings.EqualFold(f.Type, "qemu") {
				bad("hypervisor %s, but libvirt's driver is %s", want, f.Type)
			} else if !contains(f.VirtTypes, want) {
				bad("hypervisor %s, but libvirt offers domain types %s", want, strings.Join(f.VirtTypes, ", "))
			}
		}
		// The heaviest phase on this host decides, for CPUs and memory apart.
		var cpuVMs, cpuPhase, memVMs, memPhase int
		for _, ph := range pl.Phases {
			for _, hp := range ph.Hosts {
				if hp.Host != hi {
					continue
				}
				primary := 0
				for _, v := range hp.VMs {
					if v.Role != model.Extra {
						primary++
					}
				}
				if primary > cpuVMs {
					cpuVMs, cpuPhase = primary, ph.Index
				}
				if len(hp.VMs) > memVMs {
					memVMs, memPhase = len(hp.VMs), ph.Index
				}
			}
		}
		for _, l := range []struct {
			phase, vms, per, got int
			what, from           string
		}{
			{cpuPhase, cpuVMs, vcpus, h.Cores, "cores", "the inventory"},
			{cpuPhase, cpuVMs, vcpus, f.CPUs, "CPUs", "libvirt"},
			{memPhase, memVMs, mem, h.MemoryMiB, "MiB of memory", "the inventory"},
			{memPhase, memVMs, mem, f.MemoryMiB, "MiB of memory", "libvirt"},
		} {
			if need := l.vms * l.per; need > l.got {
				bad("phase %d needs %d %s (%d VMs × %d), %s says %d", PhaseNumber(l.phase), need, l.what, l.vms, l.per, l.from, l.got)
			}
		}
	}
	return out
}

// checkJobNames reports job names that make no usable domain name: one with
// no letter or digit, and distinct names that reduce to the same one (their
// VMs would clash). Long names are cut and hashed (jobPart), not refused.
func checkJobNames(pl *plan.Plan) []string {
	var out []string
	safe := map[string]string{}
	for _, j := range pl.Jobs {
		s := jobPart(j.Name)
		if s == "" {
			out = append(out, fmt.Sprintf("job %q: no letter or digit to make a domain name from", j.Name))
			continue
		}
		if other, dup := safe[s]; dup {
			out = append(out, fmt.Sprintf("jobs %q and %q both make domain names with %q", other, j.Name, s))
			continue
		}
		safe[s] = j.Name
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if strings.EqualFold(x, y) {
			return true
		}
	}
	return false
}

// CheckError joins Check's findings into one error wrapping ErrDoesNotFit:
// the first finding, and how many more there are.
func CheckError(problems []string) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%w: %s", ErrDoesNotFit, problems[0])
	}
	return fmt.Errorf("%w: %s (and %d more; see packer hosts check)", ErrDoesNotFit, problems[0], len(problems)-1)
}

// Deployment is a plan made concrete for an inventory: every phase's VMs with
// their names, identities, disks and domain XML.
type Deployment struct {
	Plan   string        `json:"plan"`
	Image  string        `json:"image"`
	Phases []PhaseDeploy `json:"phases"`
}

// PhaseDeploy is one phase's VMs, ordered by host, then as the plan lists them.
type PhaseDeploy struct {
	Index int        `json:"index"`
	VMs   []VMDeploy `json:"vms"`
}

// VMDeploy is one VM ready to create: the pool its overlay goes in, the
// overlay's volume name and path, and the domain XML.
type VMDeploy struct {
	VM
	HostURI string `json:"host_uri"`
	Pool    string `json:"pool"`
	Volume  string `json:"volume"`
	// DiskPath is the overlay's path: the pool's directory and Volume.
	DiskPath string `json:"disk_path"`
	XML      string `json:"-"`
}

// NewDeployment builds the deployment of a plan that passed Check. An extra
// VM has no physical disk of its own in the plan (the packing paper, Aboulnaga et al., CloudDB 2009); its overlay, on
// which it does little I/O, goes on disk e mod k of its host, e counting the
// host's extra VMs in the phase, so extras spread over the disks.
func NewDeployment(pl *plan.Plan, inv *Inventory, facts []HostFacts) (*Deployment, error) {
	if p := Check(pl, inv, facts); len(p) > 0 {
		return nil, CheckError(p)
	}
	d := &Deployment{Plan: pl.ID, Image: inv.Image}
	mem := memoryPerVM(pl, inv)
	k := pl.Cluster.DisksPerHost
	for _, ph := range pl.Phases {
		pd := PhaseDeploy{Index: ph.Index}
		macs := map[string]bool{}
		hosts := append([]model.HostPlacement(nil), ph.Hosts...)
		sort.SliceStable(hosts, func(a, b int) bool { return hosts[a].Host < hosts[b].Host })
		for _, hp := range hosts {
			h, f := inv.Hosts[hp.Host], facts[hp.Host]
			extras := 0
			for _, v := range hp.VMs {
				di := 0
				if v.Disk != nil {
					di = *v.Disk
				} else {
					di = extras % k
					extras++
				}
				name := DomainName(pl.ID, ph.Index, v.Job, v.Index)
				vm := VM{
					Meta: Metadata{Plan: pl.ID, Phase: ph.Index, Job: v.Job, Role: string(v.Role),
						Index: v.Index, Master: v.Index == 0, Name: name},
					Host: hp.Host, HostName: h.Name, Disk: h.Disks[di], DiskIndex: di, Name: name,
					Hostname: guestHostname(v.Job, v.Index), MasterHostname: guestHostname(v.Job, 0),
				}
				for salt := 0; ; salt++ {
					vm.UUID, vm.MAC = identity(name, h.Hypervisor, salt)
					if !macs[vm.MAC] {
						break
					}
				}
				macs[vm.MAC] = true
				pool := f.Pools[di]
				vd := VMDeploy{VM: vm, HostURI: h.URI, Pool: pool.Name, Volume: name + ".qcow2"}
				vd.DiskPath = path.Join(pool.Path, vd.Volume)
				xml, err := DomainXML(vm, DomainSpec{Hypervisor: h.Hypervisor, VCPUs: pl.Cluster.VCPUsPerVM, MemoryMiB: mem,
					DiskPath: vd.DiskPath, Network: h.Network, Kernel: inv.Kernel, Initrd: inv.Initrd, Cmdline: inv.Cmdline})
				if err != nil {
					return nil, err
				}
				vd.XML = xml
				pd.VMs = append(pd.VMs, vd)
			}
		}
		d.Phases = append(d.Phases, pd)
	}
	return d, nil
}
