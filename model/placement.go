package model

import "fmt"

// HostPlacement is one physical machine's VMs in one phase.
type HostPlacement struct {
	Host int       `json:"host"` // 0..P−1
	VMs  []VMPlace `json:"vms"`
	// Overcommitted is true when the machine runs extra VMs in this phase.
	Overcommitted bool `json:"overcommitted"`
}

// VMPlace is one VM on a machine.
type VMPlace struct {
	Job  string `json:"job"`
	Role Role   `json:"role"`
	// Index numbers the job's VMs in the phase from 0; VM 0 is the job's Hadoop
	// master (the packing paper, section 2: one VM of every job serves as its
	// master).
	Index int `json:"index"`
	// Disk is the machine's physical disk (0..k−1) the VM's image lives on;
	// nil for an extra VM, which has no disk of its own.
	Disk *int `json:"disk"`
}

// CheckPlacement checks one phase's placement against the phase: every
// machine is one of the cluster's, listed once, and holds at most k primary
// VMs on distinct disks 0..k−1 and at most ⌊host VMs/r⌋ extra VMs, all
// diskless, and is marked overcommitted exactly when it holds extras; a
// machine with extras holds no primary VMs and one with host VMs holds extras
// (every VM on it runs as fast as it is priced); every
// VM belongs to a job of the phase, in that job's role; and each job's VMs
// are numbered 0..n−1, each placed once, n its VM count in the phase.
func (p *Problem) CheckPlacement(ph Phase, hosts []HostPlacement) error {
	want := make(map[string]Assignment, len(ph.Jobs))
	for _, a := range ph.Jobs {
		want[p.Jobs[a.Job].Name] = a
	}
	got := map[string][]bool{}
	seenHost := map[int]bool{}
	for _, h := range hosts {
		if h.Host < 0 || h.Host >= p.Cluster.Hosts {
			return fmt.Errorf("host %d outside 0..%d", h.Host, p.Cluster.Hosts-1)
		}
		if seenHost[h.Host] {
			return fmt.Errorf("host %d listed twice", h.Host)
		}
		seenHost[h.Host] = true
		if err := p.checkMachine(h, want, got); err != nil {
			return err
		}
	}
	for _, a := range ph.Jobs {
		name := p.Jobs[a.Job].Name
		n := 0
		for _, b := range got[name] {
			if b {
				n++
			}
		}
		if n != a.VMs {
			return fmt.Errorf("job %q has %d VMs but %d are placed", name, a.VMs, n)
		}
	}
	return nil
}

// checkMachine checks one machine's VMs against the phase's jobs (want, by
// name) and marks each VM in got[job][index].
func (p *Problem) checkMachine(h HostPlacement, want map[string]Assignment, got map[string][]bool) error {
	c := p.Cluster
	disks := map[int]bool{}
	var hostVMs, extras int
	for _, v := range h.VMs {
		j, ok := want[v.Job]
		if !ok {
			return fmt.Errorf("host %d: VM of job %q, which is not in this phase", h.Host, v.Job)
		}
		if v.Role != j.Role {
			return fmt.Errorf("host %d: VM %d of job %q has role %q, the job has %q", h.Host, v.Index, v.Job, v.Role, j.Role)
		}
		if v.Index < 0 || v.Index >= j.VMs {
			return fmt.Errorf("host %d: VM index %d of job %q outside 0..%d", h.Host, v.Index, v.Job, j.VMs-1)
		}
		if got[v.Job] == nil {
			got[v.Job] = make([]bool, j.VMs)
		}
		if got[v.Job][v.Index] {
			return fmt.Errorf("job %q: VM %d placed twice", v.Job, v.Index)
		}
		got[v.Job][v.Index] = true
		if v.Role == Extra {
			extras++
			if v.Disk != nil {
				return fmt.Errorf("host %d: extra VM %d of job %q has disk %d; extra VMs have none", h.Host, v.Index, v.Job, *v.Disk)
			}
			continue
		}
		if v.Role == Host {
			hostVMs++
		}
		if v.Disk == nil {
			return fmt.Errorf("host %d: primary VM %d of job %q has no disk", h.Host, v.Index, v.Job)
		}
		if d := *v.Disk; d < 0 || d >= c.DisksPerHost || disks[d] {
			return fmt.Errorf("host %d: VM %d of job %q on disk %d: disks are 0..%d, one VM each", h.Host, v.Index, v.Job, d, c.DisksPerHost-1)
		}
		disks[*v.Disk] = true
	}
	if extras > 0 && hostVMs+extras < len(h.VMs) {
		return fmt.Errorf("host %d: primary VMs beside extra VMs: they would run alpha times slower than their model says", h.Host)
	}
	if extras == 0 && hostVMs > 0 {
		return fmt.Errorf("host %d: host VMs without an extra VM beside them: they would run faster than their model says", h.Host)
	}
	if extras*c.ExtraRatio > hostVMs {
		return fmt.Errorf("host %d: %d extra VMs need %d host VMs beside them, it has %d", h.Host, extras, extras*c.ExtraRatio, hostVMs)
	}
	if h.Overcommitted != (extras > 0) {
		return fmt.Errorf("host %d: overcommitted is %v with %d extra VMs", h.Host, h.Overcommitted, extras)
	}
	return nil
}
