package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestFIFOPriorityByHand: one node with one map slot, maps of 10 s that
// read no input. A (priority 0, t = 0, two maps) starts at once; C (0,
// t = 1), D (1, t = 5) and B (1, t = 5, after D in the workload) wait. At
// t = 10 the higher priority goes first, and of D and B, submitted
// together, the earlier in the workload: D 10–20, B 20–30; then A's second
// map (submitted before C) 30–40, and C 40–50.
func TestFIFOPriorityByHand(t *testing.T) {
	job := func(name string, prio int, at float64, maps int) Job {
		d := make([]float64, maps)
		for i := range d {
			d[i] = 10
		}
		return Job{Name: name, Priority: prio, Arrival: at, Maps: Tasks{Durations: d}, NoInput: true}
	}
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1, ReduceSlots: 1},
		Jobs: []Job{job("A", 0, 0, 2), job("C", 0, 1, 1), job("D", 1, 5, 1), job("B", 1, 5, 1)}}
	r := mustRun(t, w, &FIFO{}, nil)
	var got []float64
	for _, j := range r.Jobs {
		got = append(got, j.Finish)
	}
	if want := []float64{40, 50, 20, 30}; !slices.Equal(got, want) {
		t.Fatalf("finish times (A, C, D, B) %v, want %v", got, want)
	}
}

// scanFIFO is FIFO's plain reference: at every slot it scans the jobs in
// FIFO order for the first with a pending task of the kind.
type scanFIFO struct {
	order []int32
	meddle
}

func (*scanFIFO) Name() string { return "fifo" }

func (p *scanFIFO) Start(s *State) {
	p.order = p.order[:0]
	for j := range s.Jobs() {
		p.order = append(p.order, int32(j))
	}
	slices.SortFunc(p.order, func(a, b int32) int { return fifoLess(s, a, b) })
}

func (p *scanFIFO) Assign(s *State, node int, k Kind) int {
	p.meddle.act(s, node, k)
	for _, j := range p.order {
		if s.Pending(int(j), k) > 0 {
			return int(j)
		}
	}
	return Idle
}

// TestFIFOMatchesScan runs random workloads (priorities, reduces with
// early starts, input blocks, heartbeats, kills mid-drain) under FIFO and
// under the plain scan: the traces must be the same event for event.
func TestFIFOMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 18))
	kills := 0
	for i := range 200 {
		w := randomWorkload(rng, true, i%3 != 0)
		for j := range w.Jobs {
			w.Jobs[j].Priority = rng.IntN(3)
			if rng.IntN(4) == 0 && j > 0 {
				w.Jobs[j].Arrival = w.Jobs[j-1].Arrival // ties broken by priority, then workload order
			}
		}
		set := Settings{Seed: uint64(i), ReduceSlowstart: float64(i%3) * 0.3}
		if i%4 == 0 {
			set.Heartbeat = 2
		}
		off := i%2 == 0
		run := func(p Policy) []string {
			rec := &recorder{}
			set.Trace = rec
			mustRun(t, w, p, &set)
			return rec.lines
		}
		want := run(&scanFIFO{meddle: meddle{off: off}})
		sameTrace(t, fmt.Sprintf("case %d", i), run(&meddler{meddle: meddle{off: off}}), want)
		for _, l := range want {
			if strings.Contains(l, " kill ") {
				kills++
			}
		}
	}
	if kills < 100 {
		t.Fatalf("%d kills in all: too few for the test to say anything", kills)
	}
	t.Logf("%d kills", kills)
}
