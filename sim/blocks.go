package sim

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// placeIndex finds, for a node or a rack, a job's pending map tasks with a
// replica there: the places holding any, ascending, each with where its
// tasks are, in task order, in one flat slice. Twelve bytes a place and four
// a task: the indexes of every job waiting in a long queue are live at once,
// so their size is the simulator's memory and their cache misses its time;
// a place's number, bounds and cursor share a cache line.
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

// placeBuild is the scratch of index builds over one kind of place, dense
// over all places and all zero between builds (cheaper than a map for every
// entry).
type placeBuild struct {
	run    []int32  // a place's entries while counting, then where the next goes
	seen   []uint64 // bit p: place p has entries
	places []int32  // the places with entries
}

// newPlaceBuild is the scratch for building indexes over places 0..places−1.
func newPlaceBuild(places int) placeBuild {
	return placeBuild{run: make([]int32, places), seen: make([]uint64, (places+63)/64)}
}

// count is the first build pass: one more entry at each pair's place. A
// place seen for the first time is listed without a branch (written
// always, kept when new): whether a rack was seen before is a coin toss to
// the branch predictor.
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
		k, pl := 0, b.places
		for w, word := range b.seen {
			if word == 0 {
				continue
			}
			b.seen[w] = 0
			for ; word != 0; word &= word - 1 {
				pl[k] = int32(w*64 + bits.TrailingZeros64(word))
				k++
			}
		}
	}
	r, n := len(b.places), 0
	run := b.run
	for _, p := range b.places {
		n += int(run[p])
	}
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
	b.places = b.places[:0]
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

// find is place p's run, or −1. Replicas spread places about evenly over
// [0, span), so the search starts where p would be if they were exactly
// even and steps from there, a few runs in one or two cache lines, where a
// binary search over a cold index misses the cache at nearly every step;
// after eight steps it bisects what is left, so places bunched anyhow still
// cost O(log n).
func (x *placeIndex) find(p int32) int {
	n := len(x.runs) - 1
	if n <= 0 {
		return -1
	}
	pl := x.runs[:n]
	// i becomes the first run whose place is ≥ p.
	i := int(uint64(p) * x.scale >> 32) // ≤ p·n/span < n
	if pl[i].place < p {
		i++
		for k := 0; i < n && pl[i].place < p; i++ {
			if k++; k == 8 {
				i = lowerBound(pl, p, i+1, n)
				break
			}
		}
	} else {
		for k := 0; i > 0 && pl[i-1].place >= p; i-- {
			if k++; k == 8 {
				i = lowerBound(pl, p, 0, i-1)
				break
			}
		}
	}
	if i < n && pl[i].place == p {
		return i
	}
	return -1
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
	i := x.find(p)
	if i < 0 {
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

// jobBlocks is one job's map tasks by the nodes and by the racks that hold
// their blocks.
type jobBlocks struct {
	node, rack placeIndex
}

// replicaStream draws the jobs' block replicas from the seed, job by job in
// workload order, as HDFS 1 places them (placeReplicas), without keeping
// them: a job's replicas are drawn when its index is built. The generator's
// state at the start of every job passed is kept (16 bytes a job), so a job
// built out of order draws exactly what it would have drawn in order.
type replicaStream struct {
	pcg      *rand.PCG
	at       []rand.PCG // the state at job j's start, for j < frontier
	frontier int        // the generator stands at this job's start
	rackLo   []int      // rack r is nodes rackLo[r]..rackLo[r+1]−1
	// The replicas of a chunk of one job's tasks, as (task, node) and (task,
	// rack) pairs, a rack once per task.
	nodes, racks []taskPlace
	// The scratch of index builds over nodes and over racks.
	nodeBuild, rackBuild placeBuild
}

// taskPlace is one entry of a block index: task t has a replica at place p.
type taskPlace struct{ t, p int32 }

func (s *State) newReplicaStream() *replicaStream {
	c := s.cluster
	rs := &replicaStream{pcg: rand.NewPCG(derive(s.set.Seed, 1), derive(s.set.Seed, 2)), at: make([]rand.PCG, len(s.jobs))}
	rs.rackLo = make([]int, c.Racks+1)
	for i := c.Nodes - 1; i >= 0; i-- {
		rs.rackLo[s.rack[i]] = i
	}
	rs.rackLo[c.Racks] = c.Nodes
	rs.nodeBuild, rs.rackBuild = newPlaceBuild(s.nodes), newPlaceBuild(c.Racks)
	return rs
}

// drawn reports whether job j's replicas come from the generator.
func (s *State) drawn(j int) bool {
	jr := &s.jobs[j]
	return !jr.noInput && jr.mapHi > jr.mapLo && s.w.Jobs[j].Blocks == nil
}

// chunk fills the stream's pairs with the replicas of job j's map tasks
// t0..t1−1: the workload's, or drawn from the generator's current state.
func (s *State) chunk(j int, t0, t1 int32) {
	rs, jr := s.replicas, &s.jobs[j]
	rs.nodes, rs.racks = rs.nodes[:0], rs.racks[:0]
	spec := s.w.Jobs[j].Blocks
	var buf [MaxReplication]int32
	// The pairs are built in locals, stored back at the end (see count).
	nodes, racks, rack := rs.nodes, rs.racks, s.rack
	for t := t0; t < t1; t++ {
		reps := buf[:0]
		if spec != nil {
			for _, n := range spec[t-jr.mapLo] {
				reps = append(reps, int32(n))
			}
		} else {
			reps = placeReplicas(rs.pcg, &s.cluster, rack, rs.rackLo, reps)
		}
		// A rack once per task: each is written, and kept unless the
		// task's earlier replicas had it (without a branch, as in count).
		first := len(racks)
		racks = slices.Grow(racks, len(reps))
		rk := racks[:first+len(reps)]
		k := first
		for _, n := range reps {
			nodes = append(nodes, taskPlace{t, n})
			r := rack[n]
			dup := 0
			for _, e := range rk[first:k] {
				dup |= b2i(e.p == r)
			}
			rk[k] = taskPlace{t, r}
			k += 1 - dup
		}
		racks = rk[:k]
	}
	rs.nodes, rs.racks = nodes, racks
}

// scratchTasks is the most tasks whose replicas are drawn at once while an
// index is built: a job up to this size is drawn once, a bigger one twice
// (once to count, once to fill) in chunks of this size, so that a job of 10⁸
// maps needs no copy of its replicas.
const scratchTasks = 1 << 16

// blocks is job j's block index, built on first use from its replicas.
func (s *State) blocks(j int) *jobBlocks {
	jr := &s.jobs[j]
	if jr.blocks != nil {
		return jr.blocks
	}
	var b *jobBlocks
	if n := len(s.spare); n > 0 {
		b, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		b = &jobBlocks{}
	}
	rs := s.replicas
	ahead, resume := j >= rs.frontier, *rs.pcg
	if ahead {
		for ; rs.frontier < j; rs.frontier++ {
			rs.at[rs.frontier] = *rs.pcg
			if s.drawn(rs.frontier) {
				s.chunk(rs.frontier, s.jobs[rs.frontier].mapLo, s.jobs[rs.frontier].mapHi)
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
				b.node.count(rs.nodes, &rs.nodeBuild)
				b.rack.count(rs.racks, &rs.rackBuild)
			} else {
				b.node.fill(rs.nodes, &rs.nodeBuild)
				b.rack.fill(rs.racks, &rs.rackBuild)
			}
		}
		if pass == 0 {
			b.node.allocate(&rs.nodeBuild)
			b.rack.allocate(&rs.rackBuild)
		}
	}
	b.node.done(&rs.nodeBuild)
	b.rack.done(&rs.rackBuild)
	if ahead {
		rs.frontier = j + 1 // the last pass to draw drew all of job j
	} else {
		*rs.pcg = resume
	}
	jr.blocks = b
	if s.rackFilter {
		jr.racks = [rackFilterWords]uint64{}
		for _, r := range b.rack.runs[:len(b.rack.runs)-1] {
			jr.racks[r.place/64] |= 1 << (r.place % 64)
		}
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
func placeReplicas(rng *rand.PCG, c *Cluster, rack []int32, rackLo []int, reps []int32) []int32 {
	first := int32(intN(rng, c.Nodes))
	reps = append(reps, first)
	if c.Replication >= 2 {
		var second int32
		if c.Racks > 1 {
			// A node outside the first's rack.
			r := int(rack[first])
			k := intN(rng, c.Nodes-(rackLo[r+1]-rackLo[r]))
			if k >= rackLo[r] {
				k += rackLo[r+1] - rackLo[r]
			}
			second = int32(k)
		} else {
			second = int32(intN(rng, c.Nodes-1))
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
				n := int32(rackLo[r] + intN(rng, size))
				if !slices.Contains(reps, n) {
					reps = append(reps, n)
					break
				}
			}
		}
	}
	for len(reps) < c.Replication {
		n := int32(intN(rng, c.Nodes))
		if !slices.Contains(reps, n) {
			reps = append(reps, n)
		}
	}
	return reps
}

// intN draws from [0, n), n > 0, what rand.New(p).IntN(n) draws on a
// 64-bit platform: Lemire's method, the high word of a 64×64-bit product,
// drawing again in the rare case that would bias it. It calls the PCG
// itself: through rand.Rand, each draw was a call through the Source
// interface, which the compiler cannot inline. (On a 32-bit platform
// rand.Rand draws another way; this draws the same everywhere.)
func intN(p *rand.PCG, n int) int {
	if n <= 0 {
		panic("sim: intN of a bound that is not positive")
	}
	u := uint64(n)
	if u&(u-1) == 0 {
		return int(p.Uint64() & (u - 1))
	}
	hi, lo := bits.Mul64(p.Uint64(), u)
	if lo < u {
		for thresh := -u % u; lo < thresh; {
			hi, lo = bits.Mul64(p.Uint64(), u)
		}
	}
	return int(hi)
}

// b2i is 1 for true; the compiler makes it a flag move, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
