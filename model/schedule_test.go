package model

import (
	"math"
	"testing"
)

// smallCluster: P = 2 hosts × k = 2 disks, so N = 4 primary VMs and, with
// r = 2, P·⌊k/r⌋ = 2 extra VMs; alpha = 1.2.
func smallCluster() Cluster {
	return Cluster{Hosts: 2, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.2, CoresPerHost: 4, MemoryMiBPerHost: 4096}
}

func testJob(name string, a float64, cpu, io bool) Job {
	return Job{Name: name, Model: PowerLaw{A: a, B: -1}, CPUIntensive: cpu, IOIntensive: io}
}

func testProblem(t *testing.T) *Problem {
	t.Helper()
	p, err := NewProblem(&Workload{Name: "t", Jobs: []Job{testJob("A", 240, false, true), testJob("B", 120, true, false), testJob("C", 48, true, true)}}, smallCluster())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckRejects(t *testing.T) {
	p := testProblem(t)
	for name, s := range map[string][]Phase{
		"missing job":     {{Jobs: []Assignment{{Job: 0, VMs: 4, Role: Primary}}}, {Jobs: []Assignment{{Job: 1, VMs: 4, Role: Primary}}}},
		"job twice":       {{Jobs: []Assignment{{Job: 0, VMs: 2, Role: Primary}, {Job: 1, VMs: 2, Role: Primary}}}, {Jobs: []Assignment{{Job: 0, VMs: 1, Role: Primary}, {Job: 2, VMs: 3, Role: Primary}}}},
		"too many VMs":    {{Jobs: []Assignment{{Job: 0, VMs: 3, Role: Primary}, {Job: 1, VMs: 2, Role: Primary}}}, {Jobs: []Assignment{{Job: 2, VMs: 4, Role: Primary}}}},
		"zero VMs":        {{Jobs: []Assignment{{Job: 0, VMs: 0, Role: Primary}, {Job: 1, VMs: 4, Role: Primary}}}, {Jobs: []Assignment{{Job: 2, VMs: 4, Role: Primary}}}},
		"CPU job hosts":   {{Jobs: []Assignment{{Job: 1, VMs: 4, Role: Host}, {Job: 0, VMs: 2, Role: Extra}}}, {Jobs: []Assignment{{Job: 2, VMs: 4, Role: Primary}}}},
		"both-class host": {{Jobs: []Assignment{{Job: 2, VMs: 4, Role: Host}, {Job: 1, VMs: 2, Role: Extra}}}, {Jobs: []Assignment{{Job: 0, VMs: 4, Role: Primary}}}},
		"extra w/o host":  {{Jobs: []Assignment{{Job: 0, VMs: 4, Role: Primary}, {Job: 1, VMs: 1, Role: Extra}}}, {Jobs: []Assignment{{Job: 2, VMs: 4, Role: Primary}}}},
		"empty phase":     {{Jobs: []Assignment{{Job: 0, VMs: 4, Role: Host}, {Job: 1, VMs: 2, Role: Extra}}}, {}, {Jobs: []Assignment{{Job: 2, VMs: 4, Role: Primary}}}},
		"unknown role":    {{Jobs: []Assignment{{Job: 0, VMs: 4, Role: "spare"}, {Job: 1, VMs: 2, Role: Extra}}}, {Jobs: []Assignment{{Job: 2, VMs: 4, Role: Primary}}}},
	} {
		if err := p.Check(Schedule{Phases: s}); err == nil {
			t.Errorf("%s: Check accepted %v", name, s)
		}
	}
	ok := Schedule{Phases: []Phase{{Jobs: []Assignment{{Job: 0, VMs: 4, Role: Host}, {Job: 1, VMs: 2, Role: Extra}}}, {Jobs: []Assignment{{Job: 2, VMs: 4, Role: Primary}}}}}
	if err := p.Check(ok); err != nil {
		t.Errorf("a feasible schedule: %v", err)
	}
}

// TestScheduleArithmetic: A 240/n on 4 VMs as host, alpha 1.2: 72 s; B 120/n
// on 2 extras: 1.2·60 = 72 s; C 48/4 = 12 s alone. Makespan 72 + 12 = 84;
// sequential 60 + 30 + 12 = 102; mean completion (72 + 72 + 84)/3 = 76.
func TestScheduleArithmetic(t *testing.T) {
	p := testProblem(t)
	s := Schedule{Phases: []Phase{{Jobs: []Assignment{{Job: 1, VMs: 2, Role: Extra}, {Job: 0, VMs: 4, Role: Host}}}, {Jobs: []Assignment{{Job: 2, VMs: 4, Role: Primary}}}}}
	if err := p.Check(s); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"makespan", p.Makespan(s), 84}, {"sequential", p.SequentialMakespan(), 102}, {"mean completion", p.MeanCompletion(s), 76}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s %v, want %v", c.what, c.got, c.want)
		}
	}
	if Normalize(s).Phases[0].Jobs[0].Job != 0 {
		t.Errorf("Normalize left %v unsorted", s.Phases[0])
	}
}

// TestCheckPlacement: one machine holding A's four host VMs on two disks is
// rejected, as is a primary VM without a disk; the right placement passes.
func TestCheckPlacement(t *testing.T) {
	p := testProblem(t)
	ph := Phase{Jobs: []Assignment{{Job: 0, VMs: 4, Role: Host}, {Job: 1, VMs: 2, Role: Extra}}}
	d := func(i int) *int { return &i }
	good := []HostPlacement{
		{Host: 0, VMs: []VMPlace{{"A", Host, 0, d(0)}, {"A", Host, 1, d(1)}, {"B", Extra, 0, nil}}, Overcommitted: true},
		{Host: 1, VMs: []VMPlace{{"A", Host, 2, d(0)}, {"A", Host, 3, d(1)}, {"B", Extra, 1, nil}}, Overcommitted: true},
	}
	if err := p.CheckPlacement(ph, good); err != nil {
		t.Fatal(err)
	}
	crowded := []HostPlacement{{Host: 0, VMs: []VMPlace{{"A", Host, 0, d(0)}, {"A", Host, 1, d(1)}, {"A", Host, 2, d(0)}, {"A", Host, 3, d(1)}}}}
	noDisk := []HostPlacement{good[0], {Host: 1, VMs: []VMPlace{{"A", Host, 2, nil}, {"A", Host, 3, d(1)}, {"B", Extra, 1, nil}}, Overcommitted: true}}
	for name, hs := range map[string][]HostPlacement{"disk reused": crowded, "no disk": noDisk, "VMs missing": good[:1]} {
		if err := p.CheckPlacement(ph, hs); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestCheckOvercommitSplitsMachines: on P = 2 hosts × k = 4 disks, r = 2, a
// machine with an extra holds only host and extra VMs. Host A on 2 VMs
// carrying B's 1 extra overcommits ⌈max(1/2, 2/4)⌉ = 1 machine, so the
// primary job C gets the other machine's 4 disks, not the 6 that
// N − host = 8 − 2 would suggest; and host VMs need an extra on every machine
// they use: 5 host VMs take 2 machines, so need 2 extras.
func TestCheckOvercommitSplitsMachines(t *testing.T) {
	c := Cluster{Hosts: 2, DisksPerHost: 4, ExtraRatio: 2, Alpha: 1.2, CoresPerHost: 4, MemoryMiBPerHost: 4096}
	p, err := NewProblem(&Workload{Name: "t", Jobs: []Job{testJob("A", 240, false, true), testJob("B", 120, true, false), testJob("C", 48, false, false)}}, c)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.OvercommittedHosts(2, 1); got != 1 {
		t.Errorf("OvercommittedHosts(2, 1) = %d, want 1", got)
	}
	if got := c.OvercommittedHosts(5, 1); got != 2 {
		t.Errorf("OvercommittedHosts(5, 1) = %d, want 2", got)
	}
	phase := func(host, extra, prim int) Schedule {
		return Schedule{Phases: []Phase{{Jobs: []Assignment{{Job: 0, VMs: host, Role: Host}, {Job: 1, VMs: extra, Role: Extra}, {Job: 2, VMs: prim, Role: Primary}}}}}
	}
	for _, tc := range []struct {
		host, extra, prim int
		ok                bool
	}{{2, 1, 4, true}, {2, 1, 5, false}, {4, 2, 4, true}, {5, 1, 1, false}, {5, 2, 1, false}, {4, 1, 4, true}} {
		err := p.Check(phase(tc.host, tc.extra, tc.prim))
		if (err == nil) != tc.ok {
			t.Errorf("host %d, extra %d, primary %d: got %v, want ok = %v", tc.host, tc.extra, tc.prim, err, tc.ok)
		}
	}
}
