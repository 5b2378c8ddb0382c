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
// next event. A pop takes it if it is alone there, and otherwise moves the
// bucket's events down, relative to the least of them, which is then alone
// in bucket 0 (pop). Sequence numbers are unique, so the order is total and
// a run never depends on how ties are broken.
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
	sorted         []event // loaded events, ascending (t, seq); sorted[next] is in the heap, those after it wait
	next           int
	now            float64 // the time of the event last popped
	// warm is the run's task records (nil in the queue's own tests). A
	// spill moves events nearer their turn, and reads the record of each
	// task end it moves: the cache miss taskEnd would wait on at the pop
	// then overlaps the spill's other work, where the records of the
	// tasks in flight are out of the cache (10⁷ tasks: fifo 6–9 % fewer
	// cycles). warmed keeps the reads from being dropped.
	warm   []taskRec
	warmed uint8
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
// their sorted run, and only the first not yet popped is in the radix heap
// (popping it files the next): the heap's pool then holds only what is in
// flight (about one event per busy slot), not every future arrival too,
// and stays small enough for the cache (on the FB-2010 day, 9000 events
// rather than 31 000).
func (q *eventQueue) load(evs []event) {
	for i := range evs {
		evs[i].seq = q.seq
		q.seq++
	}
	q.sorted, q.next = evs, 0
	if len(evs) > 0 {
		q.insert(evs[0])
	}
}

// bucketOf is the bucket of an event keyed (t, seq) relative to the last
// popped event.
func (q *eventQueue) bucketOf(t, seq uint64) int {
	// The keys differ, so Len64 ≥ 1: the level is unsigned, and divides
	// without a fix-up for negatives.
	if t != q.lastT {
		l := uint(bits.Len64(t^q.lastT)-1) / digitBits
		return int((64/digitBits+l)<<digitBits | uint(t>>(l*digitBits))&(1<<digitBits-1))
	}
	if seq == q.lastSeq {
		return 0
	}
	l := uint(bits.Len64(seq^q.lastSeq)-1) / digitBits
	return int(l<<digitBits | uint(seq>>(l*digitBits))&(1<<digitBits-1))
}

// push queues e, which must not come before the last event popped: its time
// is at least that event's (its sequence number, the next, is later).
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.insert(e)
}

// insert files e, with its sequence number, in the heap.
func (q *eventQueue) insert(e event) {
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
	u := uint(b) // unsigned: no fix-up for negatives in the division
	q.nonEmpty[u/64] |= 1 << (u % 64)
	q.summary |= 1 << (u / 64)
}

// lowest is the lowest non-empty bucket; the queue must not be empty.
func (q *eventQueue) lowest() int {
	w := bits.TrailingZeros64(q.summary)
	return w*64 + bits.TrailingZeros64(q.nonEmpty[w])
}

// pop removes and returns the next event; the queue must not be empty.
//
// The lowest bucket holds the next event. Alone in it, the event is taken.
// Otherwise the bucket is spilled: its least key becomes the last, as if
// its event had been popped, and the bucket's events are filed again
// relative to it, that event alone in bucket 0, where the pop then takes
// it. (Spilling relative to the bucket's base, the key with its digits and
// zeros below, saved the search for the least key, but a group of events
// at one time, common in traces of whole seconds, then fell one level at a
// spill together, every one of them relinked at each: the FB-2010 day took
// 9 % more instructions.)
func (q *eventQueue) pop() event {
	for {
		b := q.lowest()
		i := q.head[b]
		if q.pool[i].next < 0 {
			return q.take(b, i)
		}
		q.spill(b)
	}
}

// spill makes the least key in bucket b the last and files the bucket's
// events again. Every key in a higher bucket is still in its bucket
// relative to the new last key, which agrees with the old one above the
// bucket's level and has the bucket's digit there.
func (q *eventQueue) spill(b int) {
	pool := q.pool
	i := q.head[b]
	t, seq := timeKey(pool[i].e.t), pool[i].e.seq
	for k := pool[i].next; k >= 0; k = pool[k].next {
		if kt := timeKey(pool[k].e.t); kt < t || kt == t && pool[k].e.seq < seq {
			t, seq = kt, pool[k].e.seq
		}
	}
	q.lastT, q.lastSeq = t, seq
	q.clear(b)
	for i >= 0 {
		x := &q.pool[i]
		if x.e.kind == evTaskEnd && uint(x.e.arg) < uint(len(q.warm)) {
			q.warmed += q.warm[x.e.arg].state
		}
		next := x.next
		q.link(i)
		i = next
	}
}

// clear empties bucket b's list.
func (q *eventQueue) clear(b int) {
	q.head[b] = -1
	u := uint(b) // as in link
	if q.nonEmpty[u/64] &^= 1 << (u % 64); q.nonEmpty[u/64] == 0 {
		q.summary &^= 1 << (u / 64)
	}
}

// take removes event m, alone in bucket b, the next, and makes its key the
// last; the buckets of the others stay right, as the spill's comment says.
// A loaded event taken puts the next loaded one in the heap.
func (q *eventQueue) take(b int, m int32) event {
	pool := q.pool
	e := pool[m].e
	q.lastT, q.lastSeq = timeKey(e.t), e.seq
	q.now = e.t
	q.clear(b)
	pool[m].next = q.free
	q.free = m
	q.n--
	if q.next < len(q.sorted) && q.sorted[q.next].seq == e.seq {
		if q.next++; q.next < len(q.sorted) {
			q.insert(q.sorted[q.next])
		}
	}
	return e
}

// atLastTime reports whether an event is queued for the time of the event
// last popped: those, and only those, share its time bits, and so sit in
// the buckets of the sequence number's digits.
func (q *eventQueue) atLastTime() bool {
	return q.summary&(1<<(seqBuckets/64)-1) != 0
}

// len is the number of events queued, loaded ones not yet in the heap
// included.
func (q *eventQueue) len() int { return q.n + max(0, len(q.sorted)-q.next-1) }
