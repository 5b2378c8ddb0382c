package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/packer-sched/packer/sim/internal/engine"
)

// TestLookupMatchesScan checks every map lookup of random runs against a
// scan of the job's whole index: the core's lookup reads lazily advanced
// cursors, the jobs' filters (a bit a node on these small clusters, unless
// a rack spans three words), and a rack's tasks through the runs of its
// nodes (nextIn); the scan reads none of them. The runs kill tasks (a
// meddling FIFO and a meddling fair scheduler), so killed maps, pending
// again, compete with never-launched ones; some clusters have extra nodes,
// which hold no blocks and share a rack with a primary node; and before
// each slot is assigned, every runnable job is asked about the node, so
// cursors move for jobs that then do not launch. Under fair sharing the
// answer the launch takes from findTask's cache (which delay scheduling's
// localTask fills when it finds a node-local map) is checked too.
func TestLookupMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	checked, cached := map[Locality]int{}, 0
	for i := range 60 {
		w := randomWorkload(rng, true, true)
		w.Cluster.Nodes = 2 + rng.IntN(120)
		w.Cluster.Racks = 1 + rng.IntN(min(30, w.Cluster.Nodes))
		w.Cluster.Replication = 1 + rng.IntN(min(3, w.Cluster.Nodes))
		if i%3 == 0 {
			for range 1 + rng.IntN(5) {
				w.Cluster.Extras = append(w.Cluster.Extras, rng.IntN(w.Cluster.Nodes))
			}
		}
		for j := range w.Jobs {
			for range rng.IntN(30) {
				w.Jobs[j].Maps.Durations = append(w.Jobs[j].Maps.Durations, float64(1+rng.IntN(20)))
			}
		}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, fair := range []bool{false, true} {
			set := &Settings{Seed: uint64(i)}
			check := func(s *State, node int, k Kind) {
				if k != Map {
					return
				}
				for _, j := range slices.Clone(s.Runnable(Map)) {
					gt, gl := s.e.Probe().FindTask(int(j), node, engine.Map)
					wt, wl := s.e.Probe().ScanLookup(int(j), node)
					if gt != wt || gl != wl {
						t.Fatalf("case %d (fair %v), t = %g, job %d on node %d: task %d %v, want %d %v", i, fair, s.Now(), j, node, gt, gl, wt, wl)
					}
					checked[Locality(gl)]++
				}
				// So that the answers given below are Fair's own (its
				// localTask's or its BestLocality's), not these.
				s.e.Probe().ForgetFound()
			}
			// The answer a launch will take from findTask's cache, which
			// localTask fills when it finds a node-local map.
			given := func(s *State, j, node int, k Kind) {
				if ok, fj, fnode, fk, ft, fl := s.e.Probe().Found(); k == Map && ok && fj == j && fnode == node && fk == engine.Map {
					if wt, wl := s.e.Probe().ScanLookup(j, node); ft != wt || fl != wl {
						t.Fatalf("case %d, t = %g, job %d on node %d: cached task %d %v, want %d %v", i, s.Now(), j, node, ft, fl, wt, wl)
					}
					cached++
				}
			}
			var p Policy = &meddler{meddle: meddle{check: check}}
			if fair {
				p = &fairMeddler{Fair: Fair{Delay: 2, RackDelay: 1}, check: check, given: given}
			}
			if _, err := runState(w, p, set, engine.DefaultOptions()); err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
		}
	}
	t.Logf("lookups checked by locality: %v; cached answers taken: %d", checked, cached)
	if cached < 500 {
		t.Fatalf("%d cached answers checked: too few for the test to say anything", cached)
	}
	for _, l := range []Locality{NodeLocal, RackLocal, Remote} {
		if checked[l] < 500 {
			t.Fatalf("%d lookups answered %v: too few for the test to say anything (%v)", checked[l], l, checked)
		}
	}
}
