package sim

import (
	"errors"
	"strings"
	"testing"
)

func TestMemoryRefusedUpFront(t *testing.T) {
	// One job of 10⁸ maps (the workload's limit) on 100 nodes: 10⁸ × 100
	// bytes + 512 + 100 × 64 = 10.0 GB, refused under a 1 GB limit before
	// anything is allocated (a run would take far more than a test's time).
	w := &Workload{Cluster: Cluster{Nodes: 100}, Jobs: []Job{{Name: "huge", Maps: Tasks{Count: MaxTasks, Mean: 1}}}}
	if got, want := EstimateMemory(w), int64(MaxTasks)*100+512+100*64; got != want {
		t.Errorf("estimate %d, want %d", got, want)
	}
	_, err := Run(w, &FIFO{}, &Settings{MaxMemory: 1e9})
	if !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), "10.0 GB") || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("err %v, want ErrTooBig naming 10.0 GB and --max-memory", err)
	}
	// 10 tasks fit in 1 MB: 10 × 100 + 512 + 100 × 64 = 7912 bytes.
	small := &Workload{Cluster: Cluster{Nodes: 100}, Jobs: []Job{{Name: "small", Maps: Tasks{Count: 10, Mean: 1}}}}
	var calls []Progress
	r, err := Run(small, &FIFO{}, &Settings{MaxMemory: 1e6, Progress: func(p Progress) { calls = append(calls, p) }})
	if err != nil {
		t.Fatal(err)
	}
	// Far fewer than ProgressEvery events: one call, at the end, all done.
	if len(calls) != 1 || calls[0] != (Progress{Policy: "fifo", Time: r.Makespan, TasksDone: 10, Tasks: 10}) {
		t.Errorf("progress calls %+v, want one at the end with 10 of 10 tasks at %v", calls, r.Makespan)
	}
	if _, err := Run(small, &FIFO{}, &Settings{MaxMemory: -1}); err == nil {
		t.Error("negative MaxMemory accepted")
	}
}
