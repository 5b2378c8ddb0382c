package engine

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEventQueueOrder pushes and pops events with many equal times: they come
// out by time, then in the order they were pushed, each exactly once.
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h eventQueue
	h.init(0, 0)
	h.load([]event{{t: 0.5, arg: -1}, {t: 3, arg: -2}})
	var now float64
	last := event{t: -1}
	pushed := 0
	seen := map[int32]bool{}
	for popped := 0; popped < 20000; popped++ {
		for range rng.IntN(3) {
			h.push(event{t: now + float64(rng.IntN(4)), arg: int32(pushed)})
			pushed++
		}
		if h.len() == 0 {
			continue
		}
		e := h.pop()
		if e.t < last.t || (e.t == last.t && e.seq <= last.seq) {
			t.Fatalf("pop %d: (%v, %d) after (%v, %d)", popped, e.t, e.seq, last.t, last.seq)
		}
		if seen[e.arg] {
			t.Fatalf("pop %d: event %d came out twice", popped, e.arg)
		}
		seen[e.arg] = true
		now, last = e.t, e
	}
	for h.len() > 0 {
		e := h.pop()
		if seen[e.arg] {
			t.Fatalf("event %d came out twice", e.arg)
		}
		seen[e.arg] = true
	}
	if len(seen) != pushed+2 {
		t.Errorf("%d events came out of %d pushed", len(seen), pushed+2)
	}
}

// TestEventQueueMatchesSort runs the queue as the core does (arrivals
// loaded, then pushes never before the event just popped) and checks every
// pop against a plain list sorted by (t, seq), and atLastTime against the
// list too. The times are drawn to meet the queue's edge cases: equal
// times in runs (ties broken by sequence numbers through many digits), −0
// and +0, steps of one ulp, long jumps that cross the exponent, and times
// at the clock itself.
func TestEventQueueMatchesSort(t *testing.T) {
	t.Parallel()
	spans := []float64{0, 1e-9, 0.05, 3, 60, 1e5, 1e12}
	capacities := []int{0, 100, 300, 5000, 70000} // 64 to 65 536 buckets: one word of summary, or several
	// Records for the prefetching to read (eventQueue.ahead): events here
	// are task ends whose argument is their sequence number (up to about
	// 4,000 a seed), so most have a task record, some the last, some none;
	// half are pushed with a job, one in nine of those jobs out of range.
	// All as ahead must allow.
	tasks, jobs := make([]taskRec, 3000), make([]jobRec, 8)
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var q eventQueue
		q.init(capacities[seed%5], spans[seed%uint64(len(spans))])
		q.warm, q.warmJobs = tasks, jobs
		q.warmNext, q.warmFilter = seed%2 == 0, seed%3 == 0
		var seq uint64
		if seed%2 == 1 { // sequence numbers that carry through their high digits
			seq = 1<<56 - 50
			if seed%4 == 3 { // and into a top digit that was not 0
				seq = 2<<56 - 50
			}
			q.seq = seq
		}
		if seed >= 20 { // a queue used before, left half full: its memory reused
			for i := range 300 {
				q.push(event{t: float64(i % 7), kind: evTaskEnd})
			}
			for range 100 {
				q.pop()
			}
			q.init(capacities[(seed+2)%5], spans[(seed+3)%uint64(len(spans))])
			q.warm, q.warmJobs = tasks, jobs
			q.warmNext, q.warmFilter = seed%2 == 0, seed%3 == 0
			q.seq = seq
		}
		var ref []event // what is queued, kept sorted descending: pop from the end
		order := func(a, b event) int {
			if c := cmp.Compare(b.t, a.t); c != 0 {
				return c
			}
			return cmp.Compare(b.seq, a.seq)
		}
		add := func(e event) {
			e.seq = seq
			seq++
			i, _ := slices.BinarySearchFunc(ref, e, order)
			ref = slices.Insert(ref, i, e)
		}
		arrivals := make([]event, rng.IntN(50))
		at := 0.0
		for i := range arrivals {
			if rng.IntN(3) > 0 {
				at += rng.ExpFloat64() * 10
			}
			arrivals[i] = event{t: at, arg: int32(i), kind: evArrive}
		}
		if len(arrivals) > 0 && rng.IntN(2) == 0 {
			arrivals[0].t = math.Copysign(0, -1)
		}
		q.load(slices.Clone(arrivals))
		for _, e := range arrivals {
			add(e)
		}
		now := 0.0
		for step := 0; step < 3000 && (len(ref) > 0 || step == 0); step++ {
			for range rng.IntN(4) {
				var d float64
				switch rng.IntN(6) {
				case 0: // at the clock: a tie with what is being handled
				case 1:
					d = math.Nextafter(now, math.Inf(1)) - now
				case 2:
					d = float64(rng.IntN(3))
				case 3:
					d = rng.Float64() * 1e6
				default:
					d = 5 + 10*rng.Float64()
				}
				e := event{t: now + d, arg: int32(seq), kind: evTaskEnd, attempt: uint16(seq)}
				if now == 0 && d == 0 && rng.IntN(2) == 0 {
					e.t = math.Copysign(0, -1) // a job with no maps, arrival and shuffle −0
				}
				if step%2 == 0 {
					q.pushTaskEnd(e, int32(seq%uint64(len(jobs)+1)))
				} else {
					q.push(e)
				}
				add(e)
			}
			if len(ref) == 0 {
				continue
			}
			got, want := q.pop(), ref[len(ref)-1]
			ref = ref[:len(ref)-1]
			if got != want || q.len() != len(ref) {
				t.Fatalf("seed %d, step %d: popped %+v (%d left), want %+v (%d left)", seed, step, got, q.len(), want, len(ref))
			}
			now = got.t
			same := len(ref) > 0 && ref[len(ref)-1].t == now
			if q.atLastTime() != same {
				t.Fatalf("seed %d, step %d: atLastTime %v at t = %v, want %v", seed, step, !same, now, same)
			}
		}
	}
}

// BenchmarkEventHeap is a busy cluster's event queue: 2000 and 30 000 slots
// (the benchmark clusters at 10⁶ and 10⁷ tasks), each task end followed by
// the next task's end 5–15 s later; the ring spans four typical durations, as
// State.loop makes it.
func BenchmarkEventHeap(b *testing.B) {
	for _, slots := range []int{2000, 30000} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			var h eventQueue
			h.init(slots, 4*10)
			for i := range slots {
				h.push(event{t: 5 + 10*rng.Float64(), arg: int32(i)})
			}
			for b.Loop() {
				e := h.pop()
				h.push(event{t: e.t + 5 + 10*rng.Float64(), arg: e.arg})
			}
		})
	}
}

// TestTypicalBaseIgnoresOutliers: ten tasks of 10⁹ s among 10⁴ of 10 s
// leave the queue's ring four times 10 s wide, not four times their mean
// (about 10⁶ s), which would put every task in flight in one bucket.
func TestTypicalBaseIgnoresOutliers(t *testing.T) {
	w := &Workload{Cluster: Cluster{Nodes: 50}}
	for j := range 10 {
		w.Jobs = append(w.Jobs, Job{User: fmt.Sprint(j), Maps: Tasks{Count: 1000, Mean: 10}})
		w.Jobs = append(w.Jobs, Job{User: fmt.Sprint("huge", j), Maps: Tasks{Count: 1, Mean: 1e9}})
	}
	withDefaults(w)
	set := testConfig(Settings{})
	if got := typicalBase(compile(w, set).tasks); got != 10 {
		t.Fatalf("typical task 10 s, got %v", got)
	}
	// All of them zero: the mean, 0, and the ring a second a bucket.
	if got := typicalBase(make([]taskRec, 5)); got != 0 {
		t.Fatalf("typical of zero-length tasks %v, want 0", got)
	}
}
