package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/packer-sched/packer/sim/internal/engine"
)

// TestRackFilterMatchesIndex runs random workloads (jobs of up to 60 maps
// on clusters of up to 64 racks, so that a job's replicas leave racks out
// and its racks are exhausted one by one) under every policy, preemptive
// ones and a meddler that kills mid-drain included, once asking the block
// indexes every time and once through the jobs' filters with a bit a rack,
// once with a bit a node: the traces must be the same event for event, and
// each kind of filter must have ruled places out.
func TestRackFilterMatchesIndex(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 17))
	policies := append(registered(), "fair:2", "fair:1+2", "fair:3+3", "meddler", "fair-meddler")
	exhaustions, skips := map[uint8]int{}, map[uint8]int{}
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
			run := func(filter uint8) []string {
				opts := engine.DefaultOptions()
				opts.FinestFilter = filter
				p := testPolicy(t, name)
				rec := &recorder{}
				set.Trace = rec
				s, err := runState(w, p, &set, opts)
				if err != nil {
					t.Fatalf("case %d, %s: %v", i, name, err)
				}
				filterBy, cleared, skipped := s.e.Probe().Filter()
				// A bit a node falls back to a bit a rack where a rack's nodes
				// span three words.
				if filterBy != filter && (filter != engine.FilterNodes || filterBy != engine.FilterRacks) {
					t.Fatalf("case %d, %s: filter kind %d, forced %d", i, name, filterBy, filter)
				}
				if filterBy == engine.FilterNone && (cleared != 0 || skipped != 0) {
					t.Fatalf("case %d, %s: %d bits cleared, %d questions skipped with the filters off", i, name, cleared, skipped)
				}
				exhaustions[filterBy] += cleared
				skips[filterBy] += skipped
				return rec.lines
			}
			want := run(engine.FilterNone)
			sameTrace(t, fmt.Sprintf("case %d, %s, a bit a rack", i, name), run(engine.FilterRacks), want)
			sameTrace(t, fmt.Sprintf("case %d, %s, a bit a node", i, name), run(engine.FilterNodes), want)
		}
	}
	for _, f := range []uint8{engine.FilterRacks, engine.FilterNodes} {
		if exhaustions[f] < 1000 || skips[f] < 1000 {
			t.Fatalf("the filters (kind %d) cleared %d bits and answered %d questions in all: too few for the test to say anything", f, exhaustions[f], skips[f])
		}
	}
	t.Logf("a bit a rack: %d bits cleared, %d questions answered; a bit a node: %d, %d", exhaustions[engine.FilterRacks], skips[engine.FilterRacks], exhaustions[engine.FilterNodes], skips[engine.FilterNodes])
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
	// given, if set, is called with each job Fair gives a slot, before
	// the launch.
	given func(s *State, j, node int, k Kind)
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
	j := m.Fair.Assign(s, node, k)
	if m.given != nil && j >= 0 {
		m.given(s, j, node, k)
	}
	return j
}
