package sim

import (
	"math"
	"math/bits"
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

func (a *event) before(b *event) bool {
	return a.t < b.t || (a.t == b.t && a.seq < b.seq)
}

// timeKey orders times ≥ 0 as their bits do (a non-negative float64 orders
// as its bit pattern read as an integer); −0 becomes +0, to which it is
// equal, so that the two tie on the sequence number as they compare.
func timeKey(t float64) uint64 {
	if t == 0 {
		return 0 // −0 too: it ties with +0
	}
	return math.Float64bits(t)
}

// The radix heap's digits are 8 bits wide: a bucket per value of each of
// the 16 digits of the 128-bit key, 4096 buckets, the first 2048 those of
// the sequence number's digits. An event moves to a lower digit at each
// move: a busy cluster's task ends, whose times agree with the clock's on
// the high digits and are told apart within a few more, move two or three
// times (about 3.6 bucket insertions a pop on the FB-2010 day); with 4-bit
// digits they moved half as far each time, and a pop cost about what the
// 4-ary heap's did.
const (
	digitBits    = 8
	radixBuckets = 128 / digitBits << digitBits
	seqBuckets   = 64 / digitBits << digitBits
)

// eventQueue is a radix heap on the 128-bit key (time, sequence number):
// a monotone priority queue, which is all a simulation needs, since nothing
// is ever scheduled before the event being handled. An event whose key
// first differs from the last popped one's in digit L (from the bottom) is
// in bucket L·256 + its own digit L, which is greater than the last key's
// digit there, so never 0: bucket 0 holds only a key equal to the last.
// Buckets are ordered as their keys: the lowest non-empty bucket holds the
// next event. A pop takes the least event of that bucket and moves the rest
// of it down (they agree with the new last key in digit L and above, so
// each goes to a lower bucket). Sequence numbers are unique, so the order
// is total and a run never depends on how ties are broken.
//
// The events stay where they were pushed, in one pool, each bucket a list
// through it: a move relinks an event rather than copying it, and the
// memory is the most events ever queued at once, where a slice per bucket
// kept, in each of the 4096, room for the most it ever held (at 10⁷ tasks,
// 28 bytes a task more peak heap). A 4-ary heap of the thousands of events
// in flight spent about 150 ns a pop in a chain of dependent comparisons
// and loads; this, about 100 (BenchmarkEventHeap).
type eventQueue struct {
	pool     []queued
	free     int32                     // first free pool entry, or −1
	head     [radixBuckets]int32       // first event of each bucket, or −1
	nonEmpty [radixBuckets / 64]uint64 // bit i: bucket i has events
	summary  uint64                    // bit w: nonEmpty[w] is not 0
	n        int
	seq      uint64
	// The key of the event last popped from the radix heap: every event in
	// it is after that.
	lastT, lastSeq uint64
	sorted         []event // loaded events, ascending (t, seq); sorted[next:] are due
	next           int
	now            float64 // the time of the event last popped
}

// queued is an event in the pool and the next of its bucket's list (or
// of the free list), −1 at the end.
type queued struct {
	e    event
	next int32
}

// init empties the queue, with room for capacity events before the pool
// grows. It keeps the pool of a queue used before if that has the room (a
// run laid out in a finished one's memory, compileIn): in the order of
// events the pool's size makes no difference. The 4096 bucket heads are
// filled by copies rather than one store at a time (a fifth of a one-job
// run otherwise).
func (q *eventQueue) init(capacity int) {
	pool := q.pool[:0]
	if cap(pool) < capacity {
		pool = make([]queued, 0, capacity)
	}
	*q = eventQueue{pool: pool, free: -1}
	fill(q.head[:], -1)
}

// load queues evs, which must be in ascending time, before any push: they
// take the first sequence numbers, so they come before anything pushed later
// for the same time, exactly as if they had been pushed first. They stay in
// their sorted run, which pop merges with the radix heap: the heap's pool
// then holds only what is in flight (about one event per busy slot), not
// every future arrival too, and stays small enough for the cache (on the
// FB-2010 day, 9000 events rather than 31 000).
func (q *eventQueue) load(evs []event) {
	for i := range evs {
		evs[i].seq = q.seq
		q.seq++
	}
	q.sorted, q.next = evs, 0
}

// bucketOf is the bucket of an event keyed (t, seq) relative to the last
// popped event.
func (q *eventQueue) bucketOf(t, seq uint64) int {
	if t != q.lastT {
		l := (bits.Len64(t^q.lastT) - 1) / digitBits
		return (64/digitBits+l)<<digitBits | int(t>>(l*digitBits))&(1<<digitBits-1)
	}
	if seq == q.lastSeq {
		return 0
	}
	l := (bits.Len64(seq^q.lastSeq) - 1) / digitBits
	return l<<digitBits | int(seq>>(l*digitBits))&(1<<digitBits-1)
}

// push queues e, which must not come before the last event popped: its time
// is at least that event's (its sequence number, the next, is later).
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.n++
	i := q.free
	if i >= 0 {
		q.free = q.pool[i].next
		q.pool[i].e = e
	} else {
		i = int32(len(q.pool))
		q.pool = append(q.pool, queued{e: e})
	}
	q.link(i)
}

// link files pool entry i in its bucket.
func (q *eventQueue) link(i int32) {
	x := &q.pool[i]
	b := q.bucketOf(timeKey(x.e.t), x.e.seq)
	x.next = q.head[b]
	q.head[b] = i
	q.nonEmpty[b/64] |= 1 << (b % 64)
	q.summary |= 1 << (b / 64)
}

// lowest is the lowest non-empty bucket; the queue must not be empty.
func (q *eventQueue) lowest() int {
	w := bits.TrailingZeros64(q.summary)
	return w*64 + bits.TrailingZeros64(q.nonEmpty[w])
}

// pop removes and returns the next event; the queue must not be empty.
func (q *eventQueue) pop() event {
	if q.next < len(q.sorted) {
		a := &q.sorted[q.next]
		if q.n == 0 {
			q.next++
			q.now = a.t
			return *a
		}
		b, m := q.least()
		if a.before(&q.pool[m].e) {
			// The heap is left as it is: its last key is still at or
			// before everything pushed from now on.
			q.next++
			q.now = a.t
			return *a
		}
		return q.take(b, m)
	}
	return q.take(q.least())
}

// least is the radix heap's next event (its pool entry) and its bucket; the
// heap must not be empty.
func (q *eventQueue) least() (b int, m int32) {
	b = q.lowest()
	pool := q.pool
	m = q.head[b]
	for i := pool[m].next; i >= 0; i = pool[i].next {
		if pool[i].e.before(&pool[m].e) {
			m = i
		}
	}
	return b, m
}

// take removes from the radix heap its next event, pool entry m in bucket b.
func (q *eventQueue) take(b int, m int32) event {
	pool := q.pool
	e := pool[m].e
	q.lastT, q.lastSeq = timeKey(e.t), e.seq
	q.now = e.t
	i := q.head[b]
	q.head[b] = -1
	if q.nonEmpty[b/64] &^= 1 << (b % 64); q.nonEmpty[b/64] == 0 {
		q.summary &^= 1 << (b / 64)
	}
	// The others differ from the new last key only below the bucket's
	// digit, so each goes to a lower bucket, never back to this list.
	for i >= 0 {
		next := pool[i].next
		if i != m {
			q.link(i)
		}
		i = next
	}
	pool[m].next = q.free
	q.free = m
	q.n--
	return e
}

// atLastTime reports whether an event is queued for the time of the event
// last popped. In the radix heap, those of the time of its own last key, and
// only those, share its time bits and so sit in the buckets of the sequence
// number's digits; when a loaded event came last, at a later time, the
// heap's next event is looked at (once an arrival, not once an event).
func (q *eventQueue) atLastTime() bool {
	if q.next < len(q.sorted) && q.sorted[q.next].t == q.now {
		return true
	}
	switch {
	case q.n == 0:
		return false
	case timeKey(q.now) == q.lastT:
		return q.summary&(1<<(seqBuckets/64)-1) != 0
	}
	_, m := q.least()
	return q.pool[m].e.t == q.now
}

func (q *eventQueue) len() int { return q.n + len(q.sorted) - q.next }
