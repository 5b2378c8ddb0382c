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

// eventHeap is a binary min-heap on (t, seq). Sequence numbers are unique, so
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
	i := len(h.ev) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.ev[i].before(&h.ev[p]) {
			break
		}
		h.ev[i], h.ev[p] = h.ev[p], h.ev[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	if h.next < len(h.sorted) && (len(h.ev) == 0 || h.sorted[h.next].before(&h.ev[0])) {
		h.next++
		return h.sorted[h.next-1]
	}
	top := h.ev[0]
	n := len(h.ev) - 1
	h.ev[0] = h.ev[n]
	h.ev = h.ev[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.ev[r].before(&h.ev[l]) {
			m = r
		}
		if !h.ev[m].before(&h.ev[i]) {
			break
		}
		h.ev[i], h.ev[m] = h.ev[m], h.ev[i]
		i = m
	}
	return top
}

func (h *eventHeap) len() int { return len(h.ev) + len(h.sorted) - h.next }
