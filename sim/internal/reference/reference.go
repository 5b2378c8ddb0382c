// Package reference is a plain event-list simulator of the model package sim
// simulates: the executable specification of what a run means. It keeps no
// index, cache, filter, calendar or lazy list: events sit in one binary heap
// ordered by (time, sequence number), replicas are drawn for every job before
// the run starts, a task is chosen by looking at every pending task of its
// job, and a wake lists its nodes when it happens. It is written to be read,
// not to be fast (a run costs time in tasks × jobs), and sim's tests require
// the fast engine to give the same per-job results as this one, policy by
// policy, on random workloads, the shipped traces and the built-in
// workloads.
//
// The model, in the order a run meets it:
//
//   - Nodes 0..Nodes−1 are the primary nodes, node i in rack ⌊i·Racks/Nodes⌋;
//     extra nodes follow, each in the rack of the primary node it shares a
//     machine with, and hold no blocks.
//   - Tasks are numbered job by job, each job's maps before its reduces.
//   - A map task that reads input has its block's replicas from the job's
//     Blocks, or drawn HDFS 1's way (placeReplicas) from one PCG generator
//     seeded from Settings.Seed, job by job in workload order, task by task.
//   - Events at one time happen in the order they were queued; arrivals are
//     queued first (stably sorted by time), then the first heartbeats, then
//     the policy's first tick. When the last event of an instant has
//     happened, the nodes woken at that instant are offered their free
//     slots, in the order they were woken.
//   - An offer asks the policy, for each free slot, map slots first, which job
//     gets it; the engine launches that job's best-placed pending task
//     (Engine.Choose).
package reference

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Kind is a slot's and a task's kind, numbered as sim numbers them.
type Kind uint8

// The kinds.
const (
	Map Kind = iota
	Reduce
)

// Locality is where a map task runs relative to its block, numbered as sim
// numbers them.
type Locality uint8

// The localities, best first; NoInput is a task that reads no block.
const (
	NodeLocal Locality = iota
	RackLocal
	Remote
	NoInput
)

// Idle and Later are the answers to Assign other than a job, as in sim.
const (
	Idle  = -1
	Later = -2
)

// Cluster is the cluster with every default filled in.
type Cluster struct {
	Nodes, Racks, MapSlots, ReduceSlots, Replication int
	Extras                                           []int // extra node Nodes+i shares the machine of primary node Extras[i]
}

// Job is one job: its tasks' base durations (node-local, unslowed).
type Job struct {
	Arrival       float64
	Maps, Reduces []float64
	Shuffle       float64
	NoInput       bool
	Blocks        [][]int // per map task, the nodes of its replicas; nil: drawn
}

// Settings are the run's settings with every default filled in.
type Settings struct {
	Seed                                           uint64
	Heartbeat, IdleRetry, RackFactor, RemoteFactor float64
	ReduceSlowstart                                float64
	IgnoreLocality                                 bool
}

// Policy is what the engine asks and tells: sim's Policy with its optional
// hooks, behind an adapter (sim's reference test) that shows the policy this
// engine's state. Interval is 0 for a policy without periodic ticks.
type Policy interface {
	Start()
	Assign(node int, k Kind) int
	Offering(node int)
	JobArrived(j int)
	TaskEnded(t int)
	JobFinished(j int)
	RunnableChanged(j int, k Kind, runnable bool)
	// Changed is told when job j's running count of kind k changes, or it
	// joins or leaves the runnable jobs of kind k (what sim's TakeChanged
	// lists).
	Changed(j int, k Kind)
	Interval() float64
	Tick()
}

// Task states.
const (
	Pending uint8 = iota
	Running
	Done
)

// TaskState is one task's state.
type TaskState struct {
	Job      int
	Kind     Kind
	Base     float64
	State    uint8
	Node     int // of the current or last attempt, −1 before
	Start    float64
	Loc      Locality
	Attempt  int
	Held     bool // an early reduce waiting for its job's maps to be shuffled
	Requeued bool // killed, waiting to run again
	replicas []int
}

// JobState is one job's state.
type JobState struct {
	Lo, Mid, Hi      int // maps are tasks Lo..Mid−1, reduces Mid..Hi−1
	Arrived          bool
	Finished         bool
	RedsReady        bool // its reduces may launch
	Shuffled         bool // its maps are done and shuffled
	Started          bool
	Pending, Running [2]int
	Done             [2]int
	Start, Finish    float64
	Loc              [4]int // completed maps by locality
	requeued         []int  // killed tasks in the order they were killed
}

// Engine is one run.
type Engine struct {
	C        Cluster
	Set      Settings
	Jobs     []JobState
	Tasks    []TaskState
	Rack     []int
	Free     [2][]int
	SlotTask [2][][]int // node's slots of a kind: the task in each, or −1
	Slow     []float64
	Now      float64
	// Runnable lists, per kind, the jobs with a task that could start now,
	// in the order they joined, a leaver's place taken by the last.
	Runnable [2][]int
	// Busy is the slot-seconds of every ended or killed attempt.
	Busy    [2]float64
	LastEnd float64

	// Dirty lists the jobs, tasks and nodes whose state changed since the
	// list was last emptied, for the adapter to copy.
	DirtyJobs, DirtyTasks, DirtyNodes []int

	jobsIn     []Job
	p          Policy
	events     eventHeap
	seq        uint64
	unfinished int
	active     int
	wake       []int
	inWake     []bool
	offered    []bool
	retrying   []bool
	hbStopped  []bool
	tickStop   bool
}

// New lays out a run of jobs on cluster c, drawing the replicas.
func New(c Cluster, jobs []Job, set Settings) *Engine {
	e := &Engine{C: c, Set: set, jobsIn: jobs}
	nodes := c.Nodes + len(c.Extras)
	e.Rack = make([]int, nodes)
	for i := range c.Nodes {
		e.Rack[i] = i * c.Racks / c.Nodes
	}
	for i, p := range c.Extras {
		e.Rack[c.Nodes+i] = e.Rack[p]
	}
	slots := [2]int{c.MapSlots, c.ReduceSlots}
	for k := range 2 {
		e.Free[k] = make([]int, nodes)
		e.SlotTask[k] = make([][]int, nodes)
		for n := range nodes {
			e.Free[k][n] = slots[k]
			e.SlotTask[k][n] = slices.Repeat([]int{-1}, slots[k])
		}
	}
	e.Slow = slices.Repeat([]float64{1}, nodes)
	e.inWake, e.offered = make([]bool, nodes), make([]bool, nodes)
	e.retrying, e.hbStopped = make([]bool, nodes), make([]bool, nodes)
	e.Jobs = make([]JobState, len(jobs))
	for j, job := range jobs {
		js := &e.Jobs[j]
		js.Lo = len(e.Tasks)
		for _, d := range job.Maps {
			e.Tasks = append(e.Tasks, TaskState{Job: j, Kind: Map, Base: d, Node: -1})
		}
		js.Mid = len(e.Tasks)
		for _, d := range job.Reduces {
			e.Tasks = append(e.Tasks, TaskState{Job: j, Kind: Reduce, Base: d, Node: -1, Loc: NoInput})
		}
		js.Hi = len(e.Tasks)
		js.Pending = [2]int{js.Mid - js.Lo, js.Hi - js.Mid}
	}
	e.placeBlocks()
	return e
}

// noInput reports whether job j's maps read no block.
func (e *Engine) noInput(j int) bool { return e.jobsIn[j].NoInput || e.Set.IgnoreLocality }

// placeBlocks gives every map task that reads input its replicas.
func (e *Engine) placeBlocks() {
	rng := rand.New(rand.NewPCG(derive(e.Set.Seed, 1), derive(e.Set.Seed, 2)))
	for j := range e.Jobs {
		if e.noInput(j) {
			continue
		}
		js := &e.Jobs[j]
		for t := js.Lo; t < js.Mid; t++ {
			if b := e.jobsIn[j].Blocks; b != nil {
				e.Tasks[t].replicas = b[t-js.Lo]
			} else {
				e.Tasks[t].replicas = e.placeReplicas(rng)
			}
		}
	}
}

// placeReplicas draws one block's replicas as HDFS 1 places them: the
// first on a random primary node, the second on a node of another rack (of
// another node, with one rack), the third on another node of the second's
// rack, any more on random nodes not holding one.
func (e *Engine) placeReplicas(rng *rand.Rand) []int {
	c := e.C
	rackNodes := func(r int) []int {
		var ns []int
		for n := range c.Nodes {
			if e.Rack[n] == r {
				ns = append(ns, n)
			}
		}
		return ns
	}
	reps := []int{rng.IntN(c.Nodes)}
	if c.Replication >= 2 {
		var others []int
		for n := range c.Nodes {
			if (c.Racks > 1 && e.Rack[n] != e.Rack[reps[0]]) || (c.Racks == 1 && n != reps[0]) {
				others = append(others, n)
			}
		}
		reps = append(reps, others[rng.IntN(len(others))])
	}
	if c.Replication >= 3 {
		if ns := rackNodes(e.Rack[reps[1]]); len(ns) > 1 && c.Racks > 1 {
			for {
				if n := ns[rng.IntN(len(ns))]; !slices.Contains(reps, n) {
					reps = append(reps, n)
					break
				}
			}
		}
	}
	for len(reps) < c.Replication {
		if n := rng.IntN(c.Nodes); !slices.Contains(reps, n) {
			reps = append(reps, n)
		}
	}
	return reps
}

// derive is sim's seed derivation: component's stream of the master seed.
func derive(seed, component uint64) uint64 {
	z := seed + component*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Locality is where task t would run on node.
func (e *Engine) Locality(t, node int) Locality {
	tk := &e.Tasks[t]
	if tk.Kind == Reduce || e.noInput(tk.Job) {
		return NoInput
	}
	if slices.Contains(tk.replicas, node) {
		return NodeLocal
	}
	for _, n := range tk.replicas {
		if e.Rack[n] == e.Rack[node] {
			return RackLocal
		}
	}
	return Remote
}

// rank orders localities for choosing: no input is as good as node-local.
func rank(l Locality) int {
	if l == NoInput {
		return 0
	}
	return int(l)
}

// Choose is the task job j launches on node in a slot of kind k, and its
// locality; −1 if the job has no pending task of the kind. A task killed
// and waiting to run again (requeued) comes first at equal rank, and
// among requeued tasks of one rank the first killed:
//
//	requeued node-local (or reading no input)
//	never launched node-local, the lowest-numbered
//	requeued rack-local
//	never launched rack-local, the lowest-numbered
//	requeued remote
//	never launched, the lowest-numbered
func (e *Engine) Choose(j, node int, k Kind) (int, Locality) {
	js := &e.Jobs[j]
	req, reqLoc := -1, Locality(0)
	for _, t := range js.requeued {
		if e.Tasks[t].Kind != k {
			continue
		}
		if l := e.Locality(t, node); req < 0 || rank(l) < rank(reqLoc) {
			req, reqLoc = t, l
		}
	}
	fresh := [3]int{-1, -1, -1} // the lowest never-launched by rank
	lo, hi := js.Lo, js.Mid
	if k == Reduce {
		lo, hi = js.Mid, js.Hi
	}
	for t := lo; t < hi; t++ {
		if tk := &e.Tasks[t]; tk.State == Pending && !tk.Requeued {
			if r := rank(e.Locality(t, node)); fresh[r] < 0 {
				fresh[r] = t
			}
		}
	}
	for r := range 3 {
		if req >= 0 && rank(reqLoc) == r {
			return req, reqLoc
		}
		if t := fresh[r]; t >= 0 {
			return t, e.Locality(t, node)
		}
	}
	return -1, NoInput
}

// Pending is job j's count of tasks of kind k that could start now.
func (e *Engine) Pending(j int, k Kind) int {
	js := &e.Jobs[j]
	if !js.Arrived || (k == Reduce && !js.RedsReady) {
		return 0
	}
	return js.Pending[k]
}

func (e *Engine) dirtyJob(j int)  { e.DirtyJobs = append(e.DirtyJobs, j) }
func (e *Engine) dirtyTask(t int) { e.DirtyTasks = append(e.DirtyTasks, t) }
func (e *Engine) dirtyNode(n int) { e.DirtyNodes = append(e.DirtyNodes, n) }

// Run runs the policy to the end; the error is a stall or a bad interval.
func (e *Engine) Run(p Policy) error {
	e.p = p
	e.unfinished = len(e.Jobs)
	order := make([]int, len(e.Jobs))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(e.jobsIn[a].Arrival, e.jobsIn[b].Arrival) })
	for _, j := range order {
		e.push(e.jobsIn[j].Arrival, evArrive, j, 0)
	}
	nodes := len(e.Rack)
	if h := e.Set.Heartbeat; h > 0 {
		for n := range nodes {
			e.push(h*float64(n)/float64(nodes), evHeartbeat, n, 0)
		}
	}
	p.Start()
	iv := p.Interval()
	if iv != 0 {
		if !(iv > 0) || math.IsInf(iv, 0) {
			return fmt.Errorf("reference: allocation interval must be finite and positive, got %v", iv)
		}
		e.push(0, evTick, 0, 0)
	}
	for e.unfinished > 0 && len(e.events) > 0 {
		ev := e.events.pop()
		e.Now = ev.t
		e.handle(ev, iv)
		if len(e.events) == 0 || e.events[0].t != e.Now {
			e.drain()
		}
	}
	if e.unfinished > 0 {
		return fmt.Errorf("reference: the run stalled at t = %g s with %d jobs unfinished", e.Now, e.unfinished)
	}
	return nil
}

func (e *Engine) handle(ev event, iv float64) {
	switch ev.kind {
	case evArrive:
		e.arrive(ev.arg)
	case evTaskEnd:
		e.taskEnd(ev.arg, ev.attempt)
	case evReduceReady:
		e.reducesReady(ev.arg)
	case evHeartbeat:
		e.poke(ev.arg)
		if e.active > 0 {
			e.push(ev.t+e.Set.Heartbeat, evHeartbeat, ev.arg, 0)
		} else {
			e.hbStopped[ev.arg] = true
		}
	case evRetry:
		e.retrying[ev.arg] = false
		e.poke(ev.arg)
	case evTick:
		e.p.Tick()
		if e.active > 0 {
			e.push(ev.t+iv, evTick, 0, 0)
		} else {
			e.tickStop = true
		}
	}
}

// nextOnGrid is the first time off + k·period, k ≥ 0 whole, at or after now.
func nextOnGrid(off, period, now float64) float64 {
	t := off + math.Ceil(max(0, now-off)/period)*period
	for t < now {
		t += period
	}
	return t
}

func (e *Engine) arrive(j int) {
	js := &e.Jobs[j]
	js.Arrived = true
	e.dirtyJob(j)
	e.active++
	if e.tickStop {
		e.tickStop = false
		e.push(nextOnGrid(0, e.p.Interval(), e.Now), evTick, 0, 0)
	}
	if h := e.Set.Heartbeat; h > 0 {
		for n, stopped := range e.hbStopped {
			if stopped {
				e.hbStopped[n] = false
				e.push(nextOnGrid(h*float64(n)/float64(len(e.Rack)), h, e.Now), evHeartbeat, n, 0)
			}
		}
	}
	if js.Pending[Map] > 0 {
		e.addRunnable(j, Map)
	}
	if js.Mid == js.Lo {
		e.push(e.Now+e.jobsIn[j].Shuffle, evReduceReady, j, 0)
	}
	e.p.JobArrived(j)
	e.wakeIdle(Map)
}

func (e *Engine) reducesReady(j int) {
	js := &e.Jobs[j]
	js.Shuffled = true
	for t := js.Mid; t < js.Hi; t++ {
		if tk := &e.Tasks[t]; tk.Held {
			tk.Held = false
			e.push(e.Now+tk.Base*e.Slow[tk.Node], evTaskEnd, t, tk.Attempt)
		}
	}
	e.reducesRunnable(j)
}

func (e *Engine) reducesRunnable(j int) {
	js := &e.Jobs[j]
	if js.RedsReady {
		return
	}
	js.RedsReady = true
	e.dirtyJob(j)
	if js.Pending[Reduce] > 0 {
		e.addRunnable(j, Reduce)
		e.wakeIdle(Reduce)
	}
}

func (e *Engine) addRunnable(j int, k Kind) {
	if slices.Contains(e.Runnable[k], j) {
		return
	}
	e.Runnable[k] = append(e.Runnable[k], j)
	e.p.Changed(j, k)
	e.p.RunnableChanged(j, k, true)
}

func (e *Engine) removeRunnable(j int, k Kind) {
	i := slices.Index(e.Runnable[k], j)
	if i < 0 {
		return
	}
	last := len(e.Runnable[k]) - 1
	e.Runnable[k][i] = e.Runnable[k][last]
	e.Runnable[k] = e.Runnable[k][:last]
	e.p.Changed(j, k)
	e.p.RunnableChanged(j, k, false)
}

// poke lists node to be offered at the end of the instant, unless listed.
func (e *Engine) poke(node int) {
	if !e.inWake[node] {
		e.inWake[node] = true
		e.wake = append(e.wake, node)
	}
}

// Wake is a policy's wake: the node is offered at the end of the instant,
// or, with heartbeats, at its next heartbeat.
func (e *Engine) Wake(node int) {
	if e.Set.Heartbeat == 0 {
		e.poke(node)
	}
}

// wakeIdle lists, without heartbeats, every node with a free slot of kind k
// that is not listed and was not offered earlier in this instant's offers,
// in node order.
func (e *Engine) wakeIdle(k Kind) {
	if e.Set.Heartbeat > 0 {
		return
	}
	for n := range e.Rack {
		if e.Free[k][n] > 0 && !e.inWake[n] && !e.offered[n] {
			e.poke(n)
		}
	}
}

// drain offers the woken nodes in order; offers may wake more. Once no job
// has a pending task, the offers left would decide nothing.
func (e *Engine) drain() {
	for i := 0; i < len(e.wake); i++ {
		if len(e.Runnable[Map]) == 0 && len(e.Runnable[Reduce]) == 0 {
			break
		}
		n := e.wake[i]
		e.inWake[n] = false
		e.offered[n] = true
		e.offer(n)
	}
	for _, n := range e.wake {
		e.inWake[n], e.offered[n] = false, false
	}
	e.wake = e.wake[:0]
}

func (e *Engine) offer(node int) {
	if (e.Free[Map][node] == 0 || len(e.Runnable[Map]) == 0) && (e.Free[Reduce][node] == 0 || len(e.Runnable[Reduce]) == 0) {
		return
	}
	e.p.Offering(node)
	for k := Map; k <= Reduce; k++ {
		for e.Free[k][node] > 0 && len(e.Runnable[k]) > 0 {
			j := e.p.Assign(node, k)
			if j < 0 {
				if j == Later && e.Set.Heartbeat == 0 && !e.retrying[node] {
					e.retrying[node] = true
					e.push(e.Now+e.Set.IdleRetry, evRetry, node, 0)
				}
				break
			}
			e.launch(j, node, k)
		}
	}
}

func (e *Engine) launch(j, node int, k Kind) {
	if e.Pending(j, k) == 0 {
		panic(fmt.Sprintf("reference: job %d assigned with no pending task of kind %d", j, k))
	}
	js := &e.Jobs[j]
	t, loc := e.Choose(j, node, k)
	if i := slices.Index(js.requeued, t); i >= 0 {
		js.requeued = slices.Delete(js.requeued, i, i+1)
	}
	tk := &e.Tasks[t]
	tk.State, tk.Start, tk.Node, tk.Loc, tk.Requeued = Running, e.Now, node, loc, false
	d := tk.Base * e.Slow[node]
	switch loc {
	case RackLocal:
		d *= e.Set.RackFactor
	case Remote:
		d *= e.Set.RemoteFactor
	}
	slot := slices.Index(e.SlotTask[k][node], -1)
	e.SlotTask[k][node][slot] = t
	e.Free[k][node]--
	js.Pending[k]--
	js.Running[k]++
	e.dirtyJob(j)
	e.dirtyTask(t)
	e.dirtyNode(node)
	e.p.Changed(j, k)
	if js.Pending[k] == 0 {
		e.removeRunnable(j, k)
	}
	if !js.Started {
		js.Started, js.Start = true, e.Now
	}
	if k == Reduce && !js.Shuffled {
		tk.Held = true
	} else {
		e.push(e.Now+d, evTaskEnd, t, tk.Attempt)
	}
}

// freeSlot releases task t's slot.
func (e *Engine) freeSlot(t int) {
	tk := &e.Tasks[t]
	slot := slices.Index(e.SlotTask[tk.Kind][tk.Node], t)
	e.SlotTask[tk.Kind][tk.Node][slot] = -1
	e.Free[tk.Kind][tk.Node]++
	e.Busy[tk.Kind] += e.Now - tk.Start
	e.Jobs[tk.Job].Running[tk.Kind]--
	e.dirtyJob(tk.Job)
	e.dirtyTask(t)
	e.dirtyNode(tk.Node)
	e.p.Changed(tk.Job, tk.Kind)
}

func (e *Engine) taskEnd(t, attempt int) {
	tk := &e.Tasks[t]
	if tk.Attempt != attempt || tk.State != Running {
		return // a killed attempt's end
	}
	e.freeSlot(t)
	tk.State = Done
	j, k := tk.Job, tk.Kind
	js := &e.Jobs[j]
	js.Done[k]++
	maps := js.Mid - js.Lo
	if k == Map {
		js.Loc[tk.Loc]++
		if js.Hi > js.Mid {
			if f := e.Set.ReduceSlowstart; f > 0 && float64(js.Done[Map]) >= math.Ceil(f*float64(maps)) {
				e.reducesRunnable(j)
			}
			if js.Done[Map] == maps {
				e.push(e.Now+e.jobsIn[j].Shuffle, evReduceReady, j, 0)
			}
		}
	}
	finished := js.Done[Map]+js.Done[Reduce] == js.Hi-js.Lo
	if finished {
		js.Finished, js.Finish = true, e.Now
		e.unfinished--
		e.active--
		e.LastEnd = e.Now
	}
	e.p.TaskEnded(t)
	if finished {
		e.p.JobFinished(j)
	}
	e.Wake(tk.Node)
}

// Kill stops running task t: its work is lost, its slot freed and offered,
// and it waits to run again. It reports whether t was running.
func (e *Engine) Kill(t int) bool {
	tk := &e.Tasks[t]
	if tk.State != Running {
		return false
	}
	e.freeSlot(t)
	tk.State, tk.Held, tk.Requeued = Pending, false, true
	tk.Attempt++
	js := &e.Jobs[tk.Job]
	js.Pending[tk.Kind]++
	js.requeued = append(js.requeued, t)
	e.addRunnable(tk.Job, tk.Kind)
	e.Wake(tk.Node)
	return true
}

// Events.
const (
	evArrive = iota
	evTaskEnd
	evReduceReady
	evHeartbeat
	evRetry
	evTick
)

type event struct {
	t       float64
	seq     uint64
	kind    int
	arg     int
	attempt int
}

func (e *Engine) push(t float64, kind, arg, attempt int) {
	e.events.push(event{t: t, seq: e.seq, kind: kind, arg: arg, attempt: attempt})
	e.seq++
}

// eventHeap is a binary heap of events ordered by time, then by the order
// they were queued.
type eventHeap []event

func (h eventHeap) less(a, b int) bool {
	return h[a].t < h[b].t || h[a].t == h[b].t && h[a].seq < h[b].seq
}

func (h *eventHeap) push(ev event) {
	*h = append(*h, ev)
	for i := len(*h) - 1; i > 0; {
		up := (i - 1) / 2
		if !h.less(i, up) {
			break
		}
		(*h)[i], (*h)[up] = (*h)[up], (*h)[i]
		i = up
	}
}

func (h *eventHeap) pop() event {
	old := *h
	first := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < last && h.less(l, least) {
			least = l
		}
		if r < last && h.less(r, least) {
			least = r
		}
		if least == i {
			break
		}
		(*h)[i], (*h)[least] = (*h)[least], (*h)[i]
		i = least
	}
	return first
}
