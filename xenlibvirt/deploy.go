package xenlibvirt

import (
	"errors"
	"fmt"
	"path"
	"slices"
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
	// Missing lists the image, kernel and initrd paths (and the jobs' own
	// images) the host's storage pools do not have.
	Missing []string `json:"missing,omitempty"`
	// NetErr says what is wrong with the libvirt network or bridge the
	// inventory attaches the host's VMs to; empty when it is there and up.
	NetErr string `json:"network_error,omitempty"`
}

// Pool is a libvirt storage pool: its name and target directory.
type Pool struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// Simulated reports whether the host is libvirt's test driver, which accepts
// any domain type and runs nothing.
func (f HostFacts) Simulated() bool { return strings.EqualFold(f.Type, "test") }

// jobImages lists the plan's jobs' own images (RunSpec.Image), each once, in
// job order; nil for a nil plan.
func jobImages(pl *plan.Plan) []string {
	var out []string
	if pl == nil {
		return nil
	}
	for _, j := range pl.Jobs {
		if j.Run != nil && j.Run.Image != "" && !slices.Contains(out, j.Run.Image) {
			out = append(out, j.Run.Image)
		}
	}
	return out
}

// Gather asks one host's libvirt for the facts Check needs; jobImages are
// the plan's jobs' own images, checked like the inventory's. It changes
// nothing.
func Gather(hv Hypervisor, h InventoryHost, inv *Inventory, jobImages ...string) (HostFacts, error) {
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
	for _, p := range append([]string{inv.Image, inv.Kernel, inv.Initrd}, jobImages...) {
		if p == "" {
			continue
		}
		if _, err := hv.Volume(p); err != nil {
			f.Missing = append(f.Missing, p)
		}
	}
	switch {
	case h.Bridge != "":
		if err := hv.Bridge(h.Bridge); err != nil {
			f.NetErr = fmt.Sprintf("bridge %s: %v", h.Bridge, err)
		}
	case h.Network != UserNetwork && h.Network != "":
		if err := hv.Network(h.Network); err != nil {
			f.NetErr = fmt.Sprintf("network %s: %v", h.Network, err)
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
	if inv.Subnet != "" {
		n := 0
		for _, ph := range pl.Phases {
			for _, hp := range ph.Hosts {
				n += len(hp.VMs)
			}
		}
		if have := inv.vmAddresses(); n > have {
			out = append(out, fmt.Sprintf("subnet %s has %d VM addresses (from first_address %d to the last before the broadcast), the plan has %d VMs; give a larger subnet", inv.Subnet, have, inv.FirstAddress, n))
		}
	}
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
		if f.NetErr != "" {
			bad("%s", f.NetErr)
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
	// Image is the image the overlay sits on: the job's own, else the
	// inventory's.
	Image string `json:"image"`
	// Run is what the VM runs, from its job's run spec; nil when the job
	// has none and the appliance runs its own job.
	Run *GuestRun `json:"run,omitempty"`
	// SeedVolume and SeedPath name the VM's NoCloud seed volume, beside
	// the overlay; "" without Run.
	SeedVolume string `json:"seed_volume,omitempty"`
	SeedPath   string `json:"seed_path,omitempty"`
	XML        string `json:"-"`
}

// SeedVolumeName is the name of a VM's NoCloud seed volume: the domain's
// name and ".cidata.iso".
func SeedVolumeName(domain string) string { return domain + ".cidata.iso" }

// NewDeployment builds the deployment of a plan that passed Check. An extra
// VM has no physical disk of its own in the plan (the packing paper, Aboulnaga et al., CloudDB 2009); its overlay, on
// which it does little I/O, goes on disk e mod k of its host, e counting the
// host's extra VMs in the phase, so extras spread over the disks.
func NewDeployment(pl *plan.Plan, inv *Inventory, facts []HostFacts) (*Deployment, error) {
	if p := Check(pl, inv, facts); len(p) > 0 {
		return nil, CheckError(p)
	}
	d := &Deployment{Plan: pl.ID, Image: inv.Image}
	jobs := make(map[string]model.Job, len(pl.Jobs))
	for _, j := range pl.Jobs {
		jobs[j.Name] = j
	}
	// MACs and addresses are unique across the whole plan, not only the
	// phase: a job's VMs must never meet an older VM's ARP entry.
	macs := map[string]bool{}
	numbered := 0
	for _, ph := range pl.Phases {
		pd := PhaseDeploy{Index: ph.Index}
		hosts := append([]model.HostPlacement(nil), ph.Hosts...)
		sort.SliceStable(hosts, func(a, b int) bool { return hosts[a].Host < hosts[b].Host })
		for _, hp := range hosts {
			extras := 0
			for _, v := range hp.VMs {
				vd, err := newVMDeploy(pl, inv, facts, ph.Index, hp.Host, v, &extras, macs, numbered)
				if err != nil {
					return nil, err
				}
				numbered++
				pd.VMs = append(pd.VMs, vd)
			}
		}
		if err := concretiseRuns(pl, inv, ph, jobs, pd.VMs); err != nil {
			return nil, err
		}
		d.Phases = append(d.Phases, pd)
	}
	return d, nil
}

// newVMDeploy names, places and numbers one VM (its address is the plan's
// VM number numbered); extras counts the host's extra VMs so far in the
// phase, macs the MACs taken.
func newVMDeploy(pl *plan.Plan, inv *Inventory, facts []HostFacts, phase, host int, v model.VMPlace, extras *int, macs map[string]bool, numbered int) (VMDeploy, error) {
	h, f, k := inv.Hosts[host], facts[host], pl.Cluster.DisksPerHost
	di := 0
	if v.Disk != nil {
		di = *v.Disk
	} else {
		di = *extras % k
		*extras++
	}
	name := DomainName(pl.ID, phase, v.Job, v.Index)
	vm := VM{
		Meta: Metadata{Plan: pl.ID, Phase: phase, Job: v.Job, Role: string(v.Role),
			Index: v.Index, Master: v.Index == 0, Name: name},
		Host: host, HostName: h.Name, Disk: h.Disks[di], DiskIndex: di, Name: name,
		Hostname: guestHostname(v.Job, v.Index), MasterHostname: guestHostname(v.Job, 0),
	}
	for salt := 0; ; salt++ {
		vm.UUID, vm.MAC = identity(name, h.Hypervisor, salt)
		if !macs[vm.MAC] {
			break
		}
	}
	macs[vm.MAC] = true
	if inv.Subnet != "" {
		a, err := inv.vmAddress(numbered)
		if err != nil {
			return VMDeploy{}, err
		}
		vm.Address = a
	}
	pool := f.Pools[di]
	vd := VMDeploy{VM: vm, HostURI: h.URI, Pool: pool.Name, Volume: name + ".qcow2", Image: inv.Image}
	vd.DiskPath = path.Join(pool.Path, vd.Volume)
	return vd, nil
}

// concretiseRuns gives the phase's VMs of jobs with a run spec their
// GuestRun and seed volume, and every VM its domain XML. A job's VMs all
// run in one phase, so the phase's VMs are all its peers.
func concretiseRuns(pl *plan.Plan, inv *Inventory, ph plan.Phase, jobs map[string]model.Job, vms []VMDeploy) error {
	peers := map[string][]Peer{}
	for _, vm := range vms {
		ps := peers[vm.Meta.Job]
		for len(ps) <= vm.Meta.Index {
			ps = append(ps, Peer{})
		}
		ps[vm.Meta.Index] = Peer{Hostname: vm.Hostname, Address: vm.Address.Addr()}
		peers[vm.Meta.Job] = ps
	}
	roles := map[string]string{}
	for _, j := range ph.Jobs {
		roles[j.Name] = string(j.Role)
	}
	mem := memoryPerVM(pl, inv)
	for i := range vms {
		vd := &vms[i]
		h := inv.Hosts[vd.Host]
		if spec := jobs[vd.Meta.Job].Run; spec != nil {
			g, err := newGuestRun(pl.ID, vd.VM, spec, roles[vd.Meta.Job], peers[vd.Meta.Job])
			if err != nil {
				return err
			}
			vd.Run = g
			vd.SeedVolume = SeedVolumeName(vd.Name)
			vd.SeedPath = path.Join(path.Dir(vd.DiskPath), vd.SeedVolume)
			if spec.Image != "" {
				vd.Image = spec.Image
			}
		}
		xml, err := DomainXML(vd.VM, DomainSpec{Hypervisor: h.Hypervisor, VCPUs: pl.Cluster.VCPUsPerVM, MemoryMiB: mem,
			DiskPath: vd.DiskPath, SeedPath: vd.SeedPath, Network: h.Network, Bridge: h.Bridge,
			Kernel: inv.Kernel, Initrd: inv.Initrd, Cmdline: inv.Cmdline})
		if err != nil {
			return err
		}
		vd.XML = xml
	}
	return nil
}
