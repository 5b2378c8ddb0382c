package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/packer-sched/packer/sim/internal/engine"
)

// runState is runWith, returning the run's State rather than its Result, for
// tests that look at the engine's mechanisms (engine.Probe) after a run.
func runState(w *Workload, p Policy, set *Settings, opts engine.Options) (*State, error) {
	st, err := checked(w, set)
	if err != nil {
		return nil, err
	}
	s := &State{w: w}
	s.e = engine.Compile(nil, input(w), config(&st, p), opts)
	return s, s.e.Run(hooks(s, p))
}

// TestPrefetchChangesNothing: the queue's prefetching (eventQueue.ahead, on
// from engine.Options.PrefetchFrom tasks) only reads; runs with it on and
// off, under every policy, kills included, give the same trace, with the
// jobs' filters as the cluster has them (mostly a bit a node) and, every
// other case, a bit a rack (whose words ahead prefetches too; a prefetch
// changes nothing a test can see, so this checks only that ahead reads
// within bounds). (The queue's own order, ring wrapped and heap filled, is
// TestEventQueueMatchesSort's.)
func TestPrefetchChangesNothing(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(29, 3))
	policies := append(registered(), "fair:2", "fair:1+2", "meddler", "fair-meddler")
	for i := range 24 {
		w := randomWorkload(rng, true, i%3 != 0)
		w.Cluster.Nodes = 2 + rng.IntN(300)
		w.Cluster.Racks = 1 + rng.IntN(min(30, w.Cluster.Nodes))
		for j := range w.Jobs {
			for range rng.IntN(40) {
				w.Jobs[j].Maps.Durations = append(w.Jobs[j].Maps.Durations, float64(1+rng.IntN(20))*rng.ExpFloat64())
			}
		}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		set := Settings{Seed: uint64(i)}
		if i%4 == 0 {
			set.Heartbeat = 1
		}
		for _, name := range policies {
			run := func(from int) []string {
				opts := engine.DefaultOptions()
				opts.PrefetchFrom = from
				if i%2 == 1 {
					opts.FinestFilter = engine.FilterRacks
				}
				rec := &recorder{}
				set.Trace = rec
				p := testPolicy(t, name)
				s, err := runState(w, p, &set, opts)
				if err != nil {
					t.Fatalf("case %d, %s: %v", i, name, err)
				}
				warm, warmNext, warmFilter := s.e.Probe().Prefetching()
				kind, _, _ := s.e.Probe().Filter()
				if on := warm; on != (from == 0) {
					t.Fatalf("case %d, %s: prefetching %v with prefetchFrom %d", i, name, on, from)
				}
				_, returner := p.(StickySlots)
				if next := warmNext; next != (from == 0 && returner) {
					t.Fatalf("case %d, %s: next tasks prefetched %v with prefetchFrom %d", i, name, next, from)
				}
				if racks := warmFilter; racks != (from == 0 && kind == engine.FilterRacks && returner) {
					t.Fatalf("case %d, %s: racks prefetched %v with prefetchFrom %d, filter kind %d", i, name, racks, from, kind)
				}
				return rec.lines
			}
			sameTrace(t, fmt.Sprintf("case %d, %s", i, name), run(0), run(math.MaxInt))
		}
	}
}
