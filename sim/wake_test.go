package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim/internal/engine"
)

// TestLazySweepsMatchEager runs random workloads (many jobs and task ends
// at the same instants, clusters of up to 130 nodes) under every policy,
// preemptive ones included, once with sweeps listed at once and once lazily:
// the traces must be the same event for event.
func TestLazySweepsMatchEager(t *testing.T) {
	t.Parallel()
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
			lazyMatchesEager(t, fmt.Sprintf("case %d, %s", i, name), w, name, set)
		}
	}
}

// lazyMatchesEager runs w under the policy named (or the meddler) with
// sweeps listed at once and lazily, and checks the traces are the same.
func lazyMatchesEager(t *testing.T, label string, w *Workload, name string, set Settings) {
	t.Helper()
	run := func(eager bool) []string {
		opts := engine.DefaultOptions()
		opts.EagerSweeps = eager
		var p Policy = &meddler{}
		if name != "meddler" {
			var err error
			if p, err = ParsePolicy(name, &PolicyOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		rec := &recorder{}
		set.Trace = rec
		if _, err := runWith(w, p, &set, opts); err != nil {
			t.Fatal(err)
		}
		return rec.lines
	}
	want := run(true)
	sameTrace(t, label, run(false), want)
}

// TestLazySweepsMatchEagerOnBusyClusters is TestLazySweepsMatchEager on
// clusters of 4,100 to 8,300 nodes, several words of the free-word
// summary (State.freeWords), kept nearly full: jobs arrive while whole runs
// of 64 nodes are busy, so a sweep must skip words that are full and find
// the nodes after them, in order, as the eager list does; the meddler kills
// and wakes mid-sweep. A FIFO run checks the summary against the bitmap at
// every slot.
func TestLazySweepsMatchEagerOnBusyClusters(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 17))
	for i := range 3 {
		nodes := 4100 + rng.IntN(4200)
		w := &Workload{Cluster: Cluster{Nodes: nodes, Racks: 1 + rng.IntN(200), MapSlots: 1, ReduceSlots: 1}}
		slots := nodes * w.Cluster.MapSlots
		for j := range 4 + rng.IntN(3) {
			// The first job holds most slots a while; later ones, smaller,
			// arrive while it does and as its tasks end at scattered times,
			// some slots freed in full words lying idle until they come.
			n := slots / (4 + rng.IntN(8))
			if j == 0 {
				n = slots - rng.IntN(200)
			}
			d := make([]float64, n)
			for k := range d {
				d[k] = 5 + 40*rng.Float64() // ends apart from arrivals: a slot freed at a sweep's instant realizes it
			}
			at := float64(j*20) + 20*rng.Float64()
			switch j {
			case 0:
				at = 0
			case 1:
				// Before the first job's tasks end (5 s at the least): its
				// sweep finds the first 4096 nodes, a whole summary word, busy.
				at = 5 * rng.Float64()
			}
			job := Job{Name: fmt.Sprint(j), Arrival: at, Maps: Tasks{Durations: d}, NoInput: rng.IntN(2) == 0}
			if rng.IntN(2) == 0 {
				job.Reduces = Tasks{Count: 1 + rng.IntN(50), Mean: 5}
			}
			w.Jobs = append(w.Jobs, job)
		}
		for _, name := range []string{"fifo", "fair:2", "meddler"} {
			lazyMatchesEager(t, fmt.Sprintf("case %d (%d nodes), %s", i, nodes, name), w, name, Settings{Seed: uint64(i)})
		}
		mustRun(t, w, &wordChecker{t: t}, &Settings{Seed: uint64(i)})
	}
}

// wordChecker is FIFO that checks, whenever it is asked for a slot, that
// the summary freeWords marks exactly the words of freeBits that are not 0.
type wordChecker struct {
	FIFO
	t   *testing.T
	bad bool
}

func (c *wordChecker) Assign(s *State, node int, k Kind) int {
	if err := s.e.Probe().CheckFreeWords(); err != nil && !c.bad {
		c.t.Errorf("at t = %v: %v", s.Now(), err)
		c.bad = true
	}
	return c.FIFO.Assign(s, node, k)
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
