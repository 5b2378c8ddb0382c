package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim/internal/engine"
)

// killer is FIFO that never gives node 4 a reduce and, offered node 4's
// reduce slot at t = 5, kills task 6 (job C's map, running on node 0).
type killer struct {
	FIFO
	killed bool
}

func (p *killer) Assign(s *State, node int, k Kind) int {
	if node == 4 && k == Reduce {
		if s.Now() == 5 && !p.killed {
			p.killed = true
			s.Kill(6)
		}
		return Idle
	}
	return p.FIFO.Assign(s, node, k)
}

// TestSweepRealizedMidDrain: 5 nodes, 1 map + 1 reduce slot each.
// t=1: A's reduces fill nodes 0-3 (node 4 declines). t=2: C's map on node 0.
// t=5: B1, B2 arrive (two map sweeps). Sweep 1: node 1 <- B1, node 2 <- B2,
// no map left; node 3 (free map slot, no free reduce) is passed over; node 4
// is offered for A's last reduce and kills C's map on node 0: the sweeps are
// realized while the first is being drained. Eager, node 3 was offered
// already (with nothing to run), so C's map restarts on node 0 (woken by the
// kill), not on node 3.
func TestSweepRealizedMidDrain(t *testing.T) {
	t.Parallel()
	sweepScenario(t, func() Policy { return &killer{} })
}

// killer2 is FIFO that gives node 3 no reduce, gives node 4 no map until it
// has killed, wakes node 4 when job 2 arrives, and, offered node 3's reduce
// slot at t = 5, kills task 6 (job C's map, on node 0).
type killer2 struct {
	FIFO
	killed bool
}

func (p *killer2) JobArrived(s *State, j int) {
	if j == 2 {
		s.Wake(4)
	}
}

func (p *killer2) Assign(s *State, node int, k Kind) int {
	switch {
	case node == 3 && k == Reduce:
		if s.Now() == 5 && !p.killed {
			p.killed = true
			s.Kill(6)
		}
		return Idle
	case node == 4 && k == Map && !p.killed:
		return Idle
	}
	return p.FIFO.Assign(s, node, k)
}

// TestSweepRealizeSkipsOffered: t=1: A's reduces on nodes 0, 1, 2, 4.
// t=2: C's map on node 0. t=5: B1 arrives and node 4 is woken explicitly,
// before the sweeps of B1's and B2's arrivals: it is offered first and
// declines the maps, keeping its free map slot. Sweep 1: node 1 <- B1,
// node 2 <- B2, node 3 kills C's map: realized past node 3, node 4 must not
// be listed again (eager, it was woken already when the sweep was made), so
// C's map restarts on node 0.
func TestSweepRealizeSkipsOffered(t *testing.T) {
	t.Parallel()
	sweepScenario(t, func() Policy { return &killer2{} })
}

// sweepScenario is the workload both tests work by hand: 5 nodes of 1 map and
// 1 reduce slot; A's 5 long reduces, C's long map at t = 2, B1 and B2 at
// t = 5. It runs p with eager and with lazy sweeps and checks that the traces
// agree and that C's map, killed at t = 5 on node 0, restarts there.
func sweepScenario(t *testing.T, p func() Policy) {
	t.Helper()
	w := &Workload{Cluster: Cluster{Nodes: 5, Racks: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1}}
	one := func(d float64) Tasks { return Tasks{Durations: []float64{d}} }
	w.Jobs = []Job{
		{Name: "A", Arrival: 0, Maps: one(1), Reduces: Tasks{Durations: []float64{1000, 1000, 1000, 1000, 1000}}, NoInput: true},
		{Name: "C", Arrival: 2, Maps: one(1000), NoInput: true},
		{Name: "B1", Arrival: 5, Maps: one(10), NoInput: true},
		{Name: "B2", Arrival: 5, Maps: one(10), NoInput: true},
	}
	run := func(eager bool) []string {
		opts := engine.DefaultOptions()
		opts.EagerSweeps = eager
		rec := &recorder{}
		if _, err := runWith(w, p(), &Settings{Seed: 1, Trace: rec}, opts); err != nil {
			t.Fatal(err)
		}
		return rec.lines
	}
	want, got := run(true), run(false)
	if !slices.Equal(got, want) {
		t.Errorf("lazy trace differs from eager:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if !slices.Contains(want, "5 kill job=1 task=6 node=0 none") || !slices.Contains(got, "5 start job=1 task=6 node=0 none") {
		t.Errorf("scenario not as worked: %s", strings.Join(got, "\n"))
	}
}
