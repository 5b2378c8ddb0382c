package xenlibvirt

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/packer-sched/packer/plan"
)

// DefaultConnectTimeout is how long packer waits for a host's libvirt to
// answer a connection when the caller gives no timeout.
const DefaultConnectTimeout = 10 * time.Second

// ErrConnectTimeout is wrapped by the error of a connection that got no
// answer in time: a host that accepts TCP connections and then says nothing
// would otherwise hold packer for minutes.
var ErrConnectTimeout = errors.New("no answer")

// WithTimeout bounds c's Connect by d (0: DefaultConnectTimeout). libvirt's
// connect cannot be cancelled, so a connection that answers after the
// deadline is closed as soon as it does. Once connected, libvirt's keepalive
// (see Open) notices a host that stops answering.
func WithTimeout(c Connector, d time.Duration) Connector {
	if d <= 0 {
		d = DefaultConnectTimeout
	}
	return ConnectorFunc(func(h InventoryHost) (Hypervisor, error) {
		type result struct {
			hv  Hypervisor
			err error
		}
		done := make(chan result, 1)
		go func() {
			hv, err := c.Connect(h)
			done <- result{hv, err}
		}()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case r := <-done:
			return r.hv, r.err
		case <-t.C:
			go func() {
				if r := <-done; r.err == nil && r.hv != nil {
					_ = r.hv.Close()
				}
			}()
			return nil, fmt.Errorf("%w within %v", ErrConnectTimeout, d)
		}
	})
}

// HostReport is what hosts check found on one inventory host.
type HostReport struct {
	Name      string     `json:"name"`
	URI       string     `json:"uri"`
	Reachable bool       `json:"reachable"`
	Error     string     `json:"error,omitempty"`
	Facts     *HostFacts `json:"facts,omitempty"`
	// Canary is the boot canary's outcome, when hosts check ran one.
	Canary *CanaryReport `json:"canary,omitempty"`
}

// HostsReport is hosts check's answer: every inventory host, and with a
// plan whether it fits (Fits) and, if not, why (Problems).
type HostsReport struct {
	Hosts    []HostReport `json:"hosts"`
	Plan     string       `json:"plan,omitempty"`
	Fits     *bool        `json:"fits,omitempty"`
	Problems []string     `json:"problems,omitempty"`
}

// CheckHosts connects to every inventory host through c, gathers its facts
// and closes it again; with a plan (pl may be nil) it also checks the plan
// against the inventory and the plan's hosts, as Apply does before it changes
// anything. An unreachable plan host is reported as such, not as short of
// everything. It changes nothing.
func CheckHosts(pl *plan.Plan, inv *Inventory, c Connector) *HostsReport {
	rep := &HostsReport{}
	var facts []HostFacts
	for i, hc := range connectAll(inv.Hosts, inv, c, jobImages(pl)) {
		h := inv.Hosts[i]
		r := HostReport{Name: h.Name, URI: h.URI}
		if hc.err == nil {
			_ = hc.hv.Close()
			r.Reachable, r.Facts = true, &hc.facts
		} else {
			r.Error = hc.err.Error()
		}
		facts = append(facts, ptrOrZero(r.Facts))
		rep.Hosts = append(rep.Hosts, r)
	}
	if pl == nil {
		return rep
	}
	n := min(pl.Cluster.Hosts, len(inv.Hosts))
	for i := 0; i < n; i++ {
		if !rep.Hosts[i].Reachable {
			rep.Problems = append(rep.Problems, fmt.Sprintf("host %s: unreachable", rep.Hosts[i].Name))
		}
	}
	if len(rep.Problems) == 0 {
		rep.Problems = Check(pl, inv, facts[:n])
	}
	fits := len(rep.Problems) == 0
	rep.Plan, rep.Fits = pl.ID, &fits
	return rep
}

func ptrOrZero(f *HostFacts) HostFacts {
	if f == nil {
		return HostFacts{}
	}
	return *f
}

// Unreachable lists the hosts that could not be reached, each as
// "NAME (URI): why", in inventory order.
func (r *HostsReport) Unreachable() []string {
	var out []string
	for _, h := range r.Hosts {
		if !h.Reachable {
			out = append(out, fmt.Sprintf("%s (%s): %s", h.Name, h.URI, h.Error))
		}
	}
	return out
}

// PoolLabels names each of a host's disks as found: its pool's name, or the
// disk with "(inactive)" or "(missing)" when libvirt has it stopped or not
// at all.
func (f *HostFacts) PoolLabels(h InventoryHost) []string {
	var out []string
	for d, p := range f.Pools {
		inactive := d < len(f.PoolErr) && strings.Contains(f.PoolErr[d], ErrPoolInactive.Error())
		switch {
		case inactive && p.Name != "":
			out = append(out, p.Name+" (inactive)")
		case p.Name == "":
			out = append(out, h.Disks[d]+" (missing)")
		default:
			out = append(out, p.Name)
		}
	}
	return out
}
