package model

import (
	"fmt"
	"math"
)

// Cluster is the physical cluster a plan is made for: P identical hosts with k
// disks each. Every primary VM has a physical disk of its own, so the cluster
// runs N = P·k primary VMs without overcommitting; one extra, diskless VM may
// run beside every r primary VMs that host it on the same machine, at the cost
// of a slowdown factor Alpha for the jobs involved (Aboulnaga et al., Packing the Most Onto Your Cloud, CloudDB 2009, sections 3–5).
type Cluster struct {
	// Hosts is P, the number of physical machines (the packing paper's experiments: 9).
	Hosts int `json:"hosts"`
	// DisksPerHost is k; default 2.
	DisksPerHost int `json:"disks_per_host"`
	// ExtraRatio is r, primary VMs per extra VM on one machine, 1 ≤ r ≤ k; default 2.
	ExtraRatio int `json:"extra_ratio"`
	// Alpha is the overcommit penalty: jobs on an overcommitted machine run
	// Alpha times slower. At least 1; default 1.3 (Aboulnaga et al., Packing the Most Onto Your Cloud, CloudDB 2009, section 4).
	Alpha float64 `json:"overcommit_penalty"`
	// CoresPerHost is the number of physical cores per host; default 4 (two
	// dual-core Opterons, the packing paper, section 6).
	CoresPerHost int `json:"cores_per_host"`
	// MemoryMiBPerHost is each host's memory in MiB; default 8192.
	MemoryMiBPerHost int `json:"memory_mib_per_host"`
}

// PaperCluster is the cluster of the packing paper's W1–W3 experiments: 9 hosts with two
// disks and four cores each, one extra VM per two primary VMs, alpha = 1.3.
func PaperCluster() Cluster {
	return Cluster{Hosts: 9, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192}
}

// PrimaryVMs is N = P·k, the VMs the cluster runs without overcommitting.
func (c Cluster) PrimaryVMs() int { return c.Hosts * c.DisksPerHost }

// ExtrasPerHost is how many extra VMs one machine can carry: one per r of its
// k primary VMs, whole groups only.
func (c Cluster) ExtrasPerHost() int { return c.DisksPerHost / c.ExtraRatio }

// MaxExtraVMs is the most extra VMs a phase can run: P·⌊k/r⌋ (the packing paper writes
// P·k/r, the same when r divides k).
func (c Cluster) MaxExtraVMs() int { return c.Hosts * c.ExtrasPerHost() }

// ExtrasFor is how many extra VMs h host-role VMs can carry when they are
// packed r to a machine: ⌊h/r⌋, but no more than the cluster has room for.
func (c Cluster) ExtrasFor(h int) int { return min(h/c.ExtraRatio, c.MaxExtraVMs()) }

// OvercommittedHosts is O, the fewest machines a phase with the given host
// and extra VMs overcommits. A machine either runs extras, and then only host
// and extra VMs, all priced at Alpha, or runs none, and then only VMs priced
// at full speed: the packing paper multiplies the runtime of every job on an
// overcommitted machine by alpha (section 4), and its host role (B_j = 1) is
// an I/O job that "will run with an extra VM on the same physical machine"
// (section 5.2). So the extras need ⌈extras/⌊k/r⌋⌉ machines and the host VMs
// ⌈host/k⌉, each of them carrying an extra.
func (c Cluster) OvercommittedHosts(hostVMs, extras int) int {
	return max(ceilDiv(extras, c.ExtrasPerHost()), ceilDiv(hostVMs, c.DisksPerHost))
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// VCPUsPerVM is the cores each VM gets: the host's cores divided evenly among
// its k primary VMs, at least one.
func (c Cluster) VCPUsPerVM() int { return max(1, c.CoresPerHost/c.DisksPerHost) }

// MemoryMiBPerVM is the memory each VM gets: the host's memory divided among the
// most VMs it may run (k primary plus its extras).
func (c Cluster) MemoryMiBPerVM() int {
	return c.MemoryMiBPerHost / (c.DisksPerHost + c.ExtrasPerHost())
}

// WithDefaults returns c with every zero field set to the paper's value, so a
// zero Cluster is the paper's cluster.
func (c Cluster) WithDefaults() Cluster {
	d := PaperCluster()
	setDefault(&c.Hosts, d.Hosts)
	setDefault(&c.DisksPerHost, d.DisksPerHost)
	setDefault(&c.ExtraRatio, d.ExtraRatio)
	setDefault(&c.Alpha, d.Alpha)
	setDefault(&c.CoresPerHost, d.CoresPerHost)
	setDefault(&c.MemoryMiBPerHost, d.MemoryMiBPerHost)
	return c
}

// MaxPrimaryVMs bounds N = hosts × disks_per_host. Solvers tabulate every
// job's runtime on every VM count up to N, so a mistyped host or disk count
// (10⁸) would exhaust memory; 2²⁰ VMs is far beyond any cluster a plan is
// made for (the packing paper's has 18).
const MaxPrimaryVMs = 1 << 20

// Validate rejects a cluster no plan can be made for, and one past the
// plausibility bounds, with a *SettingError naming the field as the plan
// document spells it.
func (c Cluster) Validate() error {
	bad := func(field, name string, v any, rule string, args ...any) error {
		return &SettingError{Input: "cluster", Field: field, Name: name, Value: v, Rule: fmt.Sprintf(rule, args...)}
	}
	switch {
	case c.Hosts < 1:
		return bad("Hosts", "hosts", c.Hosts, "must be at least 1")
	case c.DisksPerHost < 1:
		return bad("DisksPerHost", "disks_per_host", c.DisksPerHost, "must be at least 1")
	case c.DisksPerHost > MaxDisksPerHost:
		return bad("DisksPerHost", "disks_per_host", c.DisksPerHost, "must be at most %d (the densest storage servers hold about 100 drives)", MaxDisksPerHost)
	case c.Hosts > MaxPrimaryVMs/c.DisksPerHost:
		return bad("Hosts", "hosts", c.Hosts, "must be at most %d with disks_per_host %d (%d primary VMs, the most a plan's tables fit in memory)", MaxPrimaryVMs/c.DisksPerHost, c.DisksPerHost, MaxPrimaryVMs)
	case c.ExtraRatio < 1:
		return bad("ExtraRatio", "extra_ratio", c.ExtraRatio, "must be at least 1")
	case c.ExtraRatio > c.DisksPerHost:
		return bad("ExtraRatio", "extra_ratio", c.ExtraRatio, "must not exceed disks_per_host %d: an extra VM needs r primary VMs on its own machine", c.DisksPerHost)
	case math.IsNaN(c.Alpha) || c.Alpha < 1 || c.Alpha > MaxAlpha:
		return bad("Alpha", "overcommit_penalty (alpha)", c.Alpha, "must be between 1 and %g", MaxAlpha)
	case c.CoresPerHost < 1 || c.CoresPerHost > MaxCoresPerHost:
		return bad("CoresPerHost", "cores_per_host", c.CoresPerHost, "must be between 1 and %d", MaxCoresPerHost)
	case c.MemoryMiBPerHost < 1 || c.MemoryMiBPerHost > MaxMemoryMiBPerHost:
		return bad("MemoryMiBPerHost", "memory_mib_per_host", c.MemoryMiBPerHost, "must be between 1 and %d (64 TiB)", MaxMemoryMiBPerHost)
	}
	return nil
}

// setDefault sets *v to d when *v is the zero value, the "unset" of a
// settings field.
func setDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
