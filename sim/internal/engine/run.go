package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// State is a run in progress. Policies read it through its methods and act
// on it only through Kill, Wake and SetSlowdown; everything else is the core's.
type State struct {
	// serial tells this run from every other in the process, a State laid
	// out again in the same memory (Compile with prev) included: what a policy
	// keeps between calls can say which run it is of without holding the
	// State, and so its memory, past the run.
	serial  uint64
	set     Config
	w       *Input
	cluster Cluster
	hooks   Hooks
	nodes   int
	now     float64
	queue   eventQueue
	events  int64

	slots [2]int
	nodeArrays

	tasks []taskRec
	jobs  []jobRec
	// requeued is, by job, the killed tasks waiting to run again: nil
	// until a task is first killed, which only preemption does, so that
	// the job records hold no slice of their own (jobRec).
	requeued [][]int32
	users    []string
	replicas *replicaStream
	spare    []*placeIndex // released block indexes, for reuse

	runnable [2][]int32
	// changed lists, per kind, the jobs whose running count changed, or that
	// joined or left runnable, since the policy last took the list
	// (TakeChanged), once a policy asked for it (watching, WatchJobs); a
	// job's record flags whether it is listed (jobRec.changed).
	changed    [2][]int32
	watching   bool
	unfinished int
	active     int // jobs submitted and not finished
	// tickStopped: the policy's allocation ticks pause likewise.
	tickStopped bool
	// filterBy: what the jobs' filters' bits stand for (jobRec.racks,
	// nodeFilter); exhaustions counts the bits cleared, skips the index
	// questions the filters answered.
	filterBy    uint8
	nodeFilter  [][nodeFilterWords]uint64 // job j's filter, with a bit a node
	exhaustions int
	skips       int
	busy        [2]float64 // slot-seconds used, of finished and killed attempts
	lastEnd     float64

	// found caches the last findTask answer, or localTask's when it found a
	// node-local map: a policy that asks BestLocality or localTask and then
	// assigns the same job gets one lookup, not two. Anything that changes
	// a task's state clears it.
	found foundTask

	wakeList

	engine Options // the core's speed switches, fixed at layout

	// ref, set by CompileReference only, is the reference engine running
	// this State's policy: the State then only shows the policy the
	// reference engine's state, and the policy's actions go to it
	// (refrun.go).
	ref refEngine
}

// refEngine is the reference engine's side of a run (refAdapter), an
// interface so that a program that never calls CompileReference does not
// link the reference engine: nothing reachable makes one.
type refEngine interface {
	run(h Hooks) error
	kill(task int) bool
	wake(node int)
	setSlowdown(node int, factor float64)
	bestLocality(j, node int, k Kind) Locality
}

// Run runs the compiled state under the policy h, to its end. A State runs
// once; Compile lays out the next run, in its memory if asked.
func (s *State) Run(h Hooks) error {
	if s.ref != nil {
		return s.ref.run(h)
	}
	s.hooks = h
	return s.loop()
}

func (s *State) loop() error {
	s.unfinished = len(s.jobs)
	// Events in flight are about one per busy slot, and a run has no more
	// busy slots than tasks: Alone runs each job of a trace by itself, and a
	// pool sized to the cluster made it clear thousands of unused entries.
	// The ring spans four typical durations (a remote task's factor of two
	// and a slowed node's within it), about a bucket per event in flight.
	s.queue.init(min(s.nodes*(s.slots[0]+s.slots[1]), len(s.tasks))+16, 4*typicalBase(s.tasks))
	if len(s.tasks) >= s.engine.PrefetchFrom {
		s.queue.warm, s.queue.warmJobs = s.tasks, s.jobs
		if s.hooks.Sticky {
			s.queue.warmNext, s.queue.warmFilter = true, s.filterBy == FilterRacks
		}
	}
	arrivals := make([]event, len(s.jobs))
	for j := range s.jobs {
		arrivals[j] = event{t: s.jobs[j].arrival, kind: evArrive, arg: int32(j)}
	}
	// Stable: jobs submitted together arrive in workload order.
	slices.SortStableFunc(arrivals, func(a, b event) int { return cmp.Compare(a.t, b.t) })
	s.queue.load(arrivals)
	if h := s.set.Heartbeat; h > 0 {
		for n := range s.nodes {
			s.queue.push(event{t: h * float64(n) / float64(s.nodes), kind: evHeartbeat, arg: int32(n)})
		}
	}
	if s.hooks.Start != nil {
		s.hooks.Start()
	}
	if s.hooks.Tick != nil {
		if iv := s.hooks.Interval(); !(iv > 0) || math.IsInf(iv, 0) {
			return fmt.Errorf("sim: policy %s: allocation interval must be finite and positive, got %v", s.hooks.Name, iv)
		}
		s.queue.push(event{t: 0, kind: evTick})
	}
	for s.unfinished > 0 && s.queue.len() > 0 {
		e := s.queue.pop()
		s.now = e.t
		s.events++
		if s.events%ProgressEvery == 0 {
			s.progress()
		}
		switch e.kind {
		case evArrive:
			s.arrive(int(e.arg))
		case evTaskEnd:
			s.taskEnd(e.arg, e.attempt)
		case evReduceReady:
			s.reducesReady(int(e.arg))
		case evHeartbeat:
			s.poke(int(e.arg))
			if s.active > 0 {
				s.queue.push(event{t: e.t + s.set.Heartbeat, kind: evHeartbeat, arg: e.arg})
			} else {
				// Nothing to schedule: pause rather than tick through a gap
				// between arrivals; arrive restarts the node on its grid.
				s.hbStopped[e.arg] = true
			}
		case evRetry:
			s.retrying[e.arg] = false
			s.poke(int(e.arg))
		case evTick:
			s.hooks.Tick()
			if s.active > 0 {
				s.queue.push(event{t: e.t + s.hooks.Interval(), kind: evTick})
			} else {
				s.tickStopped = true // as heartbeats: resumed by the next arrival
			}
		}
		// Slots are offered once everything that happens at this instant has
		// happened: two jobs submitted at t = 0 compete for the same slots.
		if !s.queue.atLastTime() {
			s.drain()
		}
	}
	s.progress()
	if s.unfinished > 0 {
		return fmt.Errorf("%w: policy %s at t = %g s: %d jobs unfinished and nothing left to happen", ErrStalled, s.hooks.Name, s.now, s.unfinished)
	}
	return nil
}

func (s *State) offer(node int) {
	if (s.free[Map][node] == 0 || len(s.runnable[Map]) == 0) && (s.free[Reduce][node] == 0 || len(s.runnable[Reduce]) == 0) {
		return // nothing to decide
	}
	if s.hooks.Offering != nil {
		s.hooks.Offering(node)
	}
	for k := Map; k <= Reduce; k++ {
		for s.free[k][node] > 0 && len(s.runnable[k]) > 0 {
			j := s.hooks.Assign(node, k)
			if j < 0 {
				if j == Later && s.set.Heartbeat == 0 && !s.retrying[node] {
					s.retrying[node] = true
					s.queue.push(event{t: s.now + s.set.IdleRetry, kind: evRetry, arg: int32(node)})
				}
				break
			}
			s.launch(j, node, k)
		}
	}
}

func (s *State) arrive(j int) {
	jr := &s.jobs[j]
	jr.arrived = true
	s.active++
	if s.tickStopped {
		s.tickStopped = false
		iv := s.hooks.Interval()
		s.queue.push(event{t: nextOnGrid(0, iv, s.now), kind: evTick})
	}
	if h := s.set.Heartbeat; h > 0 {
		for n, stopped := range s.hbStopped {
			if !stopped {
				continue
			}
			s.hbStopped[n] = false
			s.queue.push(event{t: nextOnGrid(h*float64(n)/float64(s.nodes), h, s.now), kind: evHeartbeat, arg: int32(n)})
		}
	}
	s.trace(TraceArrive, j, -1, -1, NoInput)
	if jr.pending[Map] > 0 {
		s.addRunnable(j, Map)
	}
	if jr.mapHi == jr.mapLo {
		s.queue.push(event{t: s.now + jr.shuffle, kind: evReduceReady, arg: int32(j)})
	}
	if s.hooks.JobArrived != nil {
		s.hooks.JobArrived(j)
	}
	s.wakeIdle(Map)
}

// nextOnGrid is the first time off + k·period, k ≥ 0 whole, at or after now.
func nextOnGrid(off, period, now float64) float64 {
	t := off + math.Ceil(max(0, now-off)/period)*period
	for t < now {
		t += period
	}
	return t
}

func (s *State) reducesReady(j int) {
	jr := &s.jobs[j]
	jr.mapsShuffled = true
	// Early reduces (ReduceSlowstart) waiting in their slots start their own
	// time now.
	for t := jr.redLo; t < jr.redHi; t++ {
		if tr := &s.tasks[t]; tr.held {
			tr.held = false
			s.queue.pushTaskEnd(event{t: s.now + s.base(t)*s.slow[tr.node], kind: evTaskEnd, arg: t, attempt: tr.attempt}, tr.job)
		}
	}
	s.reducesRunnable(j)
}

// reducesRunnable lets job j's reduces launch.
func (s *State) reducesRunnable(j int) {
	jr := &s.jobs[j]
	if jr.redsReady {
		return
	}
	jr.redsReady = true
	if jr.pending[Reduce] > 0 {
		s.addRunnable(j, Reduce)
		s.wakeIdle(Reduce)
	}
}

func (s *State) addRunnable(j int, k Kind) {
	jr := &s.jobs[j]
	if jr.runPos[k] >= 0 {
		return
	}
	jr.runPos[k] = int32(len(s.runnable[k]))
	s.runnable[k] = append(s.runnable[k], int32(j))
	s.noteChanged(j, k)
	if s.hooks.RunnableChanged != nil {
		s.hooks.RunnableChanged(j, k, true)
	}
}

func (s *State) removeRunnable(j int, k Kind) {
	jr := &s.jobs[j]
	i := jr.runPos[k]
	if i < 0 {
		return
	}
	last := s.runnable[k][len(s.runnable[k])-1]
	s.runnable[k][i] = last
	s.jobs[last].runPos[k] = i
	s.runnable[k] = s.runnable[k][:len(s.runnable[k])-1]
	jr.runPos[k] = -1
	s.noteChanged(j, k)
	if s.hooks.RunnableChanged != nil {
		s.hooks.RunnableChanged(j, k, false)
	}
}

// foundTask is a cached answer of findTask (State.found).
type foundTask struct {
	ok        bool
	job, node int
	kind      Kind
	task      int32
	locality  Locality
}

// set caches task t, of locality l, as job j's answer for node and kind k.
// (Field by field: a composite literal would be built and then copied, more
// instructions on findTask's path.)
func (f *foundTask) set(j, node int, k Kind, t int32, l Locality) {
	f.ok, f.job, f.node, f.kind, f.task, f.locality = true, j, node, k, t, l
}

// findTask returns job j's best pending task of kind for node and its
// locality, advancing the indexes' cursors past launched tasks.
func (s *State) findTask(j int, node int, k Kind) (int32, Locality) {
	if f := &s.found; f.ok && f.job == j && f.node == node && f.kind == k {
		return f.task, f.locality
	}
	t, l := s.lookup(j, node, k)
	s.found.set(j, node, k, t, l)
	return t, l
}

// requeuedOf is job j's killed tasks waiting to run again.
func (s *State) requeuedOf(j int) []int32 {
	if s.requeued == nil {
		return nil
	}
	return s.requeued[j]
}

func (s *State) lookup(j int, node int, k Kind) (int32, Locality) {
	if s.ref != nil {
		// Only BestLocality asks, for the locality: the reference engine
		// launches its own tasks.
		return -1, s.ref.bestLocality(j, node, k)
	}
	jr := &s.jobs[j]
	_, hi := jr.span(k)
	best, bestLoc := int32(-1), NoInput+1
	for _, t := range s.requeuedOf(j) {
		if s.tasks[t].kind != k {
			continue
		}
		if l := s.locality(t, node); best < 0 || rank(l) < rank(bestLoc) {
			best, bestLoc = t, l
		}
	}
	if best >= 0 && rank(bestLoc) == 0 {
		return best, bestLoc
	}
	if k == Map && !jr.noInput {
		b := s.blocks(j)
		if r := s.rack[node]; !s.mayHold(j, jr, r) {
			s.skips++
		} else {
			// An extra node (numbered after every primary one) holds no
			// blocks and is sought at its rack's end: its rack's runs are
			// then the walk back nextIn expects, not every run after them.
			rlo, rhi := s.rackNodes(r)
			i := b.seek(min(int32(node), rhi))
			if t := b.nextAt(i, int32(node), s.tasks); t >= 0 {
				return t, NodeLocal
			}
			s.nodeExhausted(j, node)
			// Before the rack's nodes are asked, as the filter's
			// exactness needs: a rack-local requeued map is answered here,
			// so they are asked only when none of the job's pending maps
			// with a replica in rack r was ever killed, and their answer is
			// about never-launched ones.
			if best >= 0 && bestLoc == RackLocal {
				return best, bestLoc
			}
			if t := b.nextIn(i, rlo, rhi, s.tasks); t >= 0 {
				return t, RackLocal
			}
			s.exhausted(j, jr, r)
		}
		if best >= 0 {
			return best, bestLoc
		}
	} else if best >= 0 {
		return best, bestLoc
	}
	for c := jr.cursor[k]; c < hi; c++ {
		if s.tasks[c].state == taskPending {
			// The job's next launch from here reads the next records,
			// cold in a large run: ask for the line after this one now
			// (warm is set from engine.PrefetchFrom tasks on, where the
			// records are out of the cache).
			// Under fair sharing ahead asks for it again just before the
			// launch (warmNext), by when this one is often out of the cache.
			if w := s.queue.warm; int(c)+2 < len(w) {
				prefetch(unsafe.Pointer(&w[c+2]))
			}
			jr.cursor[k] = c
			l := NoInput
			if k == Map && !jr.noInput {
				l = Remote
			}
			return c, l
		}
	}
	jr.cursor[k] = hi
	return -1, NoInput
}

// localTask reports whether job j, which has a pending task of kind, has
// one that is node-local on node or reads no input: whether BestLocality
// would be NodeLocal or NoInput, found without looking any further.
func (s *State) localTask(j, node int, k Kind) bool {
	if f := &s.found; f.ok && f.job == j && f.node == node && f.kind == k {
		return rank(f.locality) == 0
	}
	if s.ref != nil {
		return rank(s.ref.bestLocality(j, node, k)) == 0
	}
	jr := &s.jobs[j]
	if k == Reduce || jr.noInput {
		return true
	}
	b := s.blocks(j)
	for _, t := range s.requeuedOf(j) {
		if s.tasks[t].kind == Map && b.has(int32(node), t) {
			return true
		}
	}
	if !s.nodeMayHold(j, jr, node) {
		s.skips++
		return false
	}
	if t := b.next(int32(node), s.tasks); t >= 0 {
		// What lookup would answer, so the launch that mostly follows
		// needs no lookup of its own: no requeued map is node-local here
		// (asked above); the node's bit set means its rack's is (mayHold);
		// and lookup's seek(min(node, rack end)) finds the same run, since
		// only a primary node holds blocks and is below its rack's end.
		s.found.set(j, node, k, t, NodeLocal)
		return true
	}
	s.nodeExhausted(j, node)
	return false
}

// mayHold reports whether rack r may hold a replica of one of the maps of
// job jr that never launched, which the job's index lists (State.blocks):
// if not, neither rack r nor any of its nodes has one, and the index need
// not be asked. A killed map, pending again, is in State.requeued, which
// lookup and localTask ask first; so whenever they ask the index, it can
// only answer with a map that never launched, and a rack or node it once
// found exhausted stays so.
//
// (Here and below, the modulo of a word's index only spares a bounds
// check: chooseFilter picks a kind whose places all have bits.)
func (s *State) mayHold(j int, jr *jobRec, r int32) bool {
	switch s.filterBy {
	case FilterRacks:
		u := uint32(r) // unsigned: no fix-up for negatives in the division
		return jr.racks[u/64%rackFilterWords]&(1<<(u%64)) != 0
	case FilterNodes:
		f, sp := &s.nodeFilter[j], &s.rackSpan[r]
		return f[sp.w0%nodeFilterWords]&sp.m0|f[sp.w1%nodeFilterWords]&sp.m1 != 0
	}
	return true
}

// nodeMayHold is mayHold for a node: with a bit a node, that node's bit.
// On the benchmark's 1000 nodes a job's replicas lie in every one of the 50
// racks, so a bit a rack rules nothing out, while seven in ten of delay
// scheduling's locality probes ask a node that holds none, each a seek into
// a cold index without the node's bit. (Only NodeLocal asks about a node
// alone; of the built-in policies, only delay scheduling calls it.)
func (s *State) nodeMayHold(j int, jr *jobRec, node int) bool {
	// mayHold's rack case written again, not called: with the call this
	// no longer inlines into localTask.
	switch s.filterBy {
	case FilterRacks:
		u := uint32(s.rack[node]) // as in mayHold
		return jr.racks[u/64%rackFilterWords]&(1<<(u%64)) != 0
	case FilterNodes:
		u := uint32(node)
		return s.nodeFilter[j][u/64%nodeFilterWords]&(1<<(u%64)) != 0
	}
	return true
}

// exhausted records that the index found no never-launched map of job jr
// in rack r (a killed one, pending again, may lie before its nodes' cursors;
// it is in State.requeued).
func (s *State) exhausted(j int, jr *jobRec, r int32) {
	switch s.filterBy {
	case FilterRacks:
		u := uint32(r) // as in mayHold
		jr.racks[u/64%rackFilterWords] &^= 1 << (u % 64)
	case FilterNodes:
		f, sp := &s.nodeFilter[j], &s.rackSpan[r]
		f[sp.w0%nodeFilterWords] &^= sp.m0
		f[sp.w1%nodeFilterWords] &^= sp.m1
	default:
		return
	}
	s.exhaustions++
}

// nodeExhausted is exhausted for a node, which only a bit a node records.
func (s *State) nodeExhausted(j, node int) {
	if s.filterBy == FilterNodes {
		u := uint32(node) // as in mayHold
		if w := &s.nodeFilter[j][u/64%nodeFilterWords]; *w&(1<<(u%64)) != 0 {
			*w &^= 1 << (u % 64)
			s.exhaustions++
		}
	}
}

// spanMask is the bits of word w that lie in [lo, hi), lo < hi.
func spanMask(w, lo, hi int32) uint64 {
	m := ^uint64(0)
	if b := w * 64; lo > b {
		m <<= uint(lo - b)
	}
	if e := w*64 + 64; hi < e {
		m &= ^uint64(0) >> uint(e-hi)
	}
	return m
}

// rackNodes is rack r's nodes that can hold blocks: [lo, hi). (Extra
// nodes, which share a rack with a primary one, hold none.)
func (s *State) rackNodes(r int32) (lo, hi int32) {
	return int32(s.rackLo[r]), int32(s.rackLo[r+1])
}

// rank orders localities for choosing: a task that reads no input is as good
// as a node-local one.
func rank(l Locality) int {
	if l == NoInput {
		return 0
	}
	return int(l)
}

// locality is where task t would run on node, from its replicas.
func (s *State) locality(t int32, node int) Locality {
	if s.tasks[t].kind == Reduce || s.jobs[s.tasks[t].job].noInput {
		return NoInput
	}
	b := s.blocks(int(s.tasks[t].job))
	lo, hi := s.rackNodes(s.rack[node])
	switch {
	case b.has(int32(node), t):
		return NodeLocal
	case b.hasIn(lo, hi, t):
		return RackLocal
	}
	return Remote
}

// base is task t's duration node-local on an unslowed node (its job's
// spec's, copied into its record).
func (s *State) base(t int32) float64 { return s.tasks[t].base }

func (s *State) launch(j, node int, k Kind) {
	jr := &s.jobs[j]
	if jr.pending[k] == 0 || !jr.arrived || (k == Reduce && !jr.redsReady) {
		panic(fmt.Sprintf("sim: policy %s assigned job %d, which has no pending %s task", s.hooks.Name, j, k))
	}
	t, loc := s.findTask(j, node, k)
	if i := slices.Index(s.requeuedOf(j), t); i >= 0 {
		s.requeued[j] = slices.Delete(s.requeued[j], i, i+1)
	}
	tr := &s.tasks[t]
	s.found.ok = false
	tr.state, tr.start, tr.node, tr.loc = taskRunning, s.now, int32(node), loc
	d := s.base(t) * s.slow[node]
	switch loc {
	case RackLocal:
		d *= s.set.RackFactor
	case Remote:
		d *= s.set.RemoteFactor
	}
	slots := s.slotTask[k][node*s.slots[k] : (node+1)*s.slots[k]]
	i := slices.Index(slots, -1)
	slots[i] = t
	tr.slot = uint16(i) // MaxSlotsPerNode fits
	if s.free[k][node]--; s.free[k][node] == 0 {
		s.markFull(k, node)
	}
	jr.pending[k]--
	jr.running[k]++
	s.noteChanged(j, k)
	if jr.pending[k] == 0 {
		s.removeRunnable(j, k)
	}
	if !jr.started {
		jr.started, jr.start = true, s.now
	}
	if k == Reduce && !jr.mapsShuffled {
		tr.held = true // an early reduce: its end is scheduled by reducesReady
	} else {
		s.queue.pushTaskEnd(event{t: s.now + d, kind: evTaskEnd, arg: t, attempt: tr.attempt}, tr.job)
	}
	s.trace(TraceStart, j, int(t), node, loc)
}

// freeSlot releases task t's slot and adds its time to the busy total.
func (s *State) freeSlot(t int32) {
	tr := &s.tasks[t]
	s.found.ok = false
	k, node := tr.kind, int(tr.node)
	slot := &s.slotTask[k][node*s.slots[k]+int(tr.slot)]
	if *slot != t {
		panic(fmt.Sprintf("sim: task %d freed from slot %d of node %d, which holds task %d", t, tr.slot, node, *slot))
	}
	*slot = -1
	if s.lazy > 0 {
		s.realize() // the sweeps pending were of the slots free before this one
	}
	if s.free[k][node]++; s.free[k][node] == 1 {
		s.markFree(k, node)
	}
	s.busy[k] += s.now - tr.start
	s.jobs[tr.job].running[k]--
	s.noteChanged(int(tr.job), k)
}

// noteChanged lists job j in changed[k], if a policy watches the jobs.
func (s *State) noteChanged(j int, k Kind) {
	if jr := &s.jobs[j]; s.watching && !jr.changed[k] {
		jr.changed[k] = true
		s.changed[k] = append(s.changed[k], int32(j))
	}
}

func (s *State) taskEnd(t int32, attempt uint16) {
	tr := &s.tasks[t]
	if tr.attempt != attempt || tr.state != taskRunning {
		return // a killed attempt's end
	}
	s.freeSlot(t)
	tr.state = taskDone
	j := int(tr.job)
	jr := &s.jobs[j]
	k := tr.kind
	jr.done[k]++
	if k == Map {
		jr.loc[tr.loc]++
		if jr.done[Map] == jr.mapHi-jr.mapLo {
			s.dropBlocks(j)
		}
	}
	s.trace(TraceEnd, j, int(t), int(tr.node), tr.loc)
	if k == Map && jr.redHi > jr.redLo {
		maps := jr.mapHi - jr.mapLo
		if f := s.set.ReduceSlowstart; f > 0 && float64(jr.done[Map]) >= math.Ceil(f*float64(maps)) {
			s.reducesRunnable(j)
		}
		if jr.done[Map] == maps {
			s.queue.push(event{t: s.now + jr.shuffle, kind: evReduceReady, arg: int32(j)})
		}
	}
	finished := jr.done[Map]+jr.done[Reduce] == jr.redHi-jr.mapLo
	if finished {
		jr.finished, jr.finish = true, s.now
		s.unfinished--
		s.active--
		s.lastEnd = s.now
		s.trace(TraceFinish, j, -1, -1, NoInput)
	}
	if s.hooks.TaskEnded != nil {
		s.hooks.TaskEnded(int(t))
	}
	if finished && s.hooks.JobFinished != nil {
		s.hooks.JobFinished(j)
	}
	s.wakeUp(int(tr.node))
}

// Kill stops a running task: its work is lost, its slot is freed (and
// offered, as after a task end) and it waits to run again, first in its job.
// It reports whether the task was running.
func (s *State) Kill(task int) bool {
	if s.ref != nil {
		return s.ref.kill(task)
	}
	tr := &s.tasks[task]
	if tr.state != taskRunning {
		return false
	}
	s.freeSlot(int32(task))
	tr.state = taskPending
	tr.held = false
	tr.attempt++
	j := int(tr.job)
	jr := &s.jobs[j]
	jr.pending[tr.kind]++
	if s.requeued == nil {
		s.requeued = make([][]int32, len(s.jobs))
	}
	s.requeued[j] = append(s.requeued[j], int32(task))
	s.addRunnable(j, tr.kind)
	s.trace(TraceKill, j, task, int(tr.node), tr.loc)
	s.wakeUp(int(tr.node))
	return true
}

// SetSlowdown makes tasks that start on node from now on run factor times
// longer (a node on an overcommitted machine, for example); factor ≥ 1 is
// usual, and it must be finite and positive.
func (s *State) SetSlowdown(node int, factor float64) {
	if !(factor > 0) || math.IsInf(factor, 0) {
		panic(fmt.Sprintf("sim: SetSlowdown(%d, %v): factor must be finite and positive", node, factor))
	}
	if s.ref != nil {
		s.ref.setSlowdown(node, factor)
		return
	}
	s.slow[node] = factor
}

// progress reports to Settings.Progress, if set. The tasks ended are
// counted from the jobs' own counts here, rarely, rather than kept at every
// task end.
func (s *State) progress() {
	if s.set.Progress == nil {
		return
	}
	done := 0
	for i := range s.jobs {
		done += int(s.jobs[i].done[Map]) + int(s.jobs[i].done[Reduce])
	}
	s.set.Progress(s.now, done, len(s.tasks))
}

// trace sends an event of kind at the current time to the tracer, if any.
// It takes the event's fields, not the event, and builds it only in emit,
// out of line, so that this check inlines: built by the caller, the event
// would be assembled at every task's start and end before the check found
// no tracer.
func (s *State) trace(kind TraceKind, job, task, node int, loc Locality) {
	if s.set.Trace != nil {
		s.emit(kind, job, task, node, loc)
	}
}

// emit is trace's event, sent. Kept out of line: inlined, it would take
// trace over the inliner's budget.
//
//go:noinline
func (s *State) emit(kind TraceKind, job, task, node int, loc Locality) {
	s.set.Trace.Event(TraceEvent{Time: s.now, Kind: kind, Job: job, Task: task, Node: node, Locality: loc})
}

// Now is the current simulated time in seconds.
func (s *State) Now() float64 { return s.now }

// Nodes is the number of nodes, extras included.
func (s *State) Nodes() int { return s.nodes }

// Rack is node's rack.
func (s *State) Rack(node int) int { return int(s.rack[node]) }

// Slots is the number of slots of kind per node.
func (s *State) Slots(k Kind) int { return s.slots[k] }

// FreeSlots is the number of node's free slots of kind.
func (s *State) FreeSlots(node int, k Kind) int { return int(s.free[k][node]) }

// SlotTask is the task in node's slot i of kind, or −1.
func (s *State) SlotTask(node int, k Kind, i int) int {
	return int(s.slotTask[k][node*s.slots[k]+i])
}

// Jobs is the number of jobs in the workload.
func (s *State) Jobs() int { return len(s.jobs) }

// Job is job j's specification (read only).

// User is job j's user as a small integer, users numbered in order of first
// appearance in the workload; Users is how many there are.
func (s *State) User(j int) int { return int(s.jobs[j].user) }

// Users is the number of distinct users.
func (s *State) Users() int { return len(s.users) }

// Arrived reports whether job j has been submitted.
func (s *State) Arrived(j int) bool { return s.jobs[j].arrived }

// Finished reports whether job j's last task has ended.
func (s *State) Finished(j int) bool { return s.jobs[j].finished }

// Pending is the number of job j's tasks of kind that could start now.
func (s *State) Pending(j int, k Kind) int {
	jr := &s.jobs[j]
	if !jr.arrived || (k == Reduce && !jr.redsReady) {
		return 0
	}
	return int(jr.pending[k])
}

// Remaining is the number of job j's tasks of kind not yet done.
func (s *State) Remaining(j int, k Kind) int {
	jr := &s.jobs[j]
	if k == Map {
		return int(jr.mapHi-jr.mapLo) - int(jr.done[Map])
	}
	return int(jr.redHi-jr.redLo) - int(jr.done[Reduce])
}

// Running is the number of job j's tasks of kind running now.
func (s *State) Running(j int, k Kind) int { return int(s.jobs[j].running[k]) }

// Runnable lists the jobs with a task of kind that could start now, in no
// particular order. The slice is the core's: read it, do not keep it past the
// call. A policy that keeps its own ordering of these jobs learns of changes
// from WatchJobs and TakeChanged instead of re-reading the set.
func (s *State) Runnable(k Kind) []int32 { return s.runnable[k] }

// WatchJobs starts, for this run, the list of jobs whose running count
// changed, or that joined or left Runnable, that TakeChanged hands over: a
// policy that keeps jobs ordered by their running tasks then refiles only
// those, instead of re-checking every runnable job on every slot. Called
// from Start.
func (s *State) WatchJobs() {
	s.watching = true
	for k := range s.changed {
		for _, j := range s.changed[k] {
			s.jobs[j].changed[k] = false
		}
		s.changed[k] = s.changed[k][:0]
	}
}

// TakeChanged appends to buf[:0] the jobs whose running count of kind k
// changed, or that joined or left Runnable(k), since the last call (each
// once, in the order of their first change), empties the list and returns
// buf.
func (s *State) TakeChanged(k Kind, buf []int32) []int32 {
	buf = append(buf[:0], s.changed[k]...)
	for _, j := range s.changed[k] {
		s.jobs[j].changed[k] = false
	}
	s.changed[k] = s.changed[k][:0]
	return buf
}

// IsRunnable reports whether job j is in Runnable(k): with TakeChanged, it
// tells a job that joined from one that left.
func (s *State) IsRunnable(j int, k Kind) bool { return s.jobs[j].runPos[k] >= 0 }

// BestLocality is the best locality job j's pending tasks of kind can have on
// node: what it would get if it were given the slot now.
func (s *State) BestLocality(j, node int, k Kind) Locality {
	_, l := s.findTask(j, node, k)
	return l
}

// TaskJob, TaskKind, TaskNode and TaskStart describe task t (its node and
// start are those of its current or last attempt).
func (s *State) TaskJob(t int) int { return int(s.tasks[t].job) }

// TaskKind is task t's kind.
func (s *State) TaskKind(t int) Kind { return s.tasks[t].kind }

// TaskNode is the node of task t's current or last attempt, −1 before.
func (s *State) TaskNode(t int) int { return int(s.tasks[t].node) }

// TaskStart is the start time of task t's current or last attempt.
func (s *State) TaskStart(t int) float64 { return s.tasks[t].start }

// TaskBase is task t's base duration: node-local on an unslowed node.
func (s *State) TaskBase(t int) float64 { return s.base(int32(t)) }

// Serial is this run's identity: distinct for every run in the process, a
// run laid out again in the memory of an earlier one included, and the same
// for the whole run. A policy that keeps per-run state between calls records
// it at Start and compares it later, to tell whether that state is of this
// run (FIFO does, for a policy that embeds it and does not call its Start)
// without holding the State, and so its memory, past the run.
func (s *State) Serial() uint64 { return s.serial }

// NodeLocal reports whether job j has a pending task of kind that runs on
// node at its best: a node-local map, or a task that reads no input (a
// reduce, or a map of a job without input). It is BestLocality(j, node, k)
// being NodeLocal or NoInput, found without looking for a rack-local or
// remote task: the check delay scheduling makes for every job it may skip
// (Fair with Delay > 0), much cheaper than BestLocality when the answer is
// no. Like BestLocality, it remembers a node-local map it finds, so that
// assigning the slot to j next launches that map without a second search.
// Ask it only of a job with a pending task of kind (Pending(j, k) > 0): of
// another the answer means nothing.
func (s *State) NodeLocal(j, node int, k Kind) bool { return s.localTask(j, node, k) }

// JobOutcome is how a job's run went: its submission, first start and
// finish times, and its map tasks counted by locality.
type JobOutcome struct {
	Arrival, Start, Finish float64
	Loc                    [4]int
}

// Outcome is job j's JobOutcome, final once Run has returned.
func (s *State) Outcome(j int) JobOutcome {
	jr := &s.jobs[j]
	o := JobOutcome{Arrival: jr.arrival, Start: jr.start, Finish: jr.finish}
	for l := range o.Loc {
		o.Loc[l] = int(jr.loc[l])
	}
	return o
}

// Busy is the slot-seconds of each kind the tasks used, killed attempts'
// included.
func (s *State) Busy() [2]float64 { return s.busy }

// LastEnd is the time the last task ended: the run's makespan.
func (s *State) LastEnd() float64 { return s.lastEnd }

// Events is the number of events the run handled.
func (s *State) Events() int64 { return s.events }

// Tasks is the number of tasks of all jobs.
func (s *State) Tasks() int { return len(s.tasks) }
