package xenlibvirt

import (
	"fmt"
	"strings"

	"github.com/packer-sched/packer/plan"
)

// Summary says in one line what Apply is about to do with s: the plan, the
// phases and VMs it will run, the hosts, and the journal; the command line
// shows it before it asks for approval.
func Summary(pl *plan.Plan, inv *Inventory, s *Settings) string {
	vms, phases := 0, fmt.Sprintf("%d phases", len(pl.Phases))
	for _, ph := range pl.Phases {
		if !s.OnePhase || ph.Index == s.Phase {
			for _, hp := range ph.Hosts {
				vms += len(hp.VMs)
			}
		}
	}
	if s.OnePhase {
		phases = fmt.Sprintf("phase %d of %d", PhaseNumber(s.Phase), len(pl.Phases))
	}
	hosts := make([]string, 0, pl.Cluster.Hosts)
	for _, h := range inv.Hosts[:min(pl.Cluster.Hosts, len(inv.Hosts))] {
		hosts = append(hosts, h.Name)
	}
	resume := ""
	if s.Resume {
		resume = ", resuming"
	}
	return fmt.Sprintf("packer will apply plan %s (%s, %d VMs) on hosts %s%s; journal %s", pl.ID, phases, vms,
		strings.Join(hosts, ", "), resume, s.StatePath)
}
