package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEventHeapOrder pushes and pops events with many equal times: they come
// out by time, then in the order they were pushed, each exactly once.
func TestEventHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h eventHeap
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

// BenchmarkEventHeap is a busy cluster's heap: 2000 and 30 000 slots (the
// benchmark clusters at 10⁶ and 10⁷ tasks), each task end followed by the
// next task's end 5–15 s later.
func BenchmarkEventHeap(b *testing.B) {
	for _, slots := range []int{2000, 30000} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			var h eventHeap
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
