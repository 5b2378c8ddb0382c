package optimize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// layout renders a placement as "host: job[i]@disk ..." lines, extra VMs as @x.
func layout(hs []model.HostPlacement) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%d:", h.Host)
		for _, v := range h.VMs {
			d := "x"
			if v.Disk != nil {
				d = fmt.Sprint(*v.Disk)
			}
			fmt.Fprintf(&b, " %s[%d]@%s", v.Job, v.Index, d)
		}
		if h.Overcommitted {
			b.WriteString(" (overcommitted)")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestPlaceOvercommitGroups(t *testing.T) {
	// P = 3, k = 2, r = 2. A (I/O) on all 6 primary VMs as host, B (CPU) on
	// ⌊6/2⌋ = 3 extras: one group of two A VMs per machine, B's extra beside it.
	c := model.Cluster{Hosts: 3, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192}
	p := problem(t, c, job("A", 100, -1, false, true), job("B", 100, -1, true, false))
	hs, err := Place(p, model.Phase{Jobs: []model.Assignment{{Job: 0, VMs: 6, Role: model.Host}, {Job: 1, VMs: 3, Role: model.Extra}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "0: A[0]@0 A[1]@1 B[0]@x (overcommitted)\n" +
		"1: A[2]@0 A[3]@1 B[1]@x (overcommitted)\n" +
		"2: A[4]@0 A[5]@1 B[2]@x (overcommitted)\n"
	if got := layout(hs); got != want {
		t.Errorf("placement\n%s\nwant\n%s", got, want)
	}
}

func TestPlaceGroupsBeforeRoundRobin(t *testing.T) {
	// P = 3, k = 2, r = 2, A host on 4 VMs carrying B's 2 extras. A plain
	// round-robin of A's VMs would put one on each of hosts 0, 1, 2, 0 and leave
	// only host 0 with the two host VMs an extra needs; grouping gives two.
	c := model.Cluster{Hosts: 3, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192}
	p := problem(t, c, job("A", 100, -1, false, true), job("B", 100, -1, true, false), job("C", 50, -1, false, false))
	hs, err := Place(p, model.Phase{Jobs: []model.Assignment{{Job: 0, VMs: 4, Role: model.Host}, {Job: 1, VMs: 2, Role: model.Extra}, {Job: 2, VMs: 2, Role: model.Primary}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "0: A[0]@0 A[1]@1 B[0]@x (overcommitted)\n" +
		"1: A[2]@0 A[3]@1 B[1]@x (overcommitted)\n" +
		"2: C[0]@0 C[1]@1\n"
	if got := layout(hs); got != want {
		t.Errorf("placement\n%s\nwant\n%s", got, want)
	}
}

func TestPlaceKeepsPrimaryJobsOffOvercommittedHosts(t *testing.T) {
	// P = 3, k = 3, r = 2: a group of two host VMs leaves a third disk free on
	// hosts 0 and 1. C's primary VMs go to host 2 first, where no extra VM
	// would slow them beyond what their model says.
	c := model.Cluster{Hosts: 3, DisksPerHost: 3, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 6, MemoryMiBPerHost: 8192}
	p := problem(t, c, job("A", 100, -1, false, true), job("B", 100, -1, true, false), job("C", 50, -1, false, false))
	hs, err := Place(p, model.Phase{Jobs: []model.Assignment{{Job: 0, VMs: 4, Role: model.Host}, {Job: 1, VMs: 2, Role: model.Extra}, {Job: 2, VMs: 3, Role: model.Primary}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "0: A[0]@0 A[1]@1 B[0]@x (overcommitted)\n" +
		"1: A[2]@0 A[3]@1 B[1]@x (overcommitted)\n" +
		"2: C[0]@0 C[1]@1 C[2]@2\n"
	if got := layout(hs); got != want {
		t.Errorf("placement\n%s\nwant\n%s", got, want)
	}
}

func TestPlaceIOFirstRoundRobin(t *testing.T) {
	// The packing paper: I/O-intensive jobs round-robin onto the primary VMs first, then
	// the rest, so that every machine mixes an I/O VM with a CPU VM. K (CPU)
	// comes first in the workload but is placed second.
	c := model.Cluster{Hosts: 3, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192}
	p := problem(t, c, job("K", 100, -0.5, true, false), job("S", 100, -0.5, false, true))
	hs, err := Place(p, model.Phase{Jobs: []model.Assignment{{Job: 0, VMs: 3, Role: model.Primary}, {Job: 1, VMs: 3, Role: model.Primary}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "0: S[0]@0 K[0]@1\n1: S[1]@0 K[1]@1\n2: S[2]@0 K[2]@1\n"
	if got := layout(hs); got != want {
		t.Errorf("placement\n%s\nwant\n%s", got, want)
	}
}

func TestPlaceRejectsTooManyExtras(t *testing.T) {
	c := model.Cluster{Hosts: 3, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192}
	p := problem(t, c, job("A", 100, -1, false, true), job("B", 100, -1, true, false))
	// 3 host VMs carry ⌊3/2⌋ = 1 extra, not 2.
	if _, err := Place(p, model.Phase{Jobs: []model.Assignment{{Job: 0, VMs: 3, Role: model.Host}, {Job: 1, VMs: 2, Role: model.Extra}}}); err == nil {
		t.Error("want an error")
	}
	if err := p.Check(model.Schedule{Phases: []model.Phase{{Jobs: []model.Assignment{{Job: 0, VMs: 3, Role: model.Host}, {Job: 1, VMs: 2, Role: model.Extra}}}}}); err == nil {
		t.Error("Check must reject it too")
	}
}
