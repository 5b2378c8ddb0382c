package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRackFilterMatchesIndex runs random workloads (jobs of up to 60 maps
// on clusters of up to 64 racks, so that a job's replicas leave racks out
// and its racks are exhausted one by one) under every policy, preemptive
// ones and a meddler that kills mid-drain included, once asking the block
// indexes every time and once through the jobs' rack filters: the traces
// must be the same event for event, and the filters must have ruled racks
// out.
func TestRackFilterMatchesIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	policies := append(registered(), "fair:2", "fair:1+2", "fair:3+3", "meddler", "fair-meddler")
	exhaustions := 0
	for i := range 80 {
		w := randomWorkload(rng, true, i%4 != 0)
		w.Cluster.Nodes = 2 + rng.IntN(200)
		w.Cluster.Racks = 1 + rng.IntN(min(64, w.Cluster.Nodes))
		w.Cluster.Replication = 1 + rng.IntN(min(3, w.Cluster.Nodes))
		for j := range w.Jobs {
			job := &w.Jobs[j]
			job.User = fmt.Sprintf("u%d", rng.IntN(3))
			for range rng.IntN(30) {
				job.Maps.Durations = append(job.Maps.Durations, float64(1+rng.IntN(20)))
			}
			if i%3 == 2 && rng.IntN(2) == 0 {
				// The workload's own replicas, one to three distinct nodes.
				job.Blocks = make([][]int, job.Maps.N())
				for t := range job.Blocks {
					job.Blocks[t] = rng.Perm(w.Cluster.Nodes)[:1+rng.IntN(min(3, w.Cluster.Nodes))]
				}
			}
		}
		set := Settings{Seed: uint64(i), ReduceSlowstart: float64(i%2) * 0.3}
		if i%5 == 0 {
			set.Heartbeat = 1
		}
		for _, name := range policies {
			run := func(filter bool) []string {
				noRackFilter = !filter
				defer func() { noRackFilter = false }()
				p := testPolicy(t, name)
				rec := &recorder{}
				set.Trace = rec
				if err := w.Validate(); err != nil {
					t.Fatal(err)
				}
				s := compile(w, set)
				if err := s.exec(p); err != nil {
					t.Fatalf("case %d, %s: %v", i, name, err)
				}
				if !filter && s.exhaustions != 0 {
					t.Fatalf("case %d, %s: %d racks ruled out with the filters off", i, name, s.exhaustions)
				}
				exhaustions += s.exhaustions
				return rec.lines
			}
			want := run(false)
			sameTrace(t, fmt.Sprintf("case %d, %s", i, name), run(true), want)
		}
	}
	if exhaustions < 1000 {
		t.Fatalf("the filters ruled out %d racks in all: too few for the test to say anything", exhaustions)
	}
	t.Logf("%d racks ruled out", exhaustions)
}

// testPolicy is the policy of a registered name, or "meddler" (a FIFO
// that kills), or "fair-meddler" (delay scheduling that kills).
func testPolicy(t *testing.T, name string) Policy {
	switch name {
	case "meddler":
		return &meddler{}
	case "fair-meddler":
		return &fairMeddler{Fair: Fair{Delay: 2, RackDelay: 1}}
	}
	p, err := ParsePolicy(name, &PolicyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fairMeddler is delay scheduling that kills a task on another node every
// fourth slot it is asked for: killed maps, pending again, whose racks the
// filter may have ruled out already, meet a policy that asks for locality.
type fairMeddler struct {
	Fair
	calls int
	check func(s *State, node int, k Kind) // as meddle's
}

func (m *fairMeddler) Assign(s *State, node int, k Kind) int {
	if m.check != nil {
		m.check(s, node, k)
	}
	if m.calls++; m.calls%4 == 0 {
		other := (node + m.calls) % s.Nodes()
		for i := range s.Slots(Map) {
			if t := s.SlotTask(other, Map, i); t >= 0 {
				s.Kill(t)
				break
			}
		}
	}
	return m.Fair.Assign(s, node, k)
}

// TestRackFilterOffBeyond512Racks: a cluster of more racks than a job's
// filter has bits goes without filters, and runs.
func TestRackFilterOffBeyond512Racks(t *testing.T) {
	w := &Workload{Cluster: Cluster{Nodes: 1200, Racks: 600, MapSlots: 1, ReduceSlots: 1}}
	for j := range 5 {
		w.Jobs = append(w.Jobs, Job{Name: fmt.Sprint(j), Arrival: float64(j), Maps: Tasks{Count: 40, Mean: 3}})
	}
	set, err := (&Settings{Seed: 3}).withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	s := compile(w, set)
	if s.rackFilter {
		t.Fatal("rack filters kept on a cluster of 600 racks")
	}
	if err := s.exec(&Fair{Delay: 3}); err != nil {
		t.Fatal(err)
	}
	if s.exhaustions != 0 || s.unfinished != 0 {
		t.Fatalf("%d racks ruled out, %d jobs unfinished; want none", s.exhaustions, s.unfinished)
	}
}
