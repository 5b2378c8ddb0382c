package optimize

import (
	"fmt"

	"github.com/packer-sched/packer/model"
)

// Place assigns every VM of one feasible phase to a machine and disk, following
// the end of the packing paper's section 5.2, with one refinement the
// paper's prose leaves open:
//
//  1. Host-role VMs (I/O jobs that carry extras) go in groups of r onto one
//     machine each, one group per extra VM, the groups spread over the machines
//     round-robin. Grouping is what makes an extra VM possible: it needs r host
//     VMs on its own machine; a plain round-robin of single VMs could leave no
//     machine with r of them.
//  2. Host-role VMs beyond those groups go round-robin, to overcommitted
//     machines first (they already pay alpha).
//  3. Extra VMs, one beside each group, with no disk.
//  4. Other I/O-intensive jobs round-robin onto the remaining disks, then
//  5. the remaining jobs; both prefer machines that are not overcommitted, so
//     that no primary job runs beside an extra VM it was not priced for.
//
// Every primary VM gets a distinct disk of its machine. Hosts with no VMs are
// left out of the result, which is ordered by host.
func Place(p *model.Problem, ph model.Phase) ([]model.HostPlacement, error) {
	pc := &placer{p: p, ms: make([]machine, p.Cluster.Hosts)}
	hostVMs, extraJobs, extraVMs := hostsAndExtras(p, ph)
	if c := p.Cluster; extraVMs > c.ExtrasFor(len(hostVMs)) {
		return nil, fmt.Errorf("optimize: placement: %d extra VMs need %d host VMs, the phase has %d", extraVMs, extraVMs*c.ExtraRatio, len(hostVMs))
	}
	rest := pc.hostGroups(hostVMs, extraVMs) // 1
	for _, h := range rest {                 // 2
		if err := pc.roundRobin(h.job, model.Host, h.idx, true); err != nil {
			return nil, err
		}
	}
	pc.extras(extraJobs) // 3
	// 4 and 5. Primary VMs: I/O-intensive jobs first.
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
		out = append(out, model.HostPlacement{Host: h, VMs: mc.vms, Overcommitted: countRole(mc.vms, model.Extra) > 0})
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

// hostGroups is step 1: one group of r host VMs per extra VM, group g on
// machine g mod P. It returns the host VMs left over.
func (pc *placer) hostGroups(hostVMs []jobVM, extraVMs int) []jobVM {
	c := pc.p.Cluster
	next := 0
	for g := range extraVMs {
		m := g % c.Hosts
		for range c.ExtraRatio {
			h := hostVMs[next]
			next++
			pc.put(m, h.job, model.Host, h.idx)
		}
		pc.ms[m].extras++
	}
	return hostVMs[next:]
}

// extras is step 3: the extra VMs beside their groups, machine by machine,
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

// roundRobin places one primary VM on the next machine with a free disk,
// first among machines whose overcommitted state matches preferOver.
func (pc *placer) roundRobin(job model.Job, role model.Role, idx int, preferOver bool) error {
	c := pc.p.Cluster
	for pass := 0; pass < 2; pass++ {
		for t := 0; t < c.Hosts; t++ {
			m := (pc.cursor + t) % c.Hosts
			if pc.ms[m].disks >= c.DisksPerHost {
				continue
			}
			if pass == 0 && (pc.ms[m].extras > 0) != preferOver {
				continue
			}
			pc.put(m, job, role, idx)
			pc.cursor = (m + 1) % c.Hosts
			return nil
		}
	}
	return fmt.Errorf("optimize: placement: no free disk for a VM of job %q", job.Name)
}

func countRole(vms []model.VMPlace, r model.Role) int {
	n := 0
	for _, v := range vms {
		if v.Role == r {
			n++
		}
	}
	return n
}
