package engine

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestCompileInForgetsEverything: whatever a run left in its memory, the
// state compileIn lays out there is compile's, field for field (the event
// queue and wake list aside, emptied when the run starts, and the run's
// number, which must differ, and the Input it reads; every job here
// reads input, so both build the replica stream). The run's leftovers
// are made the worst they could be: every per-node flag set, every slot
// taken, every task and job record scribbled over.
func TestCompileInForgetsEverything(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 3))
	set := testConfig(Config{Seed: 9, Heartbeat: 2})
	for i := range 20 {
		prev := compile(variedJobs(rng, 6), set)
		if err := prev.Run(fifo(prev)); err != nil {
			t.Fatal(err)
		}
		scribble(prev)
		w := variedJobs(rng, 1+rng.IntN(6))
		got, want := compileIn(prev, w, set), compile(w, set)
		got.queue, got.wake = eventQueue{}, nil
		if got.serial == want.serial || got.serial == 0 || want.serial == 0 {
			t.Fatalf("case %d: runs numbered %d and %d, want two different numbers", i, got.serial, want.serial)
		}
		got.serial = want.serial
		got.w = want.w // the same workload, as an Input of its own (whose Job no two funcs share)
		if !reflect.DeepEqual(*got, *want) {
			t.Fatalf("case %d: compileIn's state differs from compile's", i)
		}
	}
}

// scribble fills every per-node array and record of s with what no fresh
// state holds.
func scribble(s *State) {
	for _, xs := range [][]bool{s.woke, s.retrying, s.hbStopped} {
		fill(xs, true)
	}
	fill(s.offered, 7)
	fill(s.slow, 3)
	for k := range 2 {
		fill(s.free[k], 0)
		fill(s.freeBits[k], 0)
		fill(s.slotTask[k], 5)
	}
	fill(s.tasks[:cap(s.tasks)], taskRec{start: 1, job: 3, node: 2, attempt: 4, state: taskDone, held: true})
	fill(s.jobs[:cap(s.jobs)], jobRec{start: 1, done: [2]int32{3, 3}, finished: true})
	s.requeued = [][]int32{{1}}
	fill(s.nodeFilter[:cap(s.nodeFilter)], [nodeFilterWords]uint64{1, 2, 3})
	s.gen, s.sweeping, s.lazy, s.events, s.now, s.active = 9, 2, 1, 5, 7, 3
	s.runnable[Map] = append(s.runnable[Map], 1)
	s.wake = append(s.wake, 3)
}
