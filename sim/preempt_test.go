package sim

import (
	"errors"
	"strings"
	"testing"
)

// lifo is a test policy in the shape of the next issue's preemptive ones: the
// latest submitted job with a pending task gets every slot, and at every
// allocation interval it kills tasks of older jobs while a newer one waits.
type lifo struct {
	interval float64
	ends     int
	offers   int
}

var (
	_ Periodic      = (*lifo)(nil)
	_ TaskObserver  = (*lifo)(nil)
	_ OfferObserver = (*lifo)(nil)
)

func (*lifo) Name() string { return "lifo" }

func (p *lifo) Assign(s *State, _ int, k Kind) int {
	for j := s.Jobs() - 1; j >= 0; j-- {
		if s.Pending(j, k) > 0 {
			return j
		}
	}
	return Idle
}

func (p *lifo) Interval() float64 { return p.interval }

func (p *lifo) Tick(s *State) {
	newest := -1
	for j := range s.Jobs() {
		if s.Pending(j, Map) > 0 {
			newest = j
		}
	}
	for n := range s.Nodes() {
		for i := range s.Slots(Map) {
			if t := s.SlotTask(n, Map, i); t >= 0 && s.TaskJob(t) < newest {
				s.Kill(t)
			}
		}
	}
}

func (p *lifo) TaskEnded(*State, int) { p.ends++ }
func (p *lifo) Offering(*State, int)  { p.offers++ }

func TestHandTracePreemption(t *testing.T) {
	// One node, one map slot. A (1 map × 10 s) starts at 0. B (1 map × 3 s)
	// arrives at 2 and waits. The tick at 4 kills A's map (4 s of work lost)
	// and B runs 4–7; then A's map runs again from the start, 7–17. The slot
	// was busy all the time: 4 + 3 + 10 = 17 slot-seconds of 17.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 1, Mean: 10}},
		{Name: "B", Arrival: 2, Maps: Tasks{Count: 1, Mean: 3}},
	}}
	rec := &recorder{}
	p := &lifo{interval: 4}
	r := mustRun(t, w, p, &Settings{IgnoreLocality: true, Trace: rec})
	checkTimes(t, r, map[string][2]float64{"A": {0, 17}, "B": {4, 7}})
	if r.Utilisation[Map] != 1 {
		t.Errorf("utilisation %v, want 1", r.Utilisation[Map])
	}
	want := []string{
		"0 arrive job=0 task=-1 node=-1 none",
		"0 start job=0 task=0 node=0 none",
		"2 arrive job=1 task=-1 node=-1 none",
		"4 kill job=0 task=0 node=0 none",
		"4 start job=1 task=1 node=0 none",
		"7 end job=1 task=1 node=0 none",
		"7 finish job=1 task=-1 node=-1 none",
		"7 start job=0 task=0 node=0 none",
		"17 end job=0 task=0 node=0 none",
		"17 finish job=0 task=-1 node=-1 none",
	}
	if got := strings.Join(rec.lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// Two tasks ended (the killed attempt does not count); offers at 0, 4 and 7.
	if p.ends != 2 || p.offers != 3 {
		t.Errorf("TaskEnded called %d times, Offering %d; want 2 and 3", p.ends, p.offers)
	}
}

func TestTicksPauseWhenIdle(t *testing.T) {
	// Ticks every 4 s. A (1 map × 1 s) runs 0–1; the tick at 4 finds no job
	// and pauses. B arrives at 10⁶ and runs 10⁶–10⁶+3; ticks resume at the
	// next multiple of 4 at or after 10⁶, which is 10⁶ itself (that tick
	// finds nothing running to kill; B's slot is offered after it).
	// Without the pause, 250 000 ticks; with it, a handful of events.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 1, Mean: 1}},
		{Name: "B", Arrival: 1e6, Maps: Tasks{Count: 1, Mean: 3}},
	}}
	r := mustRun(t, w, &lifo{interval: 4}, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 1}, "B": {1e6, 1e6 + 3}})
	if r.Events > 12 {
		t.Errorf("%d events, want at most 12", r.Events)
	}
}

// idler never assigns anything.
type idler struct{}

func (idler) Name() string                 { return "idler" }
func (idler) Assign(*State, int, Kind) int { return Idle }

func TestStalled(t *testing.T) {
	_, err := Run(abWorkload(), idler{}, nil)
	if !errors.Is(err, ErrStalled) {
		t.Errorf("a policy that never assigns: error %v, want ErrStalled", err)
	}
}
