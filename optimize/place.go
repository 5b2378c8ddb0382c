package optimize

import (
	"fmt"

	"github.com/packer-sched/packer/model"
)

// Place assigns every VM of one feasible phase to a machine and disk, following
// the end of the packing paper's section 5.2, with the refinements its prose
// leaves open. The phase model prices every VM on a machine that runs extras
// at alpha and every other VM at full speed (model.Cluster.OvercommittedHosts
// says why), so the machines split in two: the first O of them are
// overcommitted and hold only host and extra VMs, the rest hold only primary
// VMs.
//
//  1. Extras: one on each of the O machines, the rest filling machines up to
//     ⌊k/r⌋ in order, so that as few machines as possible are overcommitted.
//  2. Host-role VMs (I/O jobs that carry extras) go r per extra onto those
//     machines: an extra VM needs r host VMs on its own machine, which a plain
//     round-robin of single VMs could leave no machine with.
//  3. Host-role VMs beyond those groups go round-robin onto the overcommitted
//     machines' free disks.
//  4. Extra VMs, beside their groups, with no disk.
//  5. Other I/O-intensive jobs round-robin onto the other machines' disks, then
//  6. the remaining jobs.
//
// Every primary VM gets a distinct disk of its machine. Hosts with no VMs are
// left out of the result, which is ordered by host.
func Place(p *model.Problem, ph model.Phase) ([]model.HostPlacement, error) {
	pc := &placer{p: p, ms: make([]machine, p.Cluster.Hosts)}
	hostVMs, extraJobs, extraVMs := hostsAndExtras(p, ph)
	c := p.Cluster
	if h := len(hostVMs); extraVMs > c.ExtrasFor(h) || h > c.DisksPerHost*extraVMs {
		return nil, fmt.Errorf("optimize: placement: %d extra VMs need between %d and %d host VMs (r = %d, k = %d), the phase has %d",
			extraVMs, extraVMs*c.ExtraRatio, extraVMs*c.DisksPerHost, c.ExtraRatio, c.DisksPerHost, h)
	}
	rest := pc.hostGroups(hostVMs, extraVMs) // 1, 2
	for _, h := range rest {                 // 3
		if err := pc.roundRobin(h.job, model.Host, h.idx, true); err != nil {
			return nil, err
		}
	}
	pc.extras(extraJobs) // 4
	// 5 and 6. Primary VMs: I/O-intensive jobs first.
	for _, wantIO := range []bool{true, false} {
		for _, a := range ph.Jobs {
			job := p.Jobs[a.Job]
			if a.Role != model.Primary || job.IOIntensive != wantIO {
				continue
			}
			for v := range a.VMs {
				if err := pc.roundRobin(job, model.Primary, v, false); err != nil {
					return nil, err
				}
			}
		}
	}
	var out []model.HostPlacement
	for h, mc := range pc.ms {
		if len(mc.vms) == 0 {
			continue
		}
		out = append(out, model.HostPlacement{Host: h, VMs: mc.vms, Overcommitted: mc.extras > 0})
	}
	return out, nil
}

// machine is one host's VMs while a phase is placed.
type machine struct {
	vms    []model.VMPlace
	disks  int // disks used
	extras int // host groups on the machine, each carrying one extra VM
}

// placer places one phase's VMs on the machines.
type placer struct {
	p      *model.Problem
	ms     []machine
	cursor int // the machine the next round-robin starts at
}

// jobVM is one VM of a job: the job and the VM's index in it.
type jobVM struct {
	job model.Job
	idx int
}

// hostsAndExtras lists the phase's host-role VMs, its extra-role jobs and
// their VM count.
func hostsAndExtras(p *model.Problem, ph model.Phase) (hostVMs []jobVM, extraJobs []model.Assignment, extraVMs int) {
	for _, a := range ph.Jobs {
		switch a.Role {
		case model.Host:
			for v := range a.VMs {
				hostVMs = append(hostVMs, jobVM{p.Jobs[a.Job], v})
			}
		case model.Extra:
			extraJobs = append(extraJobs, a)
			extraVMs += a.VMs
		}
	}
	return hostVMs, extraJobs, extraVMs
}

// put places a VM with a disk on machine m.
func (pc *placer) put(m int, job model.Job, role model.Role, idx int) {
	d := pc.ms[m].disks
	pc.ms[m].vms = append(pc.ms[m].vms, model.VMPlace{Job: job.Name, Role: role, Index: idx, Disk: &d})
	pc.ms[m].disks++
}

// hostGroups is steps 1 and 2: the extras spread over the fewest machines,
// O = Cluster.OvercommittedHosts, one each and then up to ⌊k/r⌋ in machine
// order, and r host VMs beside each. It returns the host VMs left over.
func (pc *placer) hostGroups(hostVMs []jobVM, extraVMs int) []jobVM {
	c := pc.p.Cluster
	if extraVMs == 0 {
		return hostVMs
	}
	o := c.OvercommittedHosts(len(hostVMs), extraVMs)
	left := extraVMs
	for m := range o {
		pc.ms[m].extras = 1
		left--
	}
	for m := 0; left > 0; m++ {
		add := min(left, c.ExtrasPerHost()-pc.ms[m].extras)
		pc.ms[m].extras += add
		left -= add
	}
	next := 0
	for m := range o {
		for range c.ExtraRatio * pc.ms[m].extras {
			h := hostVMs[next]
			next++
			pc.put(m, h.job, model.Host, h.idx)
		}
	}
	return hostVMs[next:]
}

// extras is step 4: the extra VMs beside their groups, machine by machine,
// without disks.
func (pc *placer) extras(extraJobs []model.Assignment) {
	m, used := 0, 0
	for _, a := range extraJobs {
		for v := range a.VMs {
			for used == pc.ms[m].extras {
				m, used = m+1, 0
			}
			pc.ms[m].vms = append(pc.ms[m].vms, model.VMPlace{Job: pc.p.Jobs[a.Job].Name, Role: model.Extra, Index: v})
			used++
		}
	}
}

// roundRobin places one VM with a disk on the next machine with a free disk
// among the overcommitted machines (over) or the others: host VMs belong on
// the former, primary VMs on the latter.
func (pc *placer) roundRobin(job model.Job, role model.Role, idx int, over bool) error {
	c := pc.p.Cluster
	for t := 0; t < c.Hosts; t++ {
		m := (pc.cursor + t) % c.Hosts
		if pc.ms[m].disks >= c.DisksPerHost || (pc.ms[m].extras > 0) != over {
			continue
		}
		pc.put(m, job, role, idx)
		pc.cursor = (m + 1) % c.Hosts
		return nil
	}
	return fmt.Errorf("optimize: placement: no free disk for a %s VM of job %q", role, job.Name)
}
