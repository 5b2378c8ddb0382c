package engine

import (
	"slices"
	"sync/atomic"
)

// Task states.
const (
	taskPending uint8 = iota
	taskRunning
	taskDone
)

// taskRec is one task, 32 bytes with no pointers. Its base duration is a
// copy of its job's spec's: a launch reads it, and this record, which the
// lookup has just read, is in the cache, where the spec's durations of a
// job queued for a while are not: in a large run, a miss at every launch.
type taskRec struct {
	base    float64 // the duration node-local on an unslowed node
	start   float64 // start of the current attempt
	job     int32
	node    int32 // node of the current or last attempt, −1 before
	attempt uint16
	state   uint8
	loc     Locality
	kind    Kind
	held    bool   // an early reduce waiting, in its slot, for its job's maps
	slot    uint16 // its slot on node (State.slotTask), while it runs
}

// jobRec is one job's running state: 192 bytes, in a large run (an array
// over 32 KiB, an allocation Go starts on a page) three whole cache lines,
// the first holding what every launch and task end reads and writes, the
// third the rack filter.
type jobRec struct {
	mapLo, mapHi     int32 // its map tasks are tasks[mapLo:mapHi]
	redLo, redHi     int32 // and its reduces tasks[redLo:redHi]
	cursor           [2]int32
	pending, running [2]int32
	// changed[k] is set while the job is in State.changed[k]: beside
	// running, which whoever marks it has just written, not in an array of
	// its own nor further down the record, each a cache miss of its own at
	// every launch and task end of a large run.
	changed            [2]bool
	arrived, finished  bool
	started, redsReady bool
	mapsShuffled       bool // maps done and shuffled: reduces run their own time
	noInput            bool
	done               [2]int32
	runPos             [2]int32    // index in State.runnable[kind], or −1
	blocks             *placeIndex // its block index while its maps run (State.blocks)
	loc                [4]int32    // completed maps by locality
	arrival, shuffle   float64
	start, finish      float64
	user               int32
	// racks has bit r set while rack r may hold a replica of a map of the
	// job that never launched, when the filters have a bit a rack
	// (State.filterBy, State.mayHold): inline, since a lookup reads the
	// record anyway, where the index's runs are one or two more cache
	// misses, and on a large cluster a job's replicas lie in few racks.
	racks [rackFilterWords]uint64
}

// span is the job's tasks of kind k: tasks[lo:hi].
func (jr *jobRec) span(k Kind) (lo, hi int32) {
	if k == Reduce {
		return jr.redLo, jr.redHi
	}
	return jr.mapLo, jr.mapHi
}

// A job's filter has a bit a node on a cluster of up to 64·nodeFilterWords
// nodes, extra ones included (State.nodeFilter), unless a rack's nodes span
// three of its words; else a bit a rack for up to 64·rackFilterWords racks
// (jobRec.racks; 10,240 nodes at 20 a rack). A larger cluster goes without
// (State.chooseFilter). The node filters are an array of their own: inline,
// they would make every job record longer, and runs with a bit a rack (the
// large clusters), which never read them, would pay in cache misses for the
// longer records.
const (
	nodeFilterWords = 16
	rackFilterWords = 8
)

// What the bits of the jobs' filters stand for (State.filterBy).
const (
	FilterNone  uint8 = iota // no filters: every question goes to the index
	FilterRacks              // bit r: rack r
	FilterNodes              // bit p: node p
)

// chooseFilter decides what the bits of the run's jobs' filters stand for,
// the finest of engine.FinestFilter's kind and those coarser that the
// cluster fits, and makes the node filters of jobs jobs in the memory of
// reuse.
func (s *State) chooseFilter(jobs int, reuse [][nodeFilterWords]uint64) {
	fits := [...]bool{
		FilterNone:  true,
		FilterRacks: s.cluster.Racks <= rackFilterWords*64,
		FilterNodes: s.spansFit,
	}
	want := s.engine.FinestFilter
	switch s.filterBy = FilterNone; {
	case want == FilterNodes && fits[FilterNodes]:
		s.filterBy = FilterNodes
	case want != FilterNone && fits[FilterRacks]:
		s.filterBy = FilterRacks
	}
	if s.filterBy == FilterNodes {
		// Each row is written whole when its job's index is built, before
		// it is read; the rows are cleared all the same, so that a reused
		// state holds nothing of the last run.
		s.nodeFilter = resize(reuse, jobs)
		clear(s.nodeFilter)
	}
}

// rackSpans lays out the racks' spans in the jobs' filters with a bit a
// node and reports whether every rack's nodes lie within two words (a rack
// of 66 nodes or more may not).
func (s *State) rackSpans() bool {
	s.rackSpan = resize(s.rackSpan, s.cluster.Racks)
	for r := range s.rackSpan {
		l, h := int32(s.rackLo[r]), int32(s.rackLo[r+1])
		w0, w1 := l/64, (h-1)/64
		switch {
		case w1 > w0+1:
			return false
		case w1 == w0:
			s.rackSpan[r] = rackSpan{w0, w0, spanMask(w0, l, h), 0}
		default:
			s.rackSpan[r] = rackSpan{w0, w1, spanMask(w0, l, h), spanMask(w1, l, h)}
		}
	}
	return true
}

// rackSpan is a rack's nodes as bits of a job's filter with a bit a node:
// mask m0 of word w0 and m1 of word w1 (m1 zero if the rack lies in one
// word), so that asking about a rack is two words and no loop.
type rackSpan struct {
	w0, w1 int32
	m0, m1 uint64
}

// runs numbers the runs laid out in this process (State.serial), from 1.
var runs atomic.Uint64

// Compile lays out a run of the validated input in, in the memory of prev,
// a run that ended, or anew if prev is nil. The memory matters in the alone
// pass: thousands of one-job runs on one cluster, where
// allocating and filling the per-node arrays cost several times the run;
// prev is overwritten. The replica stream is built only when some job reads
// input: blocks is never asked for another's. The run goes by the core's
// speed switches opts (Options), DefaultOptions() but in tests.
func Compile(prev *State, w *Input, set Config, opts Options) *State {
	s := layout(prev, w, set, opts)
	for j := range s.jobs {
		if !s.jobs[j].noInput {
			s.replicas = s.newReplicaStream()
			break
		}
	}
	return s
}

// layout builds a run's state from a validated workload, all but the block
// indexes, which are built per job when first needed (State.blocks). With
// prev not nil, it reuses prev's memory (prev is overwritten): its per-node
// arrays if prev ran on the same nodes, its task and job records, its
// event queue's memory and wake list. Everything else starts from the zero
// State, as a fresh one does, so nothing of prev's run leaks into the new
// one; opts are the new run's own speed switches.
func layout(prev *State, w *Input, set Config, opts Options) *State {
	c := w.Cluster
	nodes := c.Nodes + len(c.Extras)
	s := prev
	if s == nil {
		s = &State{}
	}
	keep := s.keepable(c)
	*s = State{set: set, engine: opts, cluster: c, nodes: nodes, w: w, serial: runs.Add(1),
		tasks: keep.tasks, jobs: keep.jobs, wakeList: wakeList{wake: keep.wake[:0]}}
	s.queue = keep.queue
	s.slots = [2]int{c.MapSlots, c.ReduceSlots}
	if keep.nodeArrays.rack != nil {
		s.nodeArrays, s.woke, s.offered = keep.nodeArrays, keep.woke, keep.offered
		s.resetNodes()
	} else {
		s.makeNodes()
	}
	s.gen, s.sweeping = 1, -1
	s.chooseFilter(w.Jobs, keep.filters)

	// Every task record is written below; job records start from zero.
	s.tasks = resize(s.tasks, w.Tasks())
	s.jobs = resize(s.jobs, w.Jobs)
	clear(s.jobs[:cap(s.jobs)]) // past len too: no stale pointers kept alive
	users := map[string]int32{}
	var t int32
	for i := range w.Jobs {
		j := w.Job(i)
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
		s.layTasks(t, j.Maps, int32(i), Map)
		t = jr.mapLo + int32(j.Maps.N())
		jr.mapHi, jr.redLo = t, t
		s.layTasks(t, j.Reduces, int32(i), Reduce)
		t = jr.redLo + int32(j.Reduces.N())
		jr.redHi = t
		jr.cursor = [2]int32{jr.mapLo, jr.redLo}
		jr.pending = [2]int32{jr.mapHi - jr.mapLo, jr.redHi - jr.redLo}
	}
	return s
}

// layTasks writes the records of job j's tasks of kind k, spec ts, from
// tasks[t0] on. (The spec's two forms each get their own loop: asked per
// task, Tasks.Duration's branch and call were most of the writing.)
func (s *State) layTasks(t0 int32, ts Tasks, j int32, k Kind) {
	rec := taskRec{job: j, node: -1, kind: k}
	if k == Reduce {
		rec.loc = NoInput
	}
	out := s.tasks[t0 : t0+int32(ts.N())]
	if len(ts.Durations) > 0 {
		for i, d := range ts.Durations[:len(out)] {
			rec.base = d
			out[i] = rec
		}
		return
	}
	rec.base = ts.Mean
	for i := range out {
		out[i] = rec
	}
}

// typicalBase is a typical task's base duration, which sizes the event
// queue's ring: the median of up to 1024 tasks spread evenly over the
// workload, or, if that is 0, their mean. A median, not the mean of all:
// ten tasks of 10⁹ s among 10⁵ of 10 s make the mean 10⁵ s, and a ring
// that wide would hold every task in flight in its current bucket.
func typicalBase(tasks []taskRec) float64 {
	n := len(tasks)
	k := min(n, 1024)
	if k == 0 {
		return 0
	}
	var buf [1024]float64 // on the stack: Alone lays out thousands of runs
	sample := buf[:k]
	var sum float64
	for i := range sample {
		sample[i] = tasks[i*n/k].base
		sum += sample[i]
	}
	slices.Sort(sample)
	if m := sample[k/2]; m > 0 {
		return m
	}
	return sum / float64(k)
}

// nodeArrays are a run's per-node state, the bulk of what a run on a large
// cluster allocates before its first event.
type nodeArrays struct {
	rack     []int32
	free     [2][]int16
	freeBits [2][]uint64 // bit n: node n has a free slot of the kind
	// freeWords has bit w set when freeBits word w is not 0: a sweep of
	// a saturated cluster skips its full nodes 4096 at a time, and one
	// with no job left to serve stops (nextFreeWord). Reading every word
	// of freeBits at every sweep instead would, on a cluster of thousands
	// of nodes, be a noticeable part of a run's instructions.
	freeWords [2][]uint64
	slotTask  [2][]int32 // node n's slots of kind k: slotTask[k][n·slots[k]:(n+1)·slots[k]]
	slow      []float64
	retrying  []bool
	hbStopped []bool // nodes whose heartbeats pause while no job is active
	// rackLo: rack r is primary nodes rackLo[r]..rackLo[r+1]−1 (a rack's
	// nodes are consecutive; extra nodes, numbered after, hold no blocks).
	rackLo []int
	// rackSpan is rack r's bits in a job's filter with a bit a node, if
	// spansFit: the cluster has at most 64·nodeFilterWords nodes and each
	// rack's lie within two words (rackSpans). Laid out with the racks, once
	// a cluster, not once a run: Alone runs thousands on one.
	rackSpan []rackSpan
	spansFit bool
}

// kept is the memory of a finished run that the next one may reuse.
type kept struct {
	nodeArrays
	woke    []bool
	offered []uint32
	wake    []int32
	tasks   []taskRec
	jobs    []jobRec
	filters [][nodeFilterWords]uint64
	queue   eventQueue // its slices only (eventQueue.reusable)
}

// keepable is s's memory that a run on cluster c (with defaults) can reuse:
// the per-node arrays only if s ran on the same nodes, racks and slots
// (the racks are then the same), without extra VMs.
func (s *State) keepable(c Cluster) kept {
	k := kept{tasks: s.tasks, jobs: s.jobs, filters: s.nodeFilter, wake: s.wake, queue: s.queue.reusable()}
	p := s.cluster
	if s.rack != nil && len(p.Extras) == 0 && len(c.Extras) == 0 && p.Nodes == c.Nodes && p.Racks == c.Racks &&
		p.MapSlots == c.MapSlots && p.ReduceSlots == c.ReduceSlots {
		k.nodeArrays, k.woke, k.offered = s.nodeArrays, s.woke, s.offered
	}
	return k
}

// markFree records that node has a free slot of kind k, in freeBits and
// its word's bit in freeWords. (Unsigned: no fix-up for negatives in the
// divisions.)
func (a *nodeArrays) markFree(k Kind, node int) {
	n := uint(node)
	a.freeBits[k][n/64] |= 1 << (n % 64)
	a.freeWords[k][n/(64*64)] |= 1 << (n / 64 % 64)
}

// markFull records that node has no free slot of kind k left, clearing its
// word's bit in freeWords when the word empties.
func (a *nodeArrays) markFull(k Kind, node int) {
	n := uint(node)
	if a.freeBits[k][n/64] &^= 1 << (n % 64); a.freeBits[k][n/64] == 0 {
		a.freeWords[k][n/(64*64)] &^= 1 << (n / 64 % 64)
	}
}

// makeNodes allocates and fills the per-node arrays for s.cluster.
func (s *State) makeNodes() {
	c, nodes := s.cluster, s.nodes
	s.rack = make([]int32, nodes)
	for i := 0; i < c.Nodes; i++ {
		s.rack[i] = int32(i * c.Racks / c.Nodes)
	}
	for i, p := range c.Extras {
		s.rack[c.Nodes+i] = s.rack[p]
	}
	s.rackLo = make([]int, c.Racks+1)
	for i := c.Nodes - 1; i >= 0; i-- {
		s.rackLo[s.rack[i]] = i
	}
	s.rackLo[c.Racks] = c.Nodes
	s.spansFit = nodes <= nodeFilterWords*64 && s.rackSpans()
	for k := range 2 {
		s.free[k] = make([]int16, nodes)
		s.freeBits[k] = make([]uint64, (nodes+63)/64)
		s.freeWords[k] = make([]uint64, (len(s.freeBits[k])+63)/64)
		s.slotTask[k] = make([]int32, nodes*s.slots[k])
	}
	s.slow = make([]float64, nodes)
	s.woke = make([]bool, nodes)
	s.offered = make([]uint32, nodes)
	s.retrying = make([]bool, nodes)
	s.hbStopped = make([]bool, nodes)
	s.resetNodes()
}

// resetNodes sets the per-node arrays, racks aside, to an empty cluster's:
// every slot free, no node slowed, woken, offered, retrying or paused.
func (s *State) resetNodes() {
	for k := range 2 {
		fill(s.free[k], int16(s.slots[k]))
		clear(s.freeBits[k])
		if s.slots[k] > 0 {
			fill(s.freeBits[k], ^uint64(0))
			if r := s.nodes % 64; r != 0 {
				s.freeBits[k][len(s.freeBits[k])-1] = 1<<r - 1
			}
		}
		fill(s.slotTask[k], -1)
		clear(s.freeWords[k])
		for w, word := range s.freeBits[k] {
			if word != 0 {
				s.freeWords[k][w/64] |= 1 << (w % 64)
			}
		}
	}
	fill(s.slow, 1)
	clear(s.woke)
	clear(s.offered)
	clear(s.retrying)
	clear(s.hbStopped)
}

// fill sets every element of xs to v, by doubling copies: a loop of
// stores, for each of the thousands of one-job runs of the alone pass, was
// most of what the pass cost; copy moves blocks.
func fill[T any](xs []T, v T) {
	if len(xs) == 0 {
		return
	}
	xs[0] = v
	for i := 1; i < len(xs); i *= 2 {
		copy(xs[i:], xs[:i])
	}
}

// resize is xs with length n, in its own memory if it has room.
func resize[T any](xs []T, n int) []T {
	if cap(xs) < n {
		return make([]T, n)
	}
	return xs[:n]
}
