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

// taskRec is one task, 32 bytes with no pointers.
type taskRec struct {
	base    float64 // duration node-local on an unslowed node
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
	loc                [4]int32 // completed maps by locality
	requeued           []int32  // killed tasks waiting to run again
	arrived, finished  bool
	started, redsReady bool
	mapsShuffled       bool // maps done and shuffled: reduces run their own time
	noInput            bool
}

// run is one job's slice of a node's (or rack's) block index: the tasks
// idx[cur:hi] may still be pending; everything before cur has been launched.
type run struct {
	job, cur, hi int32
}

// blockIndex finds, for a node or a rack, the pending map tasks of a job that
// have a replica there. Tasks are numbered job by job, so each place's list is
// sorted by job and a job's tasks form one run, found by binary search. Lazy
// deletion (the cursor skips launched tasks) makes every lookup amortised O(1)
// beyond the search, with no maps and no allocation.
type blockIndex struct {
	off  []int32 // runs of place p are runs[off[p]:off[p+1]]
	hint []int32 // where the last search at place p ended
	runs []run
	idx  []int32 // task ids
}

// buildIndex builds the index from each, which must yield (place, task, job)
// in ascending task order. Two passes over the replicas: one counts entries and
// runs per place, one fills them; jobs are known from the iteration, so no
// random access to the tasks is needed.
func buildIndex(places int, each func(yield func(place, task, job int32))) blockIndex {
	var b blockIndex
	start := make([]int32, places+1)
	runStart := make([]int32, places+1)
	last := make([]int32, places)
	for p := range last {
		last[p] = -1
	}
	each(func(p, _, j int32) {
		start[p+1]++
		if last[p] != j {
			last[p] = j
			runStart[p+1]++
		}
	})
	for p := 1; p <= places; p++ {
		start[p] += start[p-1]
		runStart[p] += runStart[p-1]
	}
	b.idx = make([]int32, start[places])
	b.runs = make([]run, runStart[places])
	b.off = runStart
	b.hint = slices.Clone(runStart[:places])
	fill := slices.Clone(start[:places])
	next := slices.Clone(runStart[:places])
	for p := range last {
		last[p] = -1
	}
	each(func(p, t, j int32) {
		if last[p] != j {
			last[p] = j
			b.runs[next[p]] = run{job: j, cur: fill[p], hi: fill[p]}
			next[p]++
		}
		b.idx[fill[p]] = t
		fill[p]++
		b.runs[next[p]-1].hi = fill[p]
	})
	return b
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

// next returns the first pending task of the run, advancing past launched ones.
func (b *blockIndex) next(r *run, tasks []taskRec) int32 {
	for r.cur < r.hi && tasks[b.idx[r.cur]].state != taskPending {
		r.cur++
	}
	if r.cur < r.hi {
		return b.idx[r.cur]
	}
	return -1
}

// compile builds a run's state from a validated workload.
func compile(w *Workload, set Settings) *State {
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
	s.tasks = make([]taskRec, total)
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
		for k := range j.Maps.N() {
			s.tasks[t] = taskRec{base: j.Maps.Duration(k), job: int32(i), node: -1, kind: Map}
			t++
		}
		jr.mapHi, jr.redLo = t, t
		for k := range j.Reduces.N() {
			s.tasks[t] = taskRec{base: j.Reduces.Duration(k), job: int32(i), node: -1, kind: Reduce, loc: NoInput}
			t++
		}
		jr.redHi = t
		jr.cursor = [2]int32{jr.mapLo, jr.redLo}
		jr.pending = [2]int32{jr.mapHi - jr.mapLo, jr.redHi - jr.redLo}
	}
	s.placeBlocks(c)
	return s
}

// placeBlocks gives every map task that reads input its replicas (from the
// workload, or placed as HDFS 1 does: the first on a random node, the second
// on a node of another rack, the third on another node of the second's rack,
// any more on random nodes), then builds the node and rack indexes.
func (s *State) placeBlocks(c Cluster) {
	rng := rand.New(rand.NewPCG(derive(s.set.Seed, 1), derive(s.set.Seed, 2)))
	rackLo := make([]int, c.Racks+1) // rack r is nodes rackLo[r]..rackLo[r+1]−1
	for i := c.Nodes - 1; i >= 0; i-- {
		rackLo[s.rack[i]] = i
	}
	rackLo[c.Racks] = c.Nodes
	maps := 0
	for i := range s.jobs {
		if !s.jobs[i].noInput {
			maps += int(s.jobs[i].mapHi - s.jobs[i].mapLo)
		}
	}
	s.repOff = make([]int32, 1, maps+1)
	s.repTask = make([]int32, 0, maps)
	reps := make([]int32, 0, maps*c.Replication)
	has := func(from int, n int32) bool { return slices.Contains(reps[from:], n) }
	for i := range s.jobs {
		jr := &s.jobs[i]
		if jr.noInput {
			continue
		}
		spec := s.w.Jobs[i].Blocks
		for t := jr.mapLo; t < jr.mapHi; t++ {
			from := len(reps)
			if spec != nil {
				for _, n := range spec[t-jr.mapLo] {
					reps = append(reps, int32(n))
				}
			} else {
				first := int32(rng.IntN(c.Nodes))
				reps = append(reps, first)
				if c.Replication >= 2 {
					var second int32
					if c.Racks > 1 {
						// A node outside the first's rack.
						r := int(s.rack[first])
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
					r := int(s.rack[reps[from+1]])
					if size := rackLo[r+1] - rackLo[r]; size > 1 && c.Racks > 1 {
						for {
							n := int32(rackLo[r] + rng.IntN(size))
							if !has(from, n) {
								reps = append(reps, n)
								break
							}
						}
					}
				}
				for len(reps)-from < c.Replication {
					n := int32(rng.IntN(c.Nodes))
					if !has(from, n) {
						reps = append(reps, n)
					}
				}
			}
			s.repOff = append(s.repOff, int32(len(reps)))
			s.repTask = append(s.repTask, t)
		}
	}
	s.reps = reps
	// Tasks with input, in id order, with their replicas.
	eachReplica := func(place func(n int32) int32, dedupe bool) func(yield func(p, t, j int32)) {
		return func(yield func(p, t, j int32)) {
			for k, t := range s.repTask {
				rs := reps[s.repOff[k]:s.repOff[k+1]]
				j := s.tasks[t].job
				for i, n := range rs {
					p := place(n)
					if dedupe && slices.ContainsFunc(rs[:i], func(m int32) bool { return place(m) == p }) {
						continue
					}
					yield(p, t, j)
				}
			}
		}
	}
	s.byNode = buildIndex(s.nodes, eachReplica(func(n int32) int32 { return n }, false))
	s.byRack = buildIndex(c.Racks, eachReplica(func(n int32) int32 { return s.rack[n] }, true))
}
