package sim

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAtOnce: hand-worked cases of how many runs go side by side.
func TestAtOnce(t *testing.T) {
	for _, c := range []struct {
		want, n     int
		limit, need int64
		got         int
	}{
		{4, 3, 0, 100, 3},     // no more than there are runs
		{4, 8, 1000, 300, 3},  // 3 × 300 fits 1000, 4 do not
		{4, 8, 1000, 2000, 1}, // not even one fits: one (Run refuses it)
		{1, 8, 0, 100, 1},
		{2, 0, 0, 100, 1},
	} {
		if got := atOnce(c.want, c.n, c.limit, c.need); got != c.got {
			t.Errorf("atOnce(%d, %d, %d, %d) = %d, want %d", c.want, c.n, c.limit, c.need, got, c.got)
		}
	}
}

// meeting is FIFO whose first assignment waits, up to a timeout, until
// every run of the comparison has made its own: they meet only if they run
// side by side.
type meeting struct {
	FIFO
	name string
	all  *sync.WaitGroup
	once sync.Once
	met  *bool
}

func (m *meeting) Name() string { return m.name }

func (m *meeting) Assign(s *State, node int, kind Kind) int {
	m.once.Do(func() {
		m.all.Done()
		ch := make(chan struct{})
		go func() { m.all.Wait(); close(ch) }()
		select {
		case <-ch:
			*m.met = true
		case <-time.After(10 * time.Second):
		}
	})
	return m.FIFO.Assign(s, node, kind)
}

// TestCompareRunsSideBySide: with Parallel 3, three runs are under way at
// once; Compare's error is the first entry's that failed, whatever order
// they fail in; one at a time, nothing past a failure runs.
func TestCompareRunsSideBySide(t *testing.T) {
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1}, Jobs: []Job{{Name: "A", NoInput: true, Maps: Tasks{Count: 3, Mean: 1}}}}
	var all sync.WaitGroup
	all.Add(3)
	met := make([]bool, 3)
	var es []Entry
	for i, n := range []string{"a", "b", "c"} {
		es = append(es, Entry{Name: n, Policy: &meeting{name: n, all: &all, met: &met[i]}})
	}
	if _, err := Compare(&Comparison{Workload: w, Entries: es, Parallel: 3}); err != nil {
		t.Fatal(err)
	}
	for i, m := range met {
		if !m {
			t.Errorf("run %s did not meet the others: the runs went one after another", es[i].Name)
		}
	}

	// Entry a stalls late, c at once: the error is a's either way.
	for _, parallel := range []int{1, 3} {
		es := []Entry{{Name: "a", Policy: &stalling{name: "a", wait: 50 * time.Millisecond}}, {Name: "b", Policy: &FIFO{}}, {Name: "c", Policy: &stalling{name: "c"}}}
		_, err := Compare(&Comparison{Workload: w, Entries: es, Parallel: parallel})
		if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "policy a ") {
			t.Errorf("parallel %d: error %v, want entry a's stall", parallel, err)
		}
	}

	errA := errors.New("a failed")
	var calls sync.Map
	f := func(i int) error {
		calls.Store(i, true)
		if i == 0 {
			return errA
		}
		return nil
	}
	// One at a time, nothing past the first failure runs.
	if err := forEach(6, 1, f); err != errA {
		t.Errorf("forEach returned %v, want %v", err, errA)
	}
	for i := 1; i < 6; i++ {
		if _, ran := calls.Load(i); ran {
			t.Errorf("one at a time, entry %d ran after entry 0 had failed", i)
		}
	}
}

// stalling is a policy that never assigns a slot, after waiting wait on its
// first call: its run ends in ErrStalled.
type stalling struct {
	name string
	wait time.Duration
}

func (p *stalling) Name() string { return p.name }

func (p *stalling) Assign(*State, int, Kind) int {
	time.Sleep(p.wait)
	p.wait = 0
	return Idle
}

// TestForEachRaisesPanics: a panic in a call side by side reaches the caller,
// as it would one at a time.
func TestForEachRaisesPanics(t *testing.T) {
	defer func() {
		if p := recover(); p != "boom" {
			t.Errorf("recovered %v, want boom", p)
		}
	}()
	_ = forEach(8, 3, func(i int) error {
		if i == 4 {
			panic("boom")
		}
		return nil
	})
	t.Error("no panic reached the caller")
}
