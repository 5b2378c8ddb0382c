package sim

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
	blocks             *jobBlocks // its block index while its maps run (State.blocks)
}

// compile builds a run's state from a validated workload.
func compile(w *Workload, set Settings) *State {
	s := layout(w, set)
	s.replicas = s.newReplicaStream()
	return s
}

// layout builds a run's state from a validated workload, all but the block
// indexes, which are built per job when first needed (State.blocks).
func layout(w *Workload, set Settings) *State {
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
		s.freeBits[k] = make([]uint64, (nodes+63)/64)
		for i := range nodes {
			if s.slots[k] > 0 {
				s.freeBits[k][i/64] |= 1 << (i % 64)
			}
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
	s.offered = make([]uint32, nodes)
	s.gen, s.sweeping = 1, -1
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
		jr.dur = [2][]float64{j.Maps.Durations, j.Reduces.Durations}
		jr.mean = [2]float64{j.Maps.Mean, j.Reduces.Mean}
		for t0 := t; t < t0+int32(j.Maps.N()); t++ {
			s.tasks[t] = taskRec{job: int32(i), node: -1, kind: Map}
		}
		t = jr.mapLo + int32(j.Maps.N())
		jr.mapHi, jr.redLo = t, t
		for t0 := t; t < t0+int32(j.Reduces.N()); t++ {
			s.tasks[t] = taskRec{job: int32(i), node: -1, kind: Reduce, loc: NoInput}
		}
		t = jr.redLo + int32(j.Reduces.N())
		jr.redHi = t
		jr.cursor = [2]int32{jr.mapLo, jr.redLo}
		jr.pending = [2]int32{jr.mapHi - jr.mapLo, jr.redHi - jr.redLo}
	}
	return s
}
