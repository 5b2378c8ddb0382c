package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBlocksMatchInOrderDraws builds the jobs' block indexes in several
// orders (the order jobs are first asked about depends on the policy) and
// checks each against a plain reference: every job's replicas drawn in
// workload order from one generator, as HDFS 1 places them, with the jobs
// that read no input or bring their own blocks drawing nothing. One job is
// larger than a scratch chunk, so it is drawn in chunks, twice.
func TestBlocksMatchInOrderDraws(t *testing.T) {
	t.Parallel()
	// Three replicas on racks of ten nodes, and of eight and of eight on 24
	// nodes, where the first and the second draws have bounds that are
	// powers of two (drawn by drawChunk3); racks of one or two nodes, one
	// rack, and two replicas (drawn by placeReplicas).
	for _, c := range []struct {
		Cluster
		three bool
	}{
		{Cluster{Nodes: 40, Racks: 4}, true},
		{Cluster{Nodes: 32, Racks: 4}, true},
		{Cluster{Nodes: 24, Racks: 3}, true},
		{Cluster{Nodes: 5, Racks: 3}, false},
		{Cluster{Nodes: 9, Racks: 1}, false},
		{Cluster{Nodes: 12, Racks: 3, Replication: 2}, false},
	} {
		t.Run(fmt.Sprintf("nodes=%d,racks=%d,replication=%d", c.Nodes, c.Racks, c.Replication), func(t *testing.T) {
			blocksMatchInOrderDraws(t, c.Cluster, c.three)
		})
	}
}

func blocksMatchInOrderDraws(t *testing.T, c Cluster, three bool) {
	w := &Workload{Cluster: c, Jobs: []Job{
		{Maps: Tasks{Count: 30, Mean: 1}},
		{Maps: Tasks{Count: 5, Mean: 1}, NoInput: true},
		{Maps: Tasks{Count: 2, Mean: 1}, Blocks: [][]int{{3, 1, c.Nodes - 1}, {0, 1}}},
		{Maps: Tasks{Count: scratchTasks + 7, Mean: 1}},
		{Maps: Tasks{Count: 1, Mean: 1}},
		{Reduces: Tasks{Count: 1, Mean: 1}},
		{Maps: Tasks{Count: 12, Mean: 1}},
	}}
	withDefaults(w)
	set := Settings{Seed: 7}
	// The reference: per job, node → its tasks, rack → its tasks.
	type lists map[int32][]int32
	ref := compile(w, set)
	if ref.replicas.three != three {
		t.Fatalf("drawn by drawChunk3: %v, want %v", ref.replicas.three, three)
	}
	wantNode, wantRack := make([]lists, len(w.Jobs)), make([]lists, len(w.Jobs))
	rng := newPCG(derive(set.Seed, 1), derive(set.Seed, 2))
	for j := range w.Jobs {
		wantNode[j], wantRack[j] = lists{}, lists{}
		jr := &ref.jobs[j]
		if jr.noInput {
			continue
		}
		for tk := jr.mapLo; tk < jr.mapHi; tk++ {
			var reps []int32
			if b := w.Jobs[j].Blocks; b != nil {
				for _, n := range b[tk-jr.mapLo] {
					reps = append(reps, int32(n))
				}
			} else {
				reps = placeReplicas(&rng, &ref.cluster, ref.rack, ref.rackLo, nil)
			}
			for _, n := range reps {
				wantNode[j][n] = append(wantNode[j][n], tk)
				// Tasks come in order: a rack has tk already if it was the last added.
				if r := ref.rack[n]; len(wantRack[j][r]) == 0 || wantRack[j][r][len(wantRack[j][r])-1] != tk {
					wantRack[j][r] = append(wantRack[j][r], tk)
				}
			}
		}
	}
	check := func(s *State, j int, x *placeIndex, want lists, places int, what string) {
		for p := range int32(places) {
			got := x.tasksAt(p)
			if !slices.Equal(got, want[p]) {
				t.Fatalf("job %d, %s %d: tasks %v, want %v", j, what, p, got, want[p])
			}
		}
	}
	for _, order := range [][]int{{0, 2, 3, 4, 6}, {6, 4, 3, 2, 0}, {3, 0, 6, 4, 2}, {4, 4, 0, 6, 3, 2}} {
		s := compile(w, set)
		for _, j := range order {
			b := s.blocks(j)
			check(s, j, b, wantNode[j], s.nodes, "node")
			// By rack, through the rack's nodes: with no task launched, the
			// first of a rack's tasks is its next, and has finds exactly its tasks.
			for r := range int32(s.cluster.Racks) {
				lo, hi := s.rackNodes(r)
				want := int32(-1)
				if len(wantRack[j][r]) > 0 {
					want = wantRack[j][r][0]
				}
				if got := b.nextIn(b.seek(lo), lo, hi, s.tasks); got != want {
					t.Fatalf("job %d, rack %d: next task %d, want %d", j, r, got, want)
				}
				jr, in := &s.jobs[j], wantRack[j][r]
				for tk := jr.mapLo; tk < jr.mapHi; tk++ {
					// in ascends: its first task not before tk says if tk is in
					want := len(in) > 0 && in[0] == tk
					if want {
						in = in[1:]
					}
					if got := b.hasIn(lo, hi, tk); got != want {
						t.Fatalf("job %d, rack %d: has task %d %v, want %v", j, r, tk, got, want)
					}
				}
			}
			s.dropBlocks(j) // and reused by the next
		}
	}
}

// TestPassingOverABigJobDrawsInChunks: building a job after a big one not
// yet built draws the big one's replicas to move the generator on, a chunk
// at a time, never all at once: the scratch stays about a chunk's size.
func TestPassingOverABigJobDrawsInChunks(t *testing.T) {
	w := &Workload{Cluster: Cluster{Nodes: 40, Racks: 4}, Jobs: []Job{
		{Maps: Tasks{Count: 8 * scratchTasks, Mean: 1}},
		{Maps: Tasks{Count: 3, Mean: 1}},
	}}
	withDefaults(w)
	s := compile(w, Settings{Seed: 1})
	s.blocks(1)
	if got, most := cap(s.replicas.nodes), 2*scratchTasks*s.cluster.Replication; got > most {
		t.Fatalf("the scratch grew to %d pairs passing over a job of %d maps; a chunk is at most %d", got, 8*scratchTasks, most/2)
	}
}

// TestPlaceIndexFind: on place sets spread evenly, bunched at either end and
// in the middle, find gives every member's position and −1 for every other
// place, as a linear scan does.
func TestPlaceIndexFind(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const span = 1000
	for trial := range 300 {
		n := 1 + rng.IntN(60)
		lo, width := 0, span // where the places are drawn from
		switch trial % 4 {
		case 1:
			width = 30
		case 2:
			lo, width = span-30, 30
		case 3:
			lo, width = 480, 40
		}
		seen := map[int32]bool{}
		var places []int32
		for range n {
			if p := int32(lo + rng.IntN(width)); !seen[p] {
				seen[p] = true
				places = append(places, p)
			}
		}
		slices.Sort(places)
		x := placeIndex{span: span}
		for _, p := range places {
			x.runs = append(x.runs, placeRun{place: p})
		}
		x.runs = append(x.runs, placeRun{place: -1})
		x.scale = uint64(len(places)) << 32 / span
		for p := range int32(span) {
			if got, want := x.find(p), slices.Index(places, p); got != want {
				t.Fatalf("places %v: find(%d) = %d, want %d", places, p, got, want)
			}
		}
	}
}

// TestNextInMatchesScan: nextIn, asked of random place ranges while tasks
// launch at random (and next is asked of single places between), always
// gives the lowest pending task with an entry in the range, as a scan of
// every entry does; cursors left by either never hide a pending task.
func TestNextInMatchesScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		span := 1 + rng.IntN(200)
		ntasks := 1 + rng.IntN(300)
		b := newPlaceBuild(span)
		var x placeIndex
		var pairs []taskPlace
		for tk := range int32(ntasks) {
			for p := range int32(span) {
				if rng.IntN(span) < 3 {
					pairs = append(pairs, taskPlace{t: tk, p: p})
				}
			}
		}
		x.count(pairs, &b)
		x.allocate(&b)
		x.fill(pairs, &b)
		x.done(&b)
		tasks := make([]taskRec, ntasks)
		for range 3 * ntasks {
			lo := int32(rng.IntN(span + 1))
			hi := lo + int32(rng.IntN(span+1-int(lo)))
			want := int32(-1)
			for _, e := range pairs {
				if e.p >= lo && e.p < hi && tasks[e.t].state == taskPending && (want < 0 || e.t < want) {
					want = e.t
				}
			}
			from := x.seek(lo) // or of a place in the range, or of its end
			switch rng.IntN(3) {
			case 0:
				if hi > lo {
					from = x.seek(lo + int32(rng.IntN(int(hi-lo))))
				}
			case 1:
				from = x.seek(hi)
			}
			if got := x.nextIn(from, lo, hi, tasks); got != want {
				t.Fatalf("trial %d: nextIn(%d, %d) = %d, want %d", trial, lo, hi, got, want)
			}
			if rng.IntN(2) == 0 {
				x.next(int32(rng.IntN(span)), tasks)
			}
			tasks[rng.IntN(ntasks)].state = taskRunning
		}
	}
}

// TestSeekMatchesLowerBound: seek(p), for every p from 0 to the span, is
// the first run whose place is ≥ p, as a bisection finds it, on indexes of
// places spread evenly, at random, bunched at one end or in clumps, few or
// many.
func TestSeekMatchesLowerBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 300 {
		span := 1 + rng.IntN(5000)
		var places []int32
		switch shape := trial % 4; shape {
		case 0: // random
			for p := range span {
				if rng.IntN(span) < 1+rng.IntN(400) {
					places = append(places, int32(p))
				}
			}
		case 1: // bunched at the high end
			for p := span - 1; p >= 0 && rng.IntN(50) > 0; p-- {
				places = append(places, int32(p))
			}
			slices.Reverse(places)
		case 2: // clumps
			for p := 0; p < span; p++ {
				if rng.IntN(100) == 0 {
					for k, end := p, min(span, p+rng.IntN(40)); k < end; k++ {
						places = append(places, int32(k))
					}
					p += 40
				}
			}
		default: // every place
			for p := range span {
				places = append(places, int32(p))
			}
		}
		b := newPlaceBuild(span)
		var x placeIndex
		var pairs []taskPlace
		for i, p := range places {
			pairs = append(pairs, taskPlace{t: int32(i), p: p})
		}
		x.count(pairs, &b)
		x.allocate(&b)
		x.fill(pairs, &b)
		x.done(&b)
		runs := x.runs[:len(x.runs)-1]
		for p := int32(0); p <= int32(span); p++ {
			if got, want := x.seek(p), lowerBound(runs, p, 0, len(runs)); got != want {
				t.Fatalf("trial %d (%d places of %d): seek(%d) = %d, want %d", trial, len(places), span, p, got, want)
			}
		}
	}
}

// TestPlaceIndexBuild: indexes built through count, allocate, fill and done,
// one index and one scratch reused across builds of every size and shape
// (empty, one place, bunched at either end, dense, sparse over a million
// places, so that allocate both sorts and walks the seen bits), give each
// place exactly its tasks in task order, no place without tasks, and leave
// the scratch all zero.
func TestPlaceIndexBuild(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 1))
	for _, span := range []int{1, 2, 63, 64, 65, 1000, 1 << 20} {
		b := newPlaceBuild(span)
		var x placeIndex
		for trial := range 12 {
			lo, width := 0, span
			switch trial % 4 {
			case 1:
				width = min(span, 5)
			case 2:
				lo, width = max(0, span-5), min(span, 5)
			}
			n := []int{0, 1, 40, 3 * span}[trial%4]
			if n > 200_000 {
				n = 200_000
			}
			pairs := make([]taskPlace, n)
			want := map[int32][]int32{}
			for i := range pairs {
				p := int32(lo + rng.IntN(width))
				pairs[i] = taskPlace{p: p, t: int32(i)}
				want[p] = append(want[p], int32(i))
			}
			x.count(pairs, &b)
			x.allocate(&b)
			x.fill(pairs, &b)
			x.done(&b)
			if got := len(x.runs) - 1; got != len(want) {
				t.Fatalf("span %d, trial %d: %d places indexed, want %d", span, trial, got, len(want))
			}
			for p := range int32(span) {
				if got := x.tasksAt(p); !slices.Equal(got, want[p]) {
					t.Fatalf("span %d, trial %d: tasksAt(%d) = %v, want %v", span, trial, p, got, want[p])
				}
			}
			if slices.ContainsFunc(b.run, func(v int32) bool { return v != 0 }) ||
				slices.ContainsFunc(b.seen, func(v uint64) bool { return v != 0 }) || len(b.places) != 0 || b.entries != 0 {
				t.Fatalf("span %d, trial %d: the scratch is not zero after the build", span, trial)
			}
		}
	}
}

// BenchmarkBlockIndex builds and drops, job after job, the block indexes of
// BenchmarkRun's 10⁶-task workload (jobs of 100 maps on 1000 nodes in 50
// racks): the replicas drawn and the index by node built.
func BenchmarkBlockIndex(b *testing.B) {
	w := benchWorkload(1_000_000)
	set := testConfig(Settings{Seed: 1})
	s := compile(w, set)
	j := 0
	for b.Loop() {
		if j == len(s.jobs) {
			s, j = compile(w, set), 0
		}
		s.blocks(j)
		s.dropBlocks(j)
		j++
	}
}

// TestPCGMatchesRand: the simulator's pcg is rand.PCG: from the same
// seeds, the same outputs, and intN draws what rand.Rand.IntN draws and
// leaves the generator in the same state (as rand.PCG marshals it), for
// small, large and power-of-two bounds, and bounds such as 2⁶⁴/3 and
// 2⁶² + 1, where the rejection step runs for a third and a quarter of the
// draws.
func TestPCGMatchesRand(t *testing.T) {
	state := func(g pcg) []byte {
		return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte("pcg:"), g.hi), g.lo)
	}
	for _, seed := range [][2]uint64{{0, 0}, {1, 2}, {math.MaxUint64, 7}, {derive(1, 1), derive(1, 2)}} {
		want, got := rand.NewPCG(seed[0], seed[1]), newPCG(seed[0], seed[1])
		for k := range 10000 {
			var x uint64
			w := want.Uint64()
			if got, x = got.next(); x != w {
				t.Fatalf("seed %v, draw %d: %#x, want %#x", seed, k, x, w)
			}
		}
		if b, _ := want.MarshalBinary(); !bytes.Equal(state(got), b) {
			t.Fatalf("seed %v: state %x, want %x", seed, state(got), b)
		}
	}
	bounds := []int{1, 2, 3, 7, 64, 1000, 1 << 20, 10007, 3 << 40, math.MaxInt64, math.MaxInt64/3*2 + 1, 1<<62 + 1}
	pick := rand.New(rand.NewPCG(5, 5))
	for range 50 {
		bounds = append(bounds, 1+pick.IntN(1<<pick.IntN(63)))
	}
	for i, n := range bounds {
		a, b := rand.NewPCG(uint64(i), 11), newPCG(uint64(i), 11)
		ra := rand.New(a)
		for k := range 2000 {
			if got, want := b.intN(n), ra.IntN(n); got != want {
				t.Fatalf("bound %d, draw %d: %d, want %d", n, k, got, want)
			}
		}
		if want, _ := a.MarshalBinary(); !bytes.Equal(state(b), want) {
			t.Fatalf("bound %d: the generators' states differ after the draws", n)
		}
	}
}
