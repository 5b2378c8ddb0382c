package sim

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// placeRun is one place's (node's or rack's) share of a job's map tasks: the
// entries ent[lo:end] of its placeIndex, in task order. Everything before cur
// has been launched; the cursor skips launched tasks lazily.
type placeRun struct {
	place, lo, cur, end int32
}

// slotRun is a table slot: a place and its run + 1 (0: the slot is empty).
// The place is kept beside the run so that a probe reads one cache line.
type slotRun struct{ place, run int32 }

// placeIndex finds, for a node or a rack, a job's pending map tasks with a
// replica there: a small open-addressed table from place to run, and the
// runs' tasks in one flat slice. It holds one job only, so it is small and
// stays in cache while the job runs, whatever the size of the cluster.
type placeIndex struct {
	table []slotRun // by the place's hash, linear probing

	shift uint8 // 32 − log2(len(table))
	runs  []placeRun
	ent   []int32 // task ids
}

// reset empties x, keeping its memory.
func (x *placeIndex) reset() {
	x.runs = x.runs[:0]
	x.ent = x.ent[:0]
}

// slot is place p's slot in the table: the run holding p, or the empty slot
// where it goes.
func (x *placeIndex) slot(p int32) int {
	mask := len(x.table) - 1
	i := int((uint32(p) * 0x9e3779b1) >> x.shift)
	for {
		if e := x.table[i]; e.run == 0 || e.place == p {
			return i
		}
		i = (i + 1) & mask
	}
}

// count is the first build pass: one more entry at each pair's place. runOf
// maps a place to its run + 1 while the index is built (a dense array over
// all places, zero outside builds: cheaper than hashing every entry).
func (x *placeIndex) count(pairs []taskPlace, runOf []int32) {
	for _, e := range pairs {
		r := runOf[e.p]
		if r == 0 {
			x.runs = append(x.runs, placeRun{place: e.p})
			r = int32(len(x.runs))
			runOf[e.p] = r
		}
		x.runs[r-1].end++
	}
}

// allocate ends the counting pass: the counts become offsets, and the runs
// go into the table.
func (x *placeIndex) allocate() {
	var n int32
	for i := range x.runs {
		r := &x.runs[i]
		r.lo, r.cur, n = n, n, n+r.end
		r.end = r.lo
	}
	x.ent = slices.Grow(x.ent[:0], int(n))[:n]
	size := 4
	for size < 2*len(x.runs) {
		size *= 2
	}
	if cap(x.table) >= size {
		x.table = x.table[:size]
		clear(x.table)
	} else {
		x.table = make([]slotRun, size)
	}
	x.shift = uint8(32 - bits.TrailingZeros(uint(size)))
	for i := range x.runs {
		p := x.runs[i].place
		x.table[x.slot(p)] = slotRun{p, int32(i + 1)}
	}
}

// fill is the second pass: each pair's task has an entry at its place.
func (x *placeIndex) fill(pairs []taskPlace, runOf []int32) {
	for _, e := range pairs {
		r := &x.runs[runOf[e.p]-1]
		x.ent[r.end] = e.t
		r.end++
	}
}

// done clears runOf after the build.
func (x *placeIndex) done(runOf []int32) {
	for _, r := range x.runs {
		runOf[r.place] = 0
	}
}

// run is place p's run, or nil.
func (x *placeIndex) run(p int32) *placeRun {
	if r := x.table[x.slot(p)].run; r != 0 {
		return &x.runs[r-1]
	}
	return nil
}

// next is the first pending task with an entry at place p, or −1.
func (x *placeIndex) next(p int32, tasks []taskRec) int32 {
	r := x.run(p)
	if r == nil {
		return -1
	}
	for ; r.cur < r.end; r.cur++ {
		if t := x.ent[r.cur]; tasks[t].state == taskPending {
			return t
		}
	}
	return -1
}

// has reports whether task t has an entry at place p.
func (x *placeIndex) has(p, t int32) bool {
	r := x.run(p)
	if r == nil {
		return false
	}
	_, ok := slices.BinarySearch(x.ent[r.lo:r.end], t)
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
	rng      *rand.Rand
	at       []rand.PCG // the state at job j's start, for j < frontier
	frontier int        // the generator stands at this job's start
	rackLo   []int      // rack r is nodes rackLo[r]..rackLo[r+1]−1
	// The replicas of a chunk of one job's tasks, as (task, node) and (task,
	// rack) pairs, a rack once per task.
	nodes, racks []taskPlace
	// While an index is built: a node's, a rack's run + 1 (placeIndex.count).
	nodeRun, rackRun []int32
}

// taskPlace is one entry of a block index: task t has a replica at place p.
type taskPlace struct{ t, p int32 }

func (s *State) newReplicaStream() *replicaStream {
	c := s.cluster
	rs := &replicaStream{pcg: rand.NewPCG(derive(s.set.Seed, 1), derive(s.set.Seed, 2)), at: make([]rand.PCG, len(s.jobs))}
	rs.rng = rand.New(rs.pcg)
	rs.rackLo = make([]int, c.Racks+1)
	for i := c.Nodes - 1; i >= 0; i-- {
		rs.rackLo[s.rack[i]] = i
	}
	rs.rackLo[c.Racks] = c.Nodes
	rs.nodeRun, rs.rackRun = make([]int32, s.nodes), make([]int32, c.Racks)
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
	for t := t0; t < t1; t++ {
		reps := buf[:0]
		if spec != nil {
			for _, n := range spec[t-jr.mapLo] {
				reps = append(reps, int32(n))
			}
		} else {
			reps = placeReplicas(rs.rng, s.cluster, s.rack, rs.rackLo, reps)
		}
		first := len(rs.racks)
		for _, n := range reps {
			rs.nodes = append(rs.nodes, taskPlace{t, n})
			r := s.rack[n]
			seen := false
			for _, e := range rs.racks[first:] {
				seen = seen || e.p == r
			}
			if !seen {
				rs.racks = append(rs.racks, taskPlace{t, r})
			}
		}
	}
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
	b.node.reset()
	b.rack.reset()
	for pass := range 2 {
		if pass == 0 || !one {
			*rs.pcg = rs.at[j]
		}
		for t0 := jr.mapLo; t0 < jr.mapHi; t0 += scratchTasks {
			if pass == 0 || !one {
				s.chunk(j, t0, min(t0+scratchTasks, jr.mapHi))
			}
			if pass == 0 {
				b.node.count(rs.nodes, rs.nodeRun)
				b.rack.count(rs.racks, rs.rackRun)
			} else {
				b.node.fill(rs.nodes, rs.nodeRun)
				b.rack.fill(rs.racks, rs.rackRun)
			}
		}
		if pass == 0 {
			b.node.allocate()
			b.rack.allocate()
		}
	}
	b.node.done(rs.nodeRun)
	b.rack.done(rs.rackRun)
	if ahead {
		rs.frontier = j + 1 // the last pass to draw drew all of job j
	} else {
		*rs.pcg = resume
	}
	jr.blocks = b
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
func placeReplicas(rng *rand.Rand, c Cluster, rack []int32, rackLo []int, reps []int32) []int32 {
	first := int32(rng.IntN(c.Nodes))
	reps = append(reps, first)
	if c.Replication >= 2 {
		var second int32
		if c.Racks > 1 {
			// A node outside the first's rack.
			r := int(rack[first])
			k := rng.IntN(c.Nodes - (rackLo[r+1] - rackLo[r]))
			if k >= rackLo[r] {
				k += rackLo[r+1] - rackLo[r]
			}
			second = int32(k)
		} else {
			second = int32(rng.IntN(c.Nodes - 1))
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
				n := int32(rackLo[r] + rng.IntN(size))
				if !slices.Contains(reps, n) {
					reps = append(reps, n)
					break
				}
			}
		}
	}
	for len(reps) < c.Replication {
		n := int32(rng.IntN(c.Nodes))
		if !slices.Contains(reps, n) {
			reps = append(reps, n)
		}
	}
	return reps
}
