package sim

// eventKind says what an event does when its time comes.
type eventKind uint8

const (
	evArrive      eventKind = iota // arg: job
	evTaskEnd                      // arg: task, attempt: the task's attempt when it started
	evReduceReady                  // arg: job
	evHeartbeat                    // arg: node
	evRetry                        // arg: node
	evTick                         // the policy's periodic allocation
)

// event is 24 bytes and holds no pointers, so the heap is one flat slice the
// garbage collector never scans.
type event struct {
	t       float64
	seq     uint64
	arg     int32
	attempt uint16
	kind    eventKind
}

func (a *event) before(b *event) bool {
	return a.t < b.t || (a.t == b.t && a.seq < b.seq)
}

// evLess is 1 if a comes before b, else 0, computed without branches.
func evLess(a, b *event) int {
	return b2i(a.t < b.t) | b2i(a.t == b.t)&b2i(a.seq < b.seq)
}

// b2i is 1 for true; the compiler makes it a flag move, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// arity is the heap's fan-out: a 4-ary heap is half as deep as a binary one,
// and a node's four children share a cache line or two.
const arity = 4

// eventHeap is a 4-ary min-heap on (t, seq). Sequence numbers are unique, so
// the order is total and a run never depends on how the heap breaks ties.
// Events known up front (the jobs' arrivals) are loaded, already sorted, into
// a separate run that pop merges with the heap: the heap then holds only
// what is in flight (about one event per busy slot), not every future
// arrival, and stays shallow.
type eventHeap struct {
	ev     []event
	seq    uint64
	sorted []event // loaded events, ascending (t, seq); sorted[next:] are due
	next   int
}

// load queues evs, which must be in ascending time, before any push: they
// take the first sequence numbers, so they come before anything pushed later
// for the same time, exactly as if they had been pushed first.
func (h *eventHeap) load(evs []event) {
	for i := range evs {
		evs[i].seq = h.seq
		h.seq++
	}
	h.sorted = evs
}

// peek is the next event, which must exist.
func (h *eventHeap) peek() *event {
	if h.next < len(h.sorted) && (len(h.ev) == 0 || h.sorted[h.next].before(&h.ev[0])) {
		return &h.sorted[h.next]
	}
	return &h.ev[0]
}

func (h *eventHeap) push(e event) {
	e.seq = h.seq
	h.seq++
	h.ev = append(h.ev, e)
	// Sift the hole up rather than swapping: one move per level.
	i := len(h.ev) - 1
	for i > 0 {
		p := (i - 1) / arity
		if !e.before(&h.ev[p]) {
			break
		}
		h.ev[i] = h.ev[p]
		i = p
	}
	h.ev[i] = e
}

func (h *eventHeap) pop() event {
	if h.next < len(h.sorted) && (len(h.ev) == 0 || h.sorted[h.next].before(&h.ev[0])) {
		h.next++
		return h.sorted[h.next-1]
	}
	top := h.ev[0]
	n := len(h.ev) - 1
	last := h.ev[n]
	h.ev = h.ev[:n]
	if n == 0 {
		return top
	}
	// The hole left at the root moves down along the least children to the
	// bottom, then the last event moves up from there to where it fits: it
	// came from the bottom and mostly belongs near it, so this costs about
	// one comparison a level fewer than stopping on the way down.
	ev := h.ev
	i := 0
	for {
		c := arity*i + 1
		if c+arity > n {
			if c < n {
				m := c
				for x := c + 1; x < n; x++ {
					if ev[x].before(&ev[m]) {
						m = x
					}
				}
				ev[i] = ev[m]
				i = m
			}
			break
		}
		// Which child is least is a coin toss to the branch predictor:
		// decide it with arithmetic instead.
		q := ev[c : c+arity : c+arity]
		m := evLess(&q[1], &q[0])
		m2 := 2 + evLess(&q[3], &q[2])
		m += (m2 - m) * evLess(&q[m2], &q[m])
		ev[i] = q[m]
		i = c + m
	}
	for i > 0 {
		p := (i - 1) / arity
		if !last.before(&ev[p]) {
			break
		}
		ev[i] = ev[p]
		i = p
	}
	ev[i] = last
	return top
}

func (h *eventHeap) len() int { return len(h.ev) + len(h.sorted) - h.next }
