package engine

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"unsafe"
)

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

// event is 24 bytes and holds no pointers, so the queue's pool (of events
// with their bucket links) is one flat slice the garbage collector never
// scans.
type event struct {
	t       float64
	seq     uint64
	arg     int32
	attempt uint16
	kind    eventKind
}

// before reports whether event a comes before event b: by time, then by
// sequence number. (−0 and +0 are equal times, as they compare.)
func before(a, b *event) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// Bucket counts of the queue's ring: at least minBuckets, so that a small
// run's ring is still a ring, and at most maxBuckets, 256 KiB of heads.
const (
	minBuckets = 64
	maxBuckets = 1 << 16
)

// eventQueue is the run's events in order of (time, sequence number): a
// calendar queue (Brown, CACM 1988) of fixed width in front of a heap. A
// simulation needs no more than a monotone queue, since nothing is ever
// scheduled before the event being handled, and a busy cluster's events
// are dense in the next few task durations: time is cut into buckets of a
// width w, bucket a holding the events of times in [a·w, (a+1)·w).
//
//   - cur is the current bucket's events, sorted, cur[ci:] still to come
//     (with any event pushed into the current bucket, filed in order).
//   - The ring holds the next len(head) − 1 buckets, each a list through
//     the pool, in head[a mod len(head)]; a two-level bitmap finds the
//     next that has events.
//   - far is a 4-ary heap of the events that were past the ring's end
//     when filed: a trace's hour-long tasks, the next loaded arrival
//     after a quiet spell. (The ring moves on, and some come within its
//     reach; refill takes the heap's first as soon as it is the next.)
//
// A pop takes cur's next event; when cur is spent, the next non-empty
// bucket of the ring, and the events of that bucket at the top of the heap,
// become cur, sorted. An event is thus filed once, moved once and sorted
// in a bucket of a few, where a heap of every event in flight moves it at
// every level it sifts through and a radix heap files it two or three
// times, a large part of a run's instructions, and a pop waits on a chain
// of cache misses through either. The width comes from the run
// (State.loop): the ring spans four typical task durations (typicalBase),
// so nearly every task's end lands in it, and has about a bucket per slot,
// so a saturated cluster's buckets hold a few events each. Sequence
// numbers are unique, so the order is total and a run never depends on how
// ties are broken.
type eventQueue struct {
	cur    []event
	ci     int
	curAbs uint64 // the current bucket's number
	invW   float64
	mask   uint
	head   []int32  // first event of each ring bucket, or −1
	bits   []uint64 // bit i: head[i] has events
	sum    []uint64 // bit w: bits[w] is not 0
	ringN  int      // events in the ring
	pool   []queued
	free   int32 // first free pool entry, or −1
	far    []event
	seq    uint64
	sorted []event // loaded events, ascending (t, seq); sorted[next] is queued, those after it wait
	next   int
	now    float64 // the time of the event last popped
	// warm and warmJobs are the run's task and job records, from
	// Options.PrefetchFrom tasks on (else nil): as a bucket becomes
	// current, the records the next bucket's task ends will read are
	// prefetched (ahead). At 10⁷ tasks they are out of the cache, and a pop
	// would wait on each in turn, the task's record and then its job's:
	// under fair sharing, a large part of the run's time.
	warm     []taskRec
	warmJobs []jobRec
	// warmNext and warmFilter are set when the policy is StickySlots,
	// whose freed slot usually goes to the job whose task ended, on the
	// same node. warmNext: that launch is usually of the task after the
	// one ending, found at the job's cursor (State.lookup): a job's tasks
	// launch in order where none is local, and under fair sharing a
	// saturated cluster's jobs run one task at a time. warmFilter, only
	// when the jobs' filters have a bit a rack: the lookup reads that
	// rack's word of the job's filter, on the record's last line
	// (jobRec.racks).
	warmNext, warmFilter bool
}

// queued is an event in the pool and the next of its bucket's list (or
// of the free list), −1 at the end.
type queued struct {
	e    event
	next int32
	// job is a task end's job (pushTaskEnd), else −1: in what was the
	// entry's padding, so that ahead finds the job's record without
	// waiting on the task's.
	job int32
}

// reusable is q's memory, for a queue that a later run initialises.
func (q *eventQueue) reusable() eventQueue {
	return eventQueue{cur: q.cur[:0], head: q.head, bits: q.bits, sum: q.sum, pool: q.pool[:0], far: q.far[:0]}
}

// init empties the queue for a run with room for about capacity events in
// flight, whose ring spans span seconds (0: a second a bucket). It keeps
// the memory of a queue used before if that has the room (a run laid out
// in a finished one's memory, Compile): the alone pass runs thousands of
// one-job runs, so the ring is sized to the run and filled by copies.
func (q *eventQueue) init(capacity int, span float64) {
	r := minBuckets
	for r < capacity && r < maxBuckets {
		r *= 2
	}
	w := 1.0
	if span > 0 && !math.IsInf(span, 0) {
		// At least a microsecond: bucket numbers then stay far below 2⁶²
		// for any time a run can reach.
		w = max(span/float64(r), 1e-6)
	}
	old := *q
	*q = eventQueue{cur: old.cur[:0], pool: old.pool[:0], far: old.far[:0], free: -1,
		invW: 1 / w, mask: uint(r - 1)}
	if cap(q.pool) < capacity {
		q.pool = make([]queued, 0, capacity)
	}
	q.head = resize(old.head, r)
	fill(q.head, -1)
	q.bits = resize(old.bits, r/64)
	clear(q.bits)
	q.sum = resize(old.sum, (r/64+63)/64)
	clear(q.sum)
}

// abs is the number of the bucket of time t ≥ 0.
func (q *eventQueue) abs(t float64) uint64 {
	if x := t * q.invW; x < 1<<62 {
		return uint64(x)
	}
	return 1 << 62
}

// load queues evs, which must be in ascending time, before any push: they
// take the first sequence numbers, so they come before anything pushed later
// for the same time, exactly as if they had been pushed first. They stay in
// their sorted run, and only the first not yet popped is queued (popping it
// queues the next): the queue then holds only what is in flight (about one
// event per busy slot), not every future arrival too.
func (q *eventQueue) load(evs []event) {
	for i := range evs {
		evs[i].seq = q.seq
		q.seq++
	}
	q.sorted, q.next = evs, 0
	if len(evs) > 0 {
		q.insert(evs[0], -1)
	}
}

// push queues e, which must not come before the last event popped: its time
// is at least that event's (its sequence number, the next, is later).
func (q *eventQueue) push(e event) { q.pushTaskEnd(e, -1) }

// pushTaskEnd pushes e, the end of a task of job (−1 for an event of no
// task), as push does, and keeps job beside it in the ring so that ahead
// can prefetch the job's record without first reading the task's.
func (q *eventQueue) pushTaskEnd(e event, job int32) {
	e.seq = q.seq
	q.seq++
	q.insert(e, job)
}

// insert files e, with its sequence number: in cur if it falls in the
// current bucket, else in the ring if the ring reaches its bucket, else in
// the heap.
func (q *eventQueue) insert(e event, job int32) {
	a := q.abs(e.t)
	if a <= q.curAbs {
		q.toCur(e)
		return
	}
	if a-q.curAbs > uint64(q.mask) {
		q.toFar(e)
		return
	}
	var i int32
	if i = q.free; i >= 0 {
		q.free = q.pool[i].next
		q.pool[i].e, q.pool[i].job = e, job
	} else {
		i = int32(len(q.pool))
		q.pool = append(q.pool, queued{e: e, job: job})
	}
	b := uint(a) & q.mask
	q.pool[i].next = q.head[b]
	q.head[b] = i
	q.bits[b/64] |= 1 << (b % 64)
	q.sum[b/4096] |= 1 << (b / 64 % 64)
	q.ringN++
}

// toCur files e among the current bucket's events still to come, in order.
func (q *eventQueue) toCur(e event) {
	if len(q.cur) == cap(q.cur) && q.ci > 0 {
		// Full: drop the events already popped rather than grow.
		q.cur = q.cur[:copy(q.cur, q.cur[q.ci:])]
		q.ci = 0
	}
	q.cur = append(q.cur, e)
	settle(q.cur, q.ci, len(q.cur)-1)
}

// settle moves evs[i] down to its place among evs[lo:i], which are in
// order: one step of an insertion sort.
func settle(evs []event, lo, i int) {
	e := evs[i]
	for i > lo && before(&e, &evs[i-1]) {
		evs[i] = evs[i-1]
		i--
	}
	evs[i] = e
}

// toFar pushes e on the heap of events past the ring.
func (q *eventQueue) toFar(e event) {
	h := append(q.far, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !before(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	q.far = h
}

// popFar removes and returns the heap's first event; it must not be empty.
func (q *eventQueue) popFar() event {
	h := q.far
	top, last := h[0], h[len(h)-1]
	h = h[:len(h)-1]
	if n := len(h); n > 0 {
		i := 0
		for {
			c := 4*i + 1
			if c >= n {
				break
			}
			m := c
			for k := c + 1; k < min(c+4, n); k++ {
				if before(&h[k], &h[m]) {
					m = k
				}
			}
			if !before(&h[m], &last) {
				break
			}
			h[i] = h[m]
			i = m
		}
		h[i] = last
	}
	q.far = h
	return top
}

// pop removes and returns the next event; the queue must not be empty. A
// loaded event taken queues the next loaded one.
func (q *eventQueue) pop() event {
	if q.ci == len(q.cur) {
		q.refill()
	}
	e := q.cur[q.ci]
	q.ci++
	q.now = e.t
	if q.next < len(q.sorted) && q.sorted[q.next].seq == e.seq {
		if q.next++; q.next < len(q.sorted) {
			q.insert(q.sorted[q.next], -1)
		}
	}
	return e
}

// refill makes the next bucket with events current: the ring's next, or
// the bucket of the heap's first event if that comes first (both, if they
// are the same). Its events become cur, sorted.
func (q *eventQueue) refill() {
	q.cur, q.ci = q.cur[:0], 0
	next := uint64(math.MaxUint64)
	from := uint(q.curAbs+1) & q.mask
	b := -1
	if q.ringN > 0 {
		b = q.following(from)
		next = q.curAbs + 1 + uint64((uint(b)-from)&q.mask)
	}
	if len(q.far) > 0 {
		if a := q.abs(q.far[0].t); a < next {
			next, b = a, -1
		}
	}
	q.curAbs = next
	if b >= 0 {
		n := 0
		for i := q.head[b]; i >= 0; n++ {
			x := &q.pool[i]
			q.cur = append(q.cur, x.e)
			next := x.next
			x.next = q.free
			q.free = i
			i = next
		}
		q.ringN -= n
		q.head[b] = -1
		u := uint(b)
		if q.bits[u/64] &^= 1 << (u % 64); q.bits[u/64] == 0 {
			q.sum[u/4096] &^= 1 << (u / 64 % 64)
		}
		// A bucket's list is last pushed first: reversed, a bucket of
		// events at one time (a trace's whole seconds) is in order already.
		slices.Reverse(q.cur)
		if q.ringN > 0 && q.warm != nil {
			q.ahead(uint(b+1) & q.mask)
		}
	}
	for len(q.far) > 0 && q.abs(q.far[0].t) == next {
		q.cur = append(q.cur, q.popFar())
	}
	sortEvents(q.cur)
}

// ahead prefetches what the next two buckets with events at or after ring
// bucket from will need: for the first, the records of its task ends and
// of their jobs (each job's first two lines, and its third, the rack
// filter, with warmFilter: jobRec's three lines, whole), and with warmNext
// the record of the task after each ending one; for the second,
// its list's first entry in the pool, which the next call walks. So
// each bucket's records are asked for a bucket before its events are
// popped, the misses of several events overlapping, and none waits on
// another: the job comes from the pool entry (queued.job), not from the
// task's record, which would have to arrive first. A bucket ahead, not
// more: asked for earlier, the lines are more often out of the cache again
// by the time the pops read them. The task after the ending one (warmNext)
// is the record the job's cursor reads at its next launch under fair
// sharing, else a miss of its own on that launch.
// The ring must have events (refill calls it only then).
func (q *eventQueue) ahead(from uint) {
	b := q.following(from)
	for i := q.head[b]; i >= 0; i = q.pool[i].next {
		x := &q.pool[i]
		if e := &x.e; e.kind == evTaskEnd && uint(e.arg) < uint(len(q.warm)) {
			prefetch(unsafe.Pointer(&q.warm[e.arg]))
			if j := uint(x.job); j < uint(len(q.warmJobs)) {
				jr := &q.warmJobs[j]
				prefetch(unsafe.Pointer(&jr.mapLo))
				prefetch(unsafe.Pointer(&jr.blocks))
				if q.warmFilter {
					prefetch(unsafe.Pointer(&jr.racks))
				}
			}
			// The task after this one, whose record starts the next line
			// when this one's index is odd (two records a line, the array
			// page-aligned).
			if q.warmNext && e.arg&1 == 1 && uint(e.arg)+1 < uint(len(q.warm)) {
				prefetch(unsafe.Pointer(&q.warm[e.arg+1]))
			}
		}
	}
	// The ring's buckets from b+1 round to from−1 are the later times (the
	// current bucket, from−1, has none: its events are in cur), so the
	// search finds b again only if b is the ring's one bucket with events.
	if n := q.following(uint(b+1) & q.mask); n != b {
		prefetch(unsafe.Pointer(&q.pool[q.head[n]]))
	}
}

// following is the first ring bucket with events at or after from, round
// the ring, or −1 if none has any.
func (q *eventQueue) following(from uint) int {
	if b := q.search(from); b >= 0 {
		return b
	}
	return q.search(0)
}

// search is the first ring bucket at or after from that has events, or −1.
func (q *eventQueue) search(from uint) int {
	w := from / 64
	if m := q.bits[w] & (^uint64(0) << (from % 64)); m != 0 {
		return int(w*64 + uint(bits.TrailingZeros64(m)))
	}
	for w++; w < uint(len(q.bits)); {
		sw := w / 64
		if m := q.sum[sw] & (^uint64(0) << (w % 64)); m != 0 {
			w = sw*64 + uint(bits.TrailingZeros64(m))
			return int(w*64 + uint(bits.TrailingZeros64(q.bits[w])))
		}
		w = (sw + 1) * 64
	}
	return -1
}

// sortEvents sorts evs by (time, sequence number): by insertion when they
// are few (a bucket's usual handful, or many nearly in order), else by
// the library's sort.
func sortEvents(evs []event) {
	if len(evs) > 32 {
		slices.SortFunc(evs, func(a, b event) int {
			if c := cmp.Compare(a.t, b.t); c != 0 {
				return c
			}
			return cmp.Compare(a.seq, b.seq)
		})
		return
	}
	for i := 1; i < len(evs); i++ {
		settle(evs, 0, i)
	}
}

// atLastTime reports whether an event is queued for the time of the event
// last popped: such events are in the current bucket, and the next of them
// is cur's next.
func (q *eventQueue) atLastTime() bool {
	return q.ci < len(q.cur) && q.cur[q.ci].t == q.now
}

// len is the number of events queued, loaded ones not yet queued included.
func (q *eventQueue) len() int {
	return len(q.cur) - q.ci + q.ringN + len(q.far) + max(0, len(q.sorted)-q.next-1)
}
