package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestLazySweepsMatchEager runs random workloads (many jobs and task ends
// at the same instants, clusters of up to 130 nodes) under every policy,
// preemptive ones included, once with sweeps listed at once and once lazily:
// the traces must be the same event for event.
func TestLazySweepsMatchEager(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	policies := append(registered(), "fair:2", "fair:1+2", "meddler")
	for i := range 150 {
		w := randomWorkload(rng, true, i%3 != 0)
		w.Cluster.Nodes = 1 + rng.IntN(130) // bitsets of up to 3 words
		w.Cluster.Racks = 1 + rng.IntN(w.Cluster.Nodes)
		w.Cluster.Replication = min(3, w.Cluster.Nodes)
		for j := range w.Jobs {
			w.Jobs[j].User = fmt.Sprintf("u%d", rng.IntN(3))
		}
		set := Settings{Seed: uint64(i), ReduceSlowstart: float64(i%2) * 0.3}
		for _, name := range policies {
			run := func(eager bool) []string {
				eagerSweeps = eager
				defer func() { eagerSweeps = false }()
				var p Policy = &meddler{}
				if name != "meddler" {
					var err error
					if p, err = ParsePolicy(name, &PolicyOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				rec := &recorder{}
				set.Trace = rec
				mustRun(t, w, p, &set)
				return rec.lines
			}
			want := run(true)
			sameTrace(t, fmt.Sprintf("case %d, %s", i, name), run(false), want)
		}
	}
}

// registered is the registry's policies, without replays (which need a
// plan) and without parameters.
func registered() []string {
	var names []string
	for _, name := range PolicyNames() {
		if p, _, _ := LookupPolicy(name); !p.Replay && !strings.Contains(name, ":") {
			names = append(names, name)
		}
	}
	return names
}

// sameTrace fails the test at the first event where trace got differs
// from want.
func sameTrace(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	for k := range min(len(got), len(want)) {
		if got[k] != want[k] {
			t.Fatalf("%s: event %d is %q, want %q", what, k, got[k], want[k])
		}
	}
	t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
}

// meddler is FIFO that, while slots are being offered, wakes other nodes
// and kills tasks on them: what no built-in policy does in the middle of a
// drain, but a policy may.
type meddler struct {
	FIFO
	meddle
}

func (m *meddler) Assign(s *State, node int, k Kind) int {
	m.meddle.act(s, node, k)
	return m.FIFO.Assign(s, node, k)
}

// meddle, unless off, wakes another node every third slot it is asked
// for and kills a task on one every fifth, of either kind: maps and
// reduces pending again, and jobs joining Runnable again, in the middle of
// a drain.
type meddle struct {
	off   bool
	calls int
	// check, if set, is called first at every slot (TestLookupMatchesScan).
	check func(s *State, node int, k Kind)
}

func (m *meddle) act(s *State, node int, k Kind) {
	if m.check != nil {
		m.check(s, node, k)
	}
	if m.off {
		return
	}
	m.calls++
	other := (node + 1 + m.calls) % s.Nodes()
	if m.calls%3 == 0 {
		s.Wake(other)
	}
	if m.calls%5 == 0 {
		kind := Kind(m.calls / 5 % 2)
		for i := range s.Slots(kind) {
			if t := s.SlotTask(other, kind, i); t >= 0 {
				s.Kill(t)
				break
			}
		}
	}
}
