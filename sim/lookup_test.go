package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
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
			set, err := (&Settings{Seed: uint64(i)}).withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			s := compile(w, set)
			check := func(s *State, node int, k Kind) {
				if k != Map {
					return
				}
				for _, j := range slices.Clone(s.Runnable(Map)) {
					gt, gl := s.findTask(int(j), node, Map)
					wt, wl := scanLookup(s, int(j), node)
					if gt != wt || gl != wl {
						t.Fatalf("case %d (fair %v), t = %g, job %d on node %d: task %d %v, want %d %v", i, fair, s.now, j, node, gt, gl, wt, wl)
					}
					checked[gl]++
				}
				// So that the answers given below are Fair's own (its
				// localTask's or its BestLocality's), not these.
				s.found.ok = false
			}
			// The answer a launch will take from findTask's cache, which
			// localTask fills when it finds a node-local map.
			given := func(s *State, j, node int, k Kind) {
				if f := s.found; k == Map && f.ok && f.job == j && f.node == node && f.kind == k {
					if wt, wl := scanLookup(s, j, node); f.task != wt || f.locality != wl {
						t.Fatalf("case %d, t = %g, job %d on node %d: cached task %d %v, want %d %v", i, s.now, j, node, f.task, f.locality, wt, wl)
					}
					cached++
				}
			}
			var p Policy = &meddler{meddle: meddle{check: check}}
			if fair {
				p = &fairMeddler{Fair: Fair{Delay: 2, RackDelay: 1}, check: check, given: given}
			}
			if err := s.exec(p); err != nil {
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

// scanLookup is what lookup must answer for job j's maps on node, from a
// scan of the whole index: a killed map (pending again) that is node-local
// or reads no input, the first in the order they were killed; else the
// lowest never-launched map with a replica on the node; else a rack-local
// killed map; else the lowest never-launched map with a replica on a node
// of the rack; else a killed map; else the lowest pending map, remote.
func scanLookup(s *State, j, node int) (int32, Locality) {
	jr := &s.jobs[j]
	pending := func(t int32) bool { return s.tasks[t].state == taskPending }
	// The killed maps with their localities; the first of the best rank.
	type killed struct {
		t int32
		l Locality
	}
	var ks []killed
	for _, t := range s.requeuedOf(j) {
		if s.tasks[t].kind == Map {
			ks = append(ks, killed{t, s.locality(t, node)})
		}
	}
	requeued, requeuedLoc := int32(-1), NoInput+1
	if len(ks) > 0 {
		k := slices.MinFunc(ks, func(a, b killed) int { return cmp.Compare(rank(a.l), rank(b.l)) })
		requeued, requeuedLoc = k.t, k.l
	}
	if requeued >= 0 && rank(requeuedLoc) == 0 {
		return requeued, requeuedLoc
	}
	if !jr.noInput {
		b := s.blocks(j)
		// The lowest never-launched map with an entry at one of places.
		first := func(places []int32) int32 {
			best := int32(-1)
			for _, p := range places {
				for _, t := range b.tasksAt(p) {
					if pending(t) && !slices.Contains(s.requeuedOf(j), t) && (best < 0 || t < best) {
						best = t
					}
				}
			}
			return best
		}
		if t := first([]int32{int32(node)}); t >= 0 {
			return t, NodeLocal
		}
		if requeuedLoc == RackLocal {
			return requeued, requeuedLoc
		}
		var rack []int32
		for n := range s.cluster.Nodes { // the primary nodes: extras hold no blocks
			if s.rack[n] == s.rack[node] {
				rack = append(rack, int32(n))
			}
		}
		if t := first(rack); t >= 0 {
			return t, RackLocal
		}
	}
	if requeued >= 0 {
		return requeued, requeuedLoc
	}
	for t := jr.mapLo; t < jr.mapHi; t++ {
		if pending(t) {
			if jr.noInput {
				return t, NoInput
			}
			return t, Remote
		}
	}
	return -1, NoInput
}
