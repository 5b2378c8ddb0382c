package optimize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// layout renders a placement as "host: job[i]@disk ..." lines, extra VMs as @x.
func layout(hs []HostPlacement) string {
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
	hs, err := Place(p, Phase{Jobs: []Assignment{{0, 6, Host}, {1, 3, Extra}}})
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
	hs, err := Place(p, Phase{Jobs: []Assignment{{0, 4, Host}, {1, 2, Extra}, {2, 2, Primary}}})
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
	hs, err := Place(p, Phase{Jobs: []Assignment{{0, 4, Host}, {1, 2, Extra}, {2, 3, Primary}}})
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
	// Seed 003: I/O-intensive jobs round-robin onto the primary VMs first, then
	// the rest, so that every machine mixes an I/O VM with a CPU VM. K (CPU)
	// comes first in the workload but is placed second.
	c := model.Cluster{Hosts: 3, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192}
	p := problem(t, c, job("K", 100, -0.5, true, false), job("S", 100, -0.5, false, true))
	hs, err := Place(p, Phase{Jobs: []Assignment{{0, 3, Primary}, {1, 3, Primary}}})
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
	if _, err := Place(p, Phase{Jobs: []Assignment{{0, 3, Host}, {1, 2, Extra}}}); err == nil {
		t.Error("want an error")
	}
	if err := p.Check(Schedule{Phases: []Phase{{Jobs: []Assignment{{0, 3, Host}, {1, 2, Extra}}}}}); err == nil {
		t.Error("Check must reject it too")
	}
}

func TestCheckRejects(t *testing.T) {
	p := problem(t, smallCluster(), job("A", 240, -1, false, true), job("B", 120, -1, true, false), job("C", 48, -1, true, true))
	for name, s := range map[string][]Phase{
		"missing job":     {{Jobs: []Assignment{{0, 4, Primary}}}, {Jobs: []Assignment{{1, 4, Primary}}}},
		"job twice":       {{Jobs: []Assignment{{0, 2, Primary}, {1, 2, Primary}}}, {Jobs: []Assignment{{0, 1, Primary}, {2, 3, Primary}}}},
		"too many VMs":    {{Jobs: []Assignment{{0, 3, Primary}, {1, 2, Primary}}}, {Jobs: []Assignment{{2, 4, Primary}}}},
		"zero VMs":        {{Jobs: []Assignment{{0, 0, Primary}, {1, 4, Primary}}}, {Jobs: []Assignment{{2, 4, Primary}}}},
		"CPU job hosts":   {{Jobs: []Assignment{{1, 4, Host}, {0, 2, Extra}}}, {Jobs: []Assignment{{2, 4, Primary}}}},
		"both-class host": {{Jobs: []Assignment{{2, 4, Host}, {1, 2, Extra}}}, {Jobs: []Assignment{{0, 4, Primary}}}},
		"extra w/o host":  {{Jobs: []Assignment{{0, 4, Primary}, {1, 1, Extra}}}, {Jobs: []Assignment{{2, 4, Primary}}}},
		"empty phase":     {{Jobs: []Assignment{{0, 4, Host}, {1, 2, Extra}}}, {}, {Jobs: []Assignment{{2, 4, Primary}}}},
		"unknown role":    {{Jobs: []Assignment{{0, 4, "spare"}, {1, 2, Extra}}}, {Jobs: []Assignment{{2, 4, Primary}}}},
	} {
		if err := p.Check(Schedule{Phases: s}); err == nil {
			t.Errorf("%s: Check accepted %v", name, s)
		}
	}
	ok := Schedule{Phases: []Phase{{Jobs: []Assignment{{0, 4, Host}, {1, 2, Extra}}}, {Jobs: []Assignment{{2, 4, Primary}}}}}
	if err := p.Check(ok); err != nil {
		t.Errorf("a feasible schedule: %v", err)
	}
}
