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
				opts := defaultEngine()
				opts.finestFilter = filter
				p := testPolicy(t, name)
				rec := &recorder{}
				set.Trace = rec
				if err := w.Validate(); err != nil {
					t.Fatal(err)
				}
				s := compileWith(nil, w, set, opts)
				if err := s.exec(p); err != nil {
					t.Fatalf("case %d, %s: %v", i, name, err)
				}
				// A bit a node falls back to a bit a rack where a rack's nodes
				// span three words.
				if s.filterBy != filter && (filter != filterNodes || s.filterBy != filterRacks) {
					t.Fatalf("case %d, %s: filter kind %d, forced %d", i, name, s.filterBy, filter)
				}
				if s.filterBy == filterNone && (s.exhaustions != 0 || s.skips != 0) {
					t.Fatalf("case %d, %s: %d bits cleared, %d questions skipped with the filters off", i, name, s.exhaustions, s.skips)
				}
				exhaustions[s.filterBy] += s.exhaustions
				skips[s.filterBy] += s.skips
				return rec.lines
			}
			want := run(filterNone)
			sameTrace(t, fmt.Sprintf("case %d, %s, a bit a rack", i, name), run(filterRacks), want)
			sameTrace(t, fmt.Sprintf("case %d, %s, a bit a node", i, name), run(filterNodes), want)
		}
	}
	for _, f := range []uint8{filterRacks, filterNodes} {
		if exhaustions[f] < 1000 || skips[f] < 1000 {
			t.Fatalf("the filters (kind %d) cleared %d bits and answered %d questions in all: too few for the test to say anything", f, exhaustions[f], skips[f])
		}
	}
	t.Logf("a bit a rack: %d bits cleared, %d questions answered; a bit a node: %d, %d", exhaustions[filterRacks], skips[filterRacks], exhaustions[filterNodes], skips[filterNodes])
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

// TestFilterKindBySize: a job's filter has a bit a node on a cluster of up
// to 1024 nodes, extra ones counted, whose racks' nodes lie within two
// words each, else a bit a rack for up to 512 racks; a kind forced on a
// cluster that does not fit it gives way to the next coarser; a cluster of
// more racks goes without filters, and runs.
func TestFilterKindBySize(t *testing.T) {
	t.Parallel()
	const dflt = filterNodes // the default engine's finest kind
	for _, c := range []struct {
		nodes, racks, extras int
		force, want          uint8
	}{
		{1024, 1024, 0, dflt, filterNodes}, {1000, 50, 0, dflt, filterNodes}, {1020, 51, 4, dflt, filterNodes},
		{1020, 51, 5, dflt, filterRacks}, {1000, 10, 0, dflt, filterRacks}, // extras past 1024; racks of 100 nodes
		{1025, 60, 0, dflt, filterRacks}, {10240, 512, 0, dflt, filterRacks}, {1200, 600, 0, dflt, filterNone},
		{1200, 600, 0, filterRacks, filterNone},
		{1000, 50, 0, filterRacks, filterRacks}, {1000, 50, 0, filterNone, filterNone},
	} {
		w := &Workload{Cluster: Cluster{Nodes: c.nodes, Racks: c.racks, MapSlots: 1, ReduceSlots: 1},
			Jobs: []Job{{Name: "a", Maps: Tasks{Count: 3, Mean: 1}}}}
		for i := range c.extras {
			w.Cluster.Extras = append(w.Cluster.Extras, i)
		}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		opts := defaultEngine()
		opts.finestFilter = c.force
		got := compileWith(nil, w, Settings{}, opts).filterBy
		if got != c.want {
			t.Errorf("%d nodes and %d extras in %d racks, kind %d forced: filter kind %d, want %d", c.nodes, c.extras, c.racks, c.force, got, c.want)
		}
	}
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
	if s.filterBy != filterNone {
		t.Fatal("filters kept on a cluster of 600 racks")
	}
	if err := s.exec(&Fair{Delay: 3}); err != nil {
		t.Fatal(err)
	}
	if s.exhaustions != 0 || s.unfinished != 0 {
		t.Fatalf("%d racks ruled out, %d jobs unfinished; want none", s.exhaustions, s.unfinished)
	}
}

// TestRackSpans checks, with a bit a node, mayHold and exhausted on a rack
// against its nodes' bits one by one, for racks of random sizes laid one
// after another over up to 1024 nodes, each starting or ending anywhere in
// a word; and that a rack of more than 64 nodes across three words turns
// the filters to a bit a rack.
func TestRackSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for c := range 300 {
		rackLo := []int{0}
		for n := 0; ; {
			size := 1 + rng.IntN(65) // up to 65: two words at most, however placed
			if c%10 == 9 {
				size = 1 + rng.IntN(200)
			}
			if n+size > 1024 {
				break
			}
			n += size
			rackLo = append(rackLo, n)
		}
		wide := false
		for r := range len(rackLo) - 1 {
			wide = wide || (rackLo[r+1]-1)/64 > rackLo[r]/64+1
		}
		nodes := rackLo[len(rackLo)-1]
		s := &State{filterBy: filterNodes, cluster: Cluster{Nodes: nodes, Racks: len(rackLo) - 1}}
		s.rackLo = rackLo
		if ok := s.rackSpans(); ok == wide {
			t.Fatalf("case %d: rackSpans %v with a rack across three words %v", c, ok, wide)
		}
		if wide {
			continue
		}
		s.nodeFilter = make([][nodeFilterWords]uint64, 1)
		f := &s.nodeFilter[0]
		for r := range int32(len(rackLo) - 1) {
			for w := range f {
				f[w] = rng.Uint64() & rng.Uint64() & rng.Uint64() // sparse, some racks empty
			}
			lo, hi := int32(rackLo[r]), int32(rackLo[r+1])
			bit := func(p int32) bool { return f[p/64]&(1<<(p%64)) != 0 }
			want := false
			for p := lo; p < hi; p++ {
				want = want || bit(p)
			}
			if got := s.mayHold(0, &jobRec{}, r); got != want {
				t.Fatalf("case %d, rack %d of nodes %d–%d: mayHold %v, want %v", c, r, lo, hi-1, got, want)
			}
			before := *f
			s.exhausted(0, &jobRec{}, r)
			for p := range int32(1024) {
				was := before[p/64]&(1<<(p%64)) != 0
				if in := p >= lo && p < hi; bit(p) != (was && !in) {
					t.Fatalf("case %d, rack %d of nodes %d–%d exhausted: bit %d is %v, was %v", c, r, lo, hi-1, p, bit(p), was)
				}
			}
		}
	}
}
