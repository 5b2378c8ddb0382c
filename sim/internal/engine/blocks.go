package engine

import (
	"math/bits"
	"slices"
)

// placeIndex finds, for a node (or a range of them, a rack), a job's
// pending map tasks with a replica there: the places holding any,
// ascending, each with where its tasks are, in task order, in one flat
// slice. Twelve bytes a place and four a task: the indexes of every job
// waiting in a long queue are live at once, so their size is the
// simulator's memory and their cache misses its time; a place's number,
// bounds and cursor share a cache line.
type placeIndex struct {
	runs []placeRun // ascending by place, and one more: the end of the last
	ent  []int32    // task ids
	span int32      // places are in [0, span)
	// scale is 2³²·runs/span, floored: (p·scale)>>32 is p's run were places
	// spread exactly evenly, without a division.
	scale uint64
}

// placeRun is one place's tasks, ent[lo:] up to the next run's lo. Those
// before cur have been launched: the cursor skips launched tasks lazily.
type placeRun struct{ place, lo, cur int32 }

// placeBuild is the scratch of index builds, dense over all places (the
// nodes) and all zero between builds (cheaper than a map for every entry).
type placeBuild struct {
	run     []int32  // a place's entries while counting, then where the next goes
	seen    []uint64 // bit p: place p has entries
	places  []int32  // the places with entries
	entries int      // the entries counted
}

// newPlaceBuild is the scratch for building indexes over places 0..places−1.
func newPlaceBuild(places int) placeBuild {
	return placeBuild{run: make([]int32, places), seen: make([]uint64, (places+63)/64)}
}

// count is the first build pass: one more entry at each pair's place. A
// place seen for the first time is listed without a branch (written
// always, kept when new): whether a place was seen before is a coin toss
// to the branch predictor.
//
// The scratch's slices are read into locals first, here and in the other
// passes: through b, the compiler reloads them at every pair, since the
// stores could have changed them.
func (x *placeIndex) count(pairs []taskPlace, b *placeBuild) {
	k := len(b.places)
	b.places = slices.Grow(b.places, len(pairs))
	pl := b.places[:k+len(pairs)]
	run, seen := b.run, b.seen
	for _, e := range pairs {
		p := uint32(e.p)
		n := run[p]
		pl[k] = e.p
		k += b2i(n == 0)
		seen[p/64] |= 1 << (p % 64)
		run[p] = n + 1
	}
	b.places = pl[:k]
	b.entries += len(pairs)
}

// allocate ends the counting pass: the places are sorted (by a walk of the
// seen bits when they are many, which also clears them) and the counts
// become offsets.
func (x *placeIndex) allocate(b *placeBuild) {
	if len(b.places)*8 < len(b.seen) {
		slices.Sort(b.places)
		for _, p := range b.places {
			b.seen[p/64] = 0
		}
	} else {
		// A word of at most four places has its first four bits written
		// whether there or not, and only those there kept, so that an
		// empty word, or the number in one, costs no branch the predictor
		// misses at every other word (on a large cluster, where a job's
		// places are few to a word, a walk by place would mispredict at
		// most words). A fuller word, as on a small cluster, is
		// walked place by place; which of the two a run takes is steady.
		n := len(b.places)
		b.places = slices.Grow(b.places, 4)
		k, pl := 0, b.places[:n+4]
		for w, word := range b.seen {
			b.seen[w] = 0
			c, at := bits.OnesCount64(word), int32(w*64)
			if c > 4 {
				for ; word != 0; word &= word - 1 {
					pl[k] = at + int32(bits.TrailingZeros64(word))
					k++
				}
				continue
			}
			p0 := at + int32(bits.TrailingZeros64(word))
			word &= word - 1
			p1 := at + int32(bits.TrailingZeros64(word))
			word &= word - 1
			p2 := at + int32(bits.TrailingZeros64(word))
			word &= word - 1
			p3 := at + int32(bits.TrailingZeros64(word))
			q := pl[k : k+4 : k+4]
			q[0], q[1], q[2], q[3] = p0, p1, p2, p3
			k += c
		}
	}
	r, n := len(b.places), b.entries
	run := b.run
	// An eighth over what this job needs, so that a reused index usually
	// fits the next job without a new allocation (what is allocated is
	// held until the next collection).
	if cap(x.runs) < r+1 {
		x.runs = make([]placeRun, r+1, r+1+r/8)
	}
	if cap(x.ent) < n {
		x.ent = make([]int32, n, n+n/8)
	}
	x.runs, x.ent = x.runs[:r+1], x.ent[:n]
	var at int32
	runs := x.runs[:len(b.places)]
	for i, p := range b.places {
		c := run[p]
		runs[i] = placeRun{p, at, at}
		run[p] = at // where fill writes the place's next task
		at += c
	}
	x.runs[r] = placeRun{-1, at, at}
	b.places, b.entries = b.places[:0], 0
	x.span = int32(len(b.run))
	x.scale = uint64(r) << 32 / uint64(x.span)
}

// fill is the second pass: each pair's task has an entry at its place.
func (x *placeIndex) fill(pairs []taskPlace, b *placeBuild) {
	run, ent := b.run, x.ent
	for _, e := range pairs {
		p := uint32(e.p)
		i := run[p]
		ent[i] = e.t
		run[p] = i + 1
	}
}

// done ends the build: the scratch is zero again.
func (x *placeIndex) done(b *placeBuild) {
	run := b.run
	for _, r := range x.runs[:len(x.runs)-1] {
		run[r.place] = 0
	}
}

// find is place p's run, or −1.
func (x *placeIndex) find(p int32) int {
	if i := x.seek(p); i < len(x.runs)-1 && x.runs[i].place == p {
		return i
	}
	return -1
}

// seek is the first run whose place is ≥ p (the end sentinel's index if
// none). Replicas spread places about evenly over [0, span), so the search
// starts where p would be if they were exactly even, corrects that guess
// twice by the same density from the place it finds there, and steps from
// there, a few runs in one or two cache lines, where a binary search over a
// cold index misses the cache at nearly every step; after eight steps it
// bisects what is left, so places bunched anyhow still cost O(log n). (For
// n runs at random places the first guess is off by about √n/2 runs, eight
// at 260, so stepping from it alone would often end in the bisection and
// its cache misses; each correction guesses again from a place nearer p.)
func (x *placeIndex) seek(p int32) int {
	n := len(x.runs) - 1
	if n <= 0 {
		return 0
	}
	pl := x.runs[:n]
	i := int(uint64(p) * x.scale >> 32) // ≤ p·n/span < n for p < span
	if i >= n {
		i = n - 1 // p = span: the last rack's end, sought by nextIn's callers
	}
	for range 2 {
		// Places are distinct: p's own run is the answer, and otherwise
		// the runs between are about (p − place)·n/span.
		q := pl[i].place
		if q == p {
			return i
		}
		d := int((int64(p-q) * int64(x.scale)) >> 32)
		if d == 0 {
			break
		}
		i = min(max(i+d, 0), n-1)
	}
	if pl[i].place < p {
		i++
		for k := 0; i < n && pl[i].place < p; i++ {
			if k++; k == 8 {
				return lowerBound(pl, p, i+1, n)
			}
		}
	} else {
		for k := 0; i > 0 && pl[i-1].place >= p; i-- {
			if k++; k == 8 {
				return lowerBound(pl, p, 0, i-1)
			}
		}
	}
	return i
}

// lowerBound is the first run in pl[lo:hi] whose place is ≥ p, or hi.
func lowerBound(pl []placeRun, p int32, lo, hi int) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if pl[m].place < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// tasksAt is the tasks with an entry at place p, launched or not.
func (x *placeIndex) tasksAt(p int32) []int32 {
	if i := x.find(p); i >= 0 {
		return x.ent[x.runs[i].lo:x.runs[i+1].lo]
	}
	return nil
}

// next is the first pending task with an entry at place p, or −1.
func (x *placeIndex) next(p int32, tasks []taskRec) int32 {
	return x.nextAt(x.seek(p), p, tasks)
}

// nextAt is next(p), given i = seek(p).
func (x *placeIndex) nextAt(i int, p int32, tasks []taskRec) int32 {
	if i >= len(x.runs)-1 || x.runs[i].place != p {
		return -1
	}
	r := &x.runs[i]
	c, end := r.cur, x.runs[i+1].lo
	for ; c < end; c++ {
		if t := x.ent[c]; tasks[t].state == taskPending {
			r.cur = c
			return t
		}
	}
	r.cur = end
	return -1
}

// has reports whether task t has an entry at place p.
func (x *placeIndex) has(p, t int32) bool {
	_, ok := slices.BinarySearch(x.tasksAt(p), t)
	return ok
}

// nextIn is the first pending task, in task order, with an entry at a place
// in [lo, hi), or −1: the first of the places' next tasks, each found as
// next finds it, cursor and all. A rack's nodes are such a range, so the
// node index answers for the rack too, in the few runs the rack's nodes have
// (six for a job of 300 replicas in 50 racks, fewer on a larger cluster),
// where a second index, by rack, would be a large part of every build.
//
// from is seek(p) of a place p in [lo, hi]: the runs before it that are in
// the range are a short walk back (a lookup has just sought the node
// asking, in the rack asked about, or the rack's end for an extra node).
func (x *placeIndex) nextIn(from int, lo, hi int32, tasks []taskRec) int32 {
	best := int32(-1)
	runs, ent := x.runs, x.ent
	i := from
	for i > 0 && runs[i-1].place >= lo {
		i--
	}
	for ; i < len(runs)-1 && runs[i].place < hi; i++ {
		r := &runs[i]
		c, end := r.cur, runs[i+1].lo
		// A run's tasks ascend: once one is past the best so far (−1 is
		// past none, as an unsigned number), so are the rest, and their
		// states need not be read.
		for ; c < end && uint32(ent[c]) < uint32(best); c++ {
			if tasks[ent[c]].state == taskPending {
				best = ent[c]
				break
			}
		}
		r.cur = c // what it passed was launched
	}
	return best
}

// hasIn reports whether task t has an entry at a place in [lo, hi).
func (x *placeIndex) hasIn(lo, hi, t int32) bool {
	for i := x.seek(lo); i < len(x.runs)-1 && x.runs[i].place < hi; i++ {
		if _, ok := slices.BinarySearch(x.ent[x.runs[i].lo:x.runs[i+1].lo], t); ok {
			return true
		}
	}
	return false
}

// replicaStream draws the jobs' block replicas from the seed, job by job in
// workload order, as HDFS 1 places them (placeReplicas), without keeping
// them: a job's replicas are drawn when its index is built. The generator's
// state at the start of every job passed is kept (16 bytes a job), so a job
// built out of order draws exactly what it would have drawn in order.
type replicaStream struct {
	pcg      *pcg
	at       []pcg // the state at job j's start, for j < frontier
	frontier int   // the generator stands at this job's start
	// The replicas of a chunk of one job's tasks, as (task, node) pairs.
	nodes []taskPlace
	// The scratch of index builds.
	build placeBuild
	// three: the cluster keeps three replicas on two racks or more, each
	// of two nodes or more, the case drawChunk3 draws.
	three bool
}

// taskPlace is one entry of a block index: task t has a replica at place p.
type taskPlace struct{ t, p int32 }

func (s *State) newReplicaStream() *replicaStream {
	c := s.cluster
	g := newPCG(derive(s.set.Seed, 1), derive(s.set.Seed, 2))
	rs := &replicaStream{pcg: &g, at: make([]pcg, len(s.jobs))}
	rs.three = c.Replication == 3 && c.Racks > 1
	for r := range c.Racks {
		rs.three = rs.three && s.rackLo[r+1]-s.rackLo[r] >= 2
	}
	rs.build = newPlaceBuild(s.nodes)
	return rs
}

// drawn reports whether job j's replicas come from the generator.
func (s *State) drawn(j int) bool {
	jr := &s.jobs[j]
	return !jr.noInput && jr.mapHi > jr.mapLo && s.w.Job(j).Blocks == nil
}

// chunk fills the stream's pairs with the replicas of job j's map tasks
// t0..t1−1: the workload's, or drawn from the generator's current state.
func (s *State) chunk(j int, t0, t1 int32) {
	rs, jr := s.replicas, &s.jobs[j]
	spec := s.w.Job(j).Blocks
	if spec == nil && rs.three {
		rs.drawChunk3(t0, t1, s.rack, s.rackLo)
		return
	}
	var buf [MaxReplication]int32
	// The pairs are built in a local, stored back at the end (see count).
	nodes := rs.nodes[:0]
	for t := t0; t < t1; t++ {
		reps := buf[:0]
		if spec != nil {
			for _, n := range spec[t-jr.mapLo] {
				reps = append(reps, int32(n))
			}
		} else {
			reps = placeReplicas(rs.pcg, &s.cluster, s.rack, s.rackLo, reps)
		}
		for _, n := range reps {
			nodes = append(nodes, taskPlace{t, n})
		}
	}
	rs.nodes = nodes
}

// drawChunk3 is chunk's draws for tasks t0..t1−1 on a cluster, of racks
// rack and rackLo (State's), where placeReplicas always draws three (rs.three): its
// draws, in its order, inlined into one loop. Each bounded draw is written
// out (step, scale, rare retry), as pcg.intN's is: a helper holding the
// three is over the inliner's budget, and a call per draw is what this
// loop exists to avoid.
func (rs *replicaStream) drawChunk3(t0, t1 int32, rack []int32, rackLo []int) {
	g := *rs.pcg
	out := slices.Grow(rs.nodes[:0], 3*int(t1-t0))
	n := uint64(rackLo[len(rackLo)-1]) // the primary nodes
	for t := t0; t < t1; t++ {
		// The first replica on any node.
		var x uint64
		g, x = g.next()
		hi, lo := scale(x, n)
		if lo < n {
			g, hi = g.retry(n, hi, lo)
		}
		first := int32(hi)
		// The second on a node of another rack: the k-th node outside
		// the first's rack.
		a, b := rackLo[rack[first]], rackLo[rack[first]+1]
		u := n - uint64(b-a)
		g, x = g.next()
		hi, lo = scale(x, u)
		if lo < u {
			g, hi = g.retry(u, hi, lo)
		}
		second := int32(hi)
		if int(second) >= a {
			second += int32(b - a)
		}
		// The third on another node of the second's rack (the first is
		// in another).
		a, b = rackLo[rack[second]], rackLo[rack[second]+1]
		u = uint64(b - a)
		third := second
		for third == second {
			g, x = g.next()
			hi, lo = scale(x, u)
			if lo < u {
				g, hi = g.retry(u, hi, lo)
			}
			third = int32(a + int(hi))
		}
		out = append(out, taskPlace{t, first}, taskPlace{t, second}, taskPlace{t, third})
	}
	*rs.pcg, rs.nodes = g, out
}

// scratchTasks is the most tasks whose replicas are drawn at once while an
// index is built: a job up to this size is drawn once, a bigger one twice
// (once to count, once to fill) in chunks of this size, so that a job of 10⁸
// maps needs no copy of its replicas.
const scratchTasks = 1 << 16

// blocks is job j's block index, built on first use from its replicas.
// (The build is its own function so that this inlines.)
func (s *State) blocks(j int) *placeIndex {
	if b := s.jobs[j].blocks; b != nil {
		return b
	}
	return s.build(j)
}

// build builds job j's block index.
func (s *State) build(j int) *placeIndex {
	jr := &s.jobs[j]
	var b *placeIndex
	if n := len(s.spare); n > 0 {
		b, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		b = &placeIndex{}
	}
	rs := s.replicas
	ahead, resume := j >= rs.frontier, *rs.pcg
	if ahead {
		for ; rs.frontier < j; rs.frontier++ {
			rs.at[rs.frontier] = *rs.pcg
			if f := &s.jobs[rs.frontier]; s.drawn(rs.frontier) {
				// In chunks, as a build draws: a job of 10⁸ maps passed
				// over whole would need its 3·10⁸ replicas at once.
				for t0 := f.mapLo; t0 < f.mapHi; t0 += scratchTasks {
					s.chunk(rs.frontier, t0, min(t0+scratchTasks, f.mapHi))
				}
			}
		}
		rs.at[j] = *rs.pcg
	}
	// A job of one chunk is drawn once, and both passes read the pairs.
	one := jr.mapHi-jr.mapLo <= scratchTasks
	for pass := range 2 {
		if pass == 0 || !one {
			*rs.pcg = rs.at[j]
		}
		for t0 := jr.mapLo; t0 < jr.mapHi; t0 += scratchTasks {
			if pass == 0 || !one {
				s.chunk(j, t0, min(t0+scratchTasks, jr.mapHi))
			}
			if pass == 0 {
				b.count(rs.nodes, &rs.build)
			} else {
				b.fill(rs.nodes, &rs.build)
			}
		}
		if pass == 0 {
			b.allocate(&rs.build)
		}
	}
	if ahead {
		rs.frontier = j + 1 // the last pass to draw drew all of job j
	} else {
		*rs.pcg = resume
	}
	jr.blocks = b
	// The scratch is zeroed (done's work) and the filter set in one pass
	// over the places.
	run := rs.build.run
	if s.filterBy == FilterNone {
		b.done(&rs.build)
		return b
	}
	var bits [nodeFilterWords]uint64
	rack, byRack := s.rack, s.filterBy == FilterRacks
	for _, r := range b.runs[:len(b.runs)-1] {
		run[r.place] = 0
		k := uint32(r.place) // unsigned: no fix-up for negatives in the division
		if byRack {
			k = uint32(rack[k])
		}
		bits[k/64] |= 1 << (k % 64)
	}
	if byRack {
		copy(jr.racks[:], bits[:])
	} else {
		s.nodeFilter[j] = bits
	}
	return b
}

// dropBlocks releases job j's index once its maps are done (none can run
// again) for the next job to reuse.
func (s *State) dropBlocks(j int) {
	if b := s.jobs[j].blocks; b != nil {
		s.jobs[j].blocks = nil
		s.spare = append(s.spare, b)
	}
}

// placeReplicas appends one block's c.Replication replicas to reps, HDFS 1's
// way: the first on a random node, the second on a node of another rack, the
// third on another node of the second's rack, any more on random nodes.
func placeReplicas(rng *pcg, c *Cluster, rack []int32, rackLo []int, reps []int32) []int32 {
	first := int32(rng.intN(c.Nodes))
	reps = append(reps, first)
	if c.Replication >= 2 {
		var second int32
		if c.Racks > 1 {
			// A node outside the first's rack.
			r := int(rack[first])
			k := rng.intN(c.Nodes - (rackLo[r+1] - rackLo[r]))
			if k >= rackLo[r] {
				k += rackLo[r+1] - rackLo[r]
			}
			second = int32(k)
		} else {
			second = int32(rng.intN(c.Nodes - 1))
			if second >= first {
				second++
			}
		}
		reps = append(reps, second)
	}
	if c.Replication >= 3 {
		r := int(rack[reps[1]])
		if size := rackLo[r+1] - rackLo[r]; size > 1 && c.Racks > 1 {
			for {
				n := int32(rackLo[r] + rng.intN(size))
				if !slices.Contains(reps, n) {
					reps = append(reps, n)
					break
				}
			}
		}
	}
	for len(reps) < c.Replication {
		n := int32(rng.intN(c.Nodes))
		if !slices.Contains(reps, n) {
			reps = append(reps, n)
		}
	}
	return reps
}

// b2i is 1 for true; the compiler makes it a flag move, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
