package sim

import (
	"math/rand/v2"
	"slices"
)

// Task states.
const (
	taskPending uint8 = iota
	taskRunning
	taskDone
)

// taskRec is one task, 24 bytes with no pointers; its base duration is read
// from its job's spec (jobRec.dur), not copied.
type taskRec struct {
	start   float64 // start of the current attempt
	job     int32
	node    int32 // node of the current or last attempt, −1 before
	attempt uint16
	state   uint8
	loc     Locality
	kind    Kind
	held    bool // an early reduce waiting, in its slot, for its job's maps
}

// jobRec is one job's running state.
type jobRec struct {
	arrival, shuffle   float64
	start, finish      float64
	mapLo, mapHi       int32 // its map tasks are tasks[mapLo:mapHi]
	redLo, redHi       int32 // and its reduces tasks[redLo:redHi]
	cursor             [2]int32
	pending, running   [2]int32
	done               [2]int32
	runPos             [2]int32 // index in State.runnable[kind], or −1
	user               int32
	loc                [4]int32     // completed maps by locality
	requeued           []int32      // killed tasks waiting to run again
	dur                [2][]float64 // the spec's durations by kind, or nil
	mean               [2]float64   // and its mean, where dur is nil
	arrived, finished  bool
	started, redsReady bool
	mapsShuffled       bool // maps done and shuffled: reduces run their own time
	noInput            bool
}

// run is one job's slice of a node's (or rack's) block index: the tasks
// idx[cur:] up to the first task of a later job (or the end of the place's
// entries) may still be pending; everything before cur has been launched.
type run struct {
	job, cur int32
}

// blockIndex finds, for a node or a rack, the pending map tasks of a job that
// have a replica there. Tasks are numbered job by job, so each place's list is
// sorted by task and so by job, and a job's tasks form one run, found by binary
// search. Lazy deletion (the cursor skips launched tasks) makes every lookup
// amortised O(1) beyond the search, with no maps and no allocation.
type blockIndex struct {
	off  []int32 // runs of place p are runs[off[p]:off[p+1]]
	end  []int32 // entries of place p are idx[end[p-1]:end[p]] (end[-1] = 0)
	hint []int32 // where the last search at place p ended
	runs []run
	idx  []int32 // task ids
}

// indexBuilder builds a blockIndex in two passes over the same (place, task,
// job) triples in ascending task order: one counts entries and runs per
// place, one fills them.
type indexBuilder struct {
	fill bool
	last []int32 // the job last added at each place
	pos  []int32 // entries (counting), or the next free entry (filling)
	rpos []int32 // the same for runs
	b    blockIndex
}

func newIndexBuilder(places int) *indexBuilder {
	ib := &indexBuilder{last: make([]int32, places), pos: make([]int32, places+1), rpos: make([]int32, places+1)}
	for p := range ib.last {
		ib.last[p] = -1
	}
	return ib
}

func (ib *indexBuilder) add(p, t, j int32) {
	if !ib.fill {
		ib.pos[p+1]++
		if ib.last[p] != j {
			ib.last[p] = j
			ib.rpos[p+1]++
		}
		return
	}
	if ib.last[p] != j {
		ib.last[p] = j
		ib.b.runs[ib.rpos[p]] = run{job: j, cur: ib.pos[p]}
		ib.rpos[p]++
	}
	ib.b.idx[ib.pos[p]] = t
	ib.pos[p]++
}

// allocate ends the counting pass: the counts become offsets.
func (ib *indexBuilder) allocate() {
	places := len(ib.last)
	for p := 1; p <= places; p++ {
		ib.pos[p] += ib.pos[p-1]
		ib.rpos[p] += ib.rpos[p-1]
		ib.last[p-1] = -1
	}
	ib.b.idx = make([]int32, ib.pos[places])
	ib.b.runs = make([]run, ib.rpos[places])
	ib.b.off = slices.Clone(ib.rpos)
	ib.b.hint = slices.Clone(ib.rpos[:places])
	ib.b.end = slices.Clone(ib.pos[1:])
	ib.fill = true
}

// find returns job j's run at place p, or nil. The jobs a place is asked
// about move slowly (FIFO's head job, fair sharing's window of recent jobs),
// so the search gallops out from where the last one at this place ended and
// then bisects: O(log distance) instead of O(log runs), and mostly in cache.
func (b *blockIndex) find(p int, j int32) *run {
	first, end := b.off[p], b.off[p+1]
	if first == end {
		return nil
	}
	h := min(max(b.hint[p], first), end-1)
	var lo, hi int32 // the run of j, if any, is in runs[lo:hi]
	if b.runs[h].job < j {
		lo, hi = h+1, h+2
		for step := int32(2); hi < end && b.runs[hi-1].job < j; step *= 2 {
			lo, hi = hi, hi+step
		}
		hi = min(hi, end)
	} else {
		lo, hi = h, h+1
		for step := int32(2); lo > first && b.runs[lo].job > j; step *= 2 {
			lo, hi = max(lo-step, first), lo+1
		}
	}
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		if b.runs[m].job < j {
			lo = m + 1
		} else {
			hi = m
		}
	}
	b.hint[p] = lo
	if lo < end && b.runs[lo].job == j {
		return &b.runs[lo]
	}
	return nil
}

// next returns the first pending task of the run at place p, whose job's
// tasks end before hi, advancing past launched ones.
func (b *blockIndex) next(p int, r *run, hi int32, tasks []taskRec) int32 {
	end := b.end[p]
	for r.cur < end && b.idx[r.cur] < hi && tasks[b.idx[r.cur]].state != taskPending {
		r.cur++
	}
	if r.cur < end && b.idx[r.cur] < hi {
		return b.idx[r.cur]
	}
	return -1
}

// has reports whether task t has an entry at place p.
func (b *blockIndex) has(p int, t int32) bool {
	lo := int32(0)
	if p > 0 {
		lo = b.end[p-1]
	}
	_, ok := slices.BinarySearch(b.idx[lo:b.end[p]], t)
	return ok
}

// compile builds a run's state from a validated workload.
func compile(w *Workload, set Settings) *State {
	s := layout(w, set, true)
	s.placeBlocks(s.cluster)
	return s
}

// layout builds a run's state, all but the block indexes, from a validated
// workload; without tasks, only the jobs (what placing blocks needs).
func layout(w *Workload, set Settings, tasks bool) *State {
	c := w.Cluster.WithDefaults()
	nodes := c.Nodes + len(c.Extras)
	s := &State{set: set, cluster: c, nodes: nodes, w: w}
	s.rack = make([]int32, nodes)
	for i := 0; i < c.Nodes; i++ {
		s.rack[i] = int32(i * c.Racks / c.Nodes)
	}
	for i, p := range c.Extras {
		s.rack[c.Nodes+i] = s.rack[p]
	}
	s.slots = [2]int{c.MapSlots, c.ReduceSlots}
	for k := range 2 {
		s.free[k] = make([]int16, nodes)
		for i := range s.free[k] {
			s.free[k][i] = int16(s.slots[k])
		}
		s.slotTask[k] = make([]int32, nodes*s.slots[k])
		for i := range s.slotTask[k] {
			s.slotTask[k][i] = -1
		}
	}
	s.slow = make([]float64, nodes)
	for i := range s.slow {
		s.slow[i] = 1
	}
	s.woke = make([]bool, nodes)
	s.retrying = make([]bool, nodes)
	s.hbStopped = make([]bool, nodes)

	total := w.Tasks()
	if tasks {
		s.tasks = make([]taskRec, total)
	}
	s.jobs = make([]jobRec, len(w.Jobs))
	users := map[string]int32{}
	var t int32
	for i := range w.Jobs {
		j := &w.Jobs[i]
		jr := &s.jobs[i]
		jr.arrival, jr.shuffle = j.Arrival, j.Shuffle
		jr.noInput = j.NoInput || set.IgnoreLocality
		jr.runPos = [2]int32{-1, -1}
		u, ok := users[j.User]
		if !ok {
			u = int32(len(s.users))
			users[j.User] = u
			s.users = append(s.users, j.User)
		}
		jr.user = u
		jr.mapLo = t
		jr.dur = [2][]float64{j.Maps.Durations, j.Reduces.Durations}
		jr.mean = [2]float64{j.Maps.Mean, j.Reduces.Mean}
		for t0 := t; tasks && t < t0+int32(j.Maps.N()); t++ {
			s.tasks[t] = taskRec{job: int32(i), node: -1, kind: Map}
		}
		t = jr.mapLo + int32(j.Maps.N())
		jr.mapHi, jr.redLo = t, t
		for t0 := t; tasks && t < t0+int32(j.Reduces.N()); t++ {
			s.tasks[t] = taskRec{job: int32(i), node: -1, kind: Reduce, loc: NoInput}
		}
		t = jr.redLo + int32(j.Reduces.N())
		jr.redHi = t
		jr.cursor = [2]int32{jr.mapLo, jr.redLo}
		jr.pending = [2]int32{jr.mapHi - jr.mapLo, jr.redHi - jr.redLo}
	}
	return s
}

// placeBlocks gives every map task that reads input its replicas (from the
// workload, or placed as HDFS 1 does: the first on a random node, the second
// on a node of another rack, the third on another node of the second's rack,
// any more on random nodes) and builds the node and rack indexes from them.
// The replicas are not kept: both passes of the build draw them afresh from
// the seed, and locality asks the indexes.
func (s *State) placeBlocks(c Cluster) {
	nb, rb := newIndexBuilder(s.nodes), newIndexBuilder(c.Racks)
	var racks [MaxReplication]int32
	visit := func(t, j int32, reps []int32) {
		rs := racks[:0]
		for _, n := range reps {
			nb.add(n, t, j)
			if r := s.rack[n]; !slices.Contains(rs, r) {
				rs = append(rs, r)
				rb.add(r, t, j)
			}
		}
	}
	s.eachReplicas(c, visit)
	nb.allocate()
	rb.allocate()
	s.eachReplicas(c, visit)
	s.byNode, s.byRack = nb.b, rb.b
}

// eachReplicas calls visit with every map task that reads input, in task
// order, its job and its replicas (valid during the call only). Every call
// draws the same placements: the generator starts afresh from the seed.
func (s *State) eachReplicas(c Cluster, visit func(t, j int32, reps []int32)) {
	rng := rand.New(rand.NewPCG(derive(s.set.Seed, 1), derive(s.set.Seed, 2)))
	rackLo := make([]int, c.Racks+1) // rack r is nodes rackLo[r]..rackLo[r+1]−1
	for i := c.Nodes - 1; i >= 0; i-- {
		rackLo[s.rack[i]] = i
	}
	rackLo[c.Racks] = c.Nodes
	var buf [MaxReplication]int32
	for i := range s.jobs {
		jr := &s.jobs[i]
		if jr.noInput {
			continue
		}
		spec := s.w.Jobs[i].Blocks
		for t := jr.mapLo; t < jr.mapHi; t++ {
			reps := buf[:0]
			if spec != nil {
				for _, n := range spec[t-jr.mapLo] {
					reps = append(reps, int32(n))
				}
			} else {
				reps = placeReplicas(rng, c, s.rack, rackLo, reps)
			}
			visit(t, int32(i), reps)
		}
	}
}

// placeReplicas appends one block's c.Replication replicas to reps, HDFS 1's
// way.
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
