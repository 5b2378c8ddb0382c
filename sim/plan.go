package sim

import (
	"fmt"
	"slices"

	"github.com/packer-sched/packer/plan"
)

// PlanReplay replays a packer plan document (the packing paper's phase model): each job
// runs on exactly the VMs the plan gives it, as nodes of its own. Primary VM
// (host h, disk d) is node h·k + d; the plan's extra VMs are overcommitted
// nodes added beyond the cluster's (ReplayPlan adds them), extra i of host h
// being node Nodes + h·⌊k/r⌋ + i. On a machine the plan overcommits in a phase,
// every VM's tasks run alpha times slower while that phase's jobs hold it.
//
// With Barrier, phases run one after another, as the plan assumes: a phase
// starts when every job of the previous one has finished. Without it, a job
// starts as soon as every job that used one of its nodes in an earlier phase
// has finished, which is never later, so never slower.
type PlanReplay struct {
	Barrier bool

	name   string
	jobs   []planJob // in phase order
	owner  []int32   // node → workload job holding it, or −1
	byWork []int     // workload job → index in jobs
	next   int       // barrier mode: first phase not finished
}

// planJob is one job's share of the plan.
type planJob struct {
	job   int // workload index
	phase int
	nodes []int32
	slow  []float64
	// hosts are the machines the job has VMs on; overHosts those of them its
	// phase overcommits (where its tasks run alpha times slower).
	hosts, overHosts []int32
	after            []int // indexes into PlanReplay.jobs that must finish first (no barrier)
	start            bool
}

var (
	_ Policy          = (*PlanReplay)(nil)
	_ Starter         = (*PlanReplay)(nil)
	_ ArrivalObserver = (*PlanReplay)(nil)
	_ FinishObserver  = (*PlanReplay)(nil)
)

// ErrPlanMismatch is wrapped by ReplayPlan's errors: the plan does not fit
// the simulated cluster or workload.
var ErrPlanMismatch = fmt.Errorf("plan does not fit the simulation")

// ReplayPlan prepares the replay of pl on w: it returns a copy of w whose
// cluster has the plan's extra VMs as extra nodes (if any phase uses them),
// and the policy. Every job of w must be in the plan and every job of the plan
// in w, matched by name, and the plan's P·k primary VMs must fit in the
// cluster's nodes. pl must be a verified plan (plan.Parse and plan.ReadFile
// verify).
func ReplayPlan(pl *plan.Plan, w *Workload, barrier bool) (*Workload, *PlanReplay, error) {
	if err := w.Validate(); err != nil {
		return nil, nil, err
	}
	c := w.Cluster.WithDefaults()
	pc := pl.Cluster.Cluster
	k, e := pc.DisksPerHost, pc.ExtrasPerHost()
	if n := pc.PrimaryVMs(); n > c.Nodes {
		return nil, nil, fmt.Errorf("%w: plan %s needs %d nodes for its %d hosts × %d disks, the cluster has %d", ErrPlanMismatch, pl.ID, n, pc.Hosts, k, c.Nodes)
	}
	index := make(map[string]int, len(w.Jobs))
	for i, j := range w.Jobs {
		index[j.Name] = i
	}
	p := &PlanReplay{Barrier: barrier, byWork: make([]int, len(w.Jobs))}
	p.name = "plan"
	if !barrier {
		p.name = "plan no-barrier"
	}
	for i := range p.byWork {
		p.byWork[i] = -1
	}
	usesExtras := false
	for _, ph := range pl.Phases {
		at := map[string]int{}
		for _, pj := range ph.Jobs {
			j, ok := index[pj.Name]
			if !ok {
				return nil, nil, fmt.Errorf("%w: plan job %q is not in workload %s", ErrPlanMismatch, pj.Name, w.Name)
			}
			if p.byWork[j] >= 0 {
				return nil, nil, fmt.Errorf("%w: job %q is in the plan twice", ErrPlanMismatch, pj.Name)
			}
			p.byWork[j] = len(p.jobs)
			at[pj.Name] = len(p.jobs)
			p.jobs = append(p.jobs, planJob{job: j, phase: ph.Index})
		}
		for _, h := range ph.Hosts {
			slow, extra := 1.0, 0
			if h.Overcommitted {
				slow = pc.Alpha
			}
			for _, v := range h.VMs {
				var node int
				if v.Disk != nil {
					node = h.Host*k + *v.Disk
				} else {
					if extra >= e {
						return nil, nil, fmt.Errorf("%w: phase %d: host %d has more than %d extra VMs", ErrPlanMismatch, ph.Index, h.Host, e)
					}
					node = c.Nodes + h.Host*e + extra
					extra++
					usesExtras = true
				}
				pj := &p.jobs[at[v.Job]]
				pj.nodes = append(pj.nodes, int32(node))
				pj.slow = append(pj.slow, slow)
				if !slices.Contains(pj.hosts, int32(h.Host)) {
					pj.hosts = append(pj.hosts, int32(h.Host))
					if h.Overcommitted {
						pj.overHosts = append(pj.overHosts, int32(h.Host))
					}
				}
			}
		}
	}
	for i, j := range w.Jobs {
		if p.byWork[i] < 0 {
			return nil, nil, fmt.Errorf("%w: workload job %q is not in plan %s", ErrPlanMismatch, j.Name, pl.ID)
		}
	}
	// A job waits for the earlier jobs that share one of its nodes, and, on
	// a machine that either job's phase overcommits, for every earlier job on
	// that machine: the slowdown alpha is priced for the VMs of one phase
	// sharing the machine, so an overcommitted phase must not overlap other
	// phases' VMs there (they would run unslowed beside the extra VMs, or the
	// extras beside VMs the phase never planned).
	for b := range p.jobs {
		for a := range b {
			ja, jb := &p.jobs[a], &p.jobs[b]
			if ja.phase < jb.phase && (shareNode(ja.nodes, jb.nodes) ||
				shareNode(ja.overHosts, jb.hosts) || shareNode(ja.hosts, jb.overHosts)) {
				jb.after = append(jb.after, a)
			}
		}
	}
	out := *w
	out.Cluster.Extras = nil
	if usesExtras {
		for h := range pc.Hosts {
			for range e {
				out.Cluster.Extras = append(out.Cluster.Extras, h*k)
			}
		}
	}
	return &out, p, nil
}

func shareNode(a, b []int32) bool {
	for _, n := range a {
		if slices.Contains(b, n) {
			return true
		}
	}
	return false
}

// PlanWorkload builds the simulation workload of a plan's own jobs on cluster
// c (Nodes 0 means the plan's P·k): as FromModel does, but each job sized for
// the VMs the plan gives it, waves·n·S map tasks of F(n)/waves seconds, so
// that on its n nodes it takes exactly F(n), or alpha·F(n) overcommitted: the
// runtime the plan predicts.
func PlanWorkload(pl *plan.Plan, c Cluster, waves int) (*Workload, error) {
	if waves < 1 {
		return nil, fmt.Errorf("sim: waves must be at least 1, got %d", waves)
	}
	if c.Nodes == 0 {
		c.Nodes = pl.Cluster.PrimaryVMs
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	vms := map[string]int{}
	for _, ph := range pl.Phases {
		for _, j := range ph.Jobs {
			vms[j.Name] = j.VMs
		}
	}
	w := &Workload{Name: pl.Workload, Cluster: c}
	slots := c.WithDefaults().MapSlots
	for _, j := range pl.Jobs {
		w.Jobs = append(w.Jobs, modelJob(j, vms[j.Name], slots, waves))
	}
	return w, w.Validate()
}

// Name is "plan" or "plan no-barrier".
func (p *PlanReplay) Name() string { return p.name }

// Start frees every node.
func (p *PlanReplay) Start(s *State) {
	p.owner = make([]int32, s.Nodes())
	for i := range p.owner {
		p.owner[i] = -1
	}
	for i := range p.jobs {
		p.jobs[i].start = false
	}
	p.next = 0
}

// JobArrived starts the job if its nodes are free.
func (p *PlanReplay) JobArrived(s *State, _ int) { p.startReady(s) }

// JobFinished frees the job's nodes and starts the jobs waiting for them.
func (p *PlanReplay) JobFinished(s *State, j int) {
	pj := &p.jobs[p.byWork[j]]
	for _, n := range pj.nodes {
		p.owner[n] = -1
		s.SetSlowdown(int(n), 1)
	}
	for p.next < len(p.jobs) && s.Finished(p.jobs[p.next].job) {
		p.next++
	}
	p.startReady(s)
}

// startReady starts every job whose turn has come.
func (p *PlanReplay) startReady(s *State) {
	phase := -1 // barrier: the phase now running
	if p.next < len(p.jobs) {
		phase = p.jobs[p.next].phase
	}
	for i := range p.jobs {
		pj := &p.jobs[i]
		if pj.start || !s.Arrived(pj.job) {
			continue
		}
		ready := true
		if p.Barrier {
			// Jobs are listed phase by phase and every job before p.next has
			// finished, so the phase of p.next is the one that may run.
			ready = pj.phase == phase
		} else {
			for _, a := range pj.after {
				ready = ready && s.Finished(p.jobs[a].job)
			}
		}
		if !ready {
			continue
		}
		pj.start = true
		for k, n := range pj.nodes {
			p.owner[n] = int32(pj.job)
			s.SetSlowdown(int(n), pj.slow[k])
			s.Wake(int(n))
		}
	}
}

// Assign gives a node's slots to the job holding the node.
func (p *PlanReplay) Assign(s *State, node int, k Kind) int {
	if j := p.owner[node]; j >= 0 && s.Pending(int(j), k) > 0 {
		return int(j)
	}
	return Idle
}
