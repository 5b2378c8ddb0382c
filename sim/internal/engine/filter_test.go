package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFilterKindBySize: a job's filter has a bit a node on a cluster of up
// to 1024 nodes, extra ones counted, whose racks' nodes lie within two
// words each, else a bit a rack for up to 512 racks; a kind forced on a
// cluster that does not fit it gives way to the next coarser; a cluster of
// more racks goes without filters, and runs.
func TestFilterKindBySize(t *testing.T) {
	t.Parallel()
	const dflt = FilterNodes // the default engine's finest kind
	for _, c := range []struct {
		nodes, racks, extras int
		force, want          uint8
	}{
		{1024, 1024, 0, dflt, FilterNodes}, {1000, 50, 0, dflt, FilterNodes}, {1020, 51, 4, dflt, FilterNodes},
		{1020, 51, 5, dflt, FilterRacks}, {1000, 10, 0, dflt, FilterRacks}, // extras past 1024; racks of 100 nodes
		{1025, 60, 0, dflt, FilterRacks}, {10240, 512, 0, dflt, FilterRacks}, {1200, 600, 0, dflt, FilterNone},
		{1200, 600, 0, FilterRacks, FilterNone},
		{1000, 50, 0, FilterRacks, FilterRacks}, {1000, 50, 0, FilterNone, FilterNone},
	} {
		w := &Workload{Cluster: Cluster{Nodes: c.nodes, Racks: c.racks, MapSlots: 1, ReduceSlots: 1},
			Jobs: []Job{{User: "a", Maps: Tasks{Count: 3, Mean: 1}}}}
		for i := range c.extras {
			w.Cluster.Extras = append(w.Cluster.Extras, i)
		}
		opts := DefaultOptions()
		opts.FinestFilter = c.force
		got := Compile(nil, withDefaults(w).input(), testConfig(Settings{}), opts).filterBy
		if got != c.want {
			t.Errorf("%d nodes and %d extras in %d racks, kind %d forced: filter kind %d, want %d", c.nodes, c.extras, c.racks, c.force, got, c.want)
		}
	}
	w := &Workload{Cluster: Cluster{Nodes: 1200, Racks: 600, MapSlots: 1, ReduceSlots: 1}}
	for j := range 5 {
		w.Jobs = append(w.Jobs, Job{User: fmt.Sprint(j), Arrival: float64(j), Maps: Tasks{Count: 40, Mean: 3}})
	}
	s := compile(w, Settings{Seed: 3})
	if s.filterBy != FilterNone {
		t.Fatal("filters kept on a cluster of 600 racks")
	}
	if err := s.Run(fifo(s)); err != nil {
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
		s := &State{filterBy: FilterNodes, cluster: Cluster{Nodes: nodes, Racks: len(rackLo) - 1}}
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
