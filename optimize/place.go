package optimize

import (
	"fmt"

	"github.com/packer-sched/packer/model"
)

// Place assigns every VM of one feasible phase to a machine and disk, following
// the end of the packing paper's section 5.2, with one refinement the paper's prose leaves
// open:
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
	c := p.Cluster
	type machine struct {
		vms    []model.VMPlace
		disks  int // disks used
		extras int // host groups on the machine, each carrying one extra VM
	}
	ms := make([]machine, c.Hosts)
	cursor := 0
	put := func(m int, job model.Job, role model.Role, idx int) {
		d := ms[m].disks
		ms[m].vms = append(ms[m].vms, model.VMPlace{Job: job.Name, Role: role, Index: idx, Disk: &d})
		ms[m].disks++
	}
	// roundRobin places one primary VM on the next machine with a free disk,
	// first among machines whose overcommitted state matches preferOver.
	roundRobin := func(job model.Job, role model.Role, idx int, preferOver bool) error {
		for pass := 0; pass < 2; pass++ {
			for t := 0; t < c.Hosts; t++ {
				m := (cursor + t) % c.Hosts
				if ms[m].disks >= c.DisksPerHost {
					continue
				}
				if pass == 0 && (ms[m].extras > 0) != preferOver {
					continue
				}
				put(m, job, role, idx)
				cursor = (m + 1) % c.Hosts
				return nil
			}
		}
		return fmt.Errorf("optimize: placement: no free disk for a VM of job %q", job.Name)
	}

	var hostVMs []struct {
		job model.Job
		idx int
	}
	var extraJobs []model.Assignment
	extraVMs := 0
	for _, a := range ph.Jobs {
		switch a.Role {
		case model.Host:
			for v := range a.VMs {
				hostVMs = append(hostVMs, struct {
					job model.Job
					idx int
				}{p.Jobs[a.Job], v})
			}
		case model.Extra:
			extraJobs = append(extraJobs, a)
			extraVMs += a.VMs
		}
	}
	if extraVMs > c.ExtrasFor(len(hostVMs)) {
		return nil, fmt.Errorf("optimize: placement: %d extra VMs need %d host VMs, the phase has %d", extraVMs, extraVMs*c.ExtraRatio, len(hostVMs))
	}
	// 1. Groups of r host VMs, group g on machine g mod P.
	next := 0
	for g := range extraVMs {
		m := g % c.Hosts
		for range c.ExtraRatio {
			h := hostVMs[next]
			next++
			put(m, h.job, model.Host, h.idx)
		}
		ms[m].extras++
	}
	// 2. The remaining host VMs.
	for _, h := range hostVMs[next:] {
		if err := roundRobin(h.job, model.Host, h.idx, true); err != nil {
			return nil, err
		}
	}
	// 3. Extra VMs beside their groups, machine by machine.
	m, used := 0, 0
	for _, a := range extraJobs {
		for v := range a.VMs {
			for used == ms[m].extras {
				m, used = m+1, 0
			}
			ms[m].vms = append(ms[m].vms, model.VMPlace{Job: p.Jobs[a.Job].Name, Role: model.Extra, Index: v})
			used++
		}
	}
	// 4 and 5. Primary VMs: I/O-intensive jobs first.
	for _, wantIO := range []bool{true, false} {
		for _, a := range ph.Jobs {
			job := p.Jobs[a.Job]
			if a.Role != model.Primary || job.IOIntensive != wantIO {
				continue
			}
			for v := range a.VMs {
				if err := roundRobin(job, model.Primary, v, false); err != nil {
					return nil, err
				}
			}
		}
	}
	var out []model.HostPlacement
	for h, mc := range ms {
		if len(mc.vms) == 0 {
			continue
		}
		out = append(out, model.HostPlacement{Host: h, VMs: mc.vms, Overcommitted: countRole(mc.vms, model.Extra) > 0})
	}
	return out, nil
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
