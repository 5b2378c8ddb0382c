package sim_test

import (
	"fmt"

	"github.com/packer-sched/packer/sim"
)

// srjf is shortest remaining job first, a policy written outside package
// sim, against its exported API only: a free slot goes to the runnable job
// with the fewest tasks of the slot's kind not yet done (State.Remaining),
// so that small jobs overtake large ones. Ties go to the job with fewer of
// those tasks still waiting to start (State.Pending), the one further
// along, then to the earlier job in the workload.
type srjf struct{}

var (
	_ sim.Policy      = srjf{}
	_ sim.StickySlots = srjf{}
)

// Name is "srjf", the name it is registered under.
func (srjf) Name() string { return "srjf" }

// Assign picks the shortest of the jobs that have a pending task of kind.
func (srjf) Assign(s *sim.State, _ int, k sim.Kind) int {
	best := sim.Idle
	for _, j32 := range s.Runnable(k) {
		if j := int(j32); best == sim.Idle || shorter(s, j, best, k) {
			best = j
		}
	}
	return best
}

// shorter reports whether job a comes before job b.
func shorter(s *sim.State, a, b int, k sim.Kind) bool {
	if ra, rb := s.Remaining(a, k), s.Remaining(b, k); ra != rb {
		return ra < rb
	}
	if pa, pb := s.Pending(a, k), s.Pending(b, k); pa != pb {
		return pa < pb
	}
	return a < b
}

// StickySlots tells the core that a freed slot usually goes back to the
// job whose task ended: that job has just become shorter still.
func (srjf) StickySlots() {}

// init registers srjf once for the process, as a package of policies
// would: from then on ParsePolicy, LookupPolicy and PolicyNames know it.
func init() {
	info := sim.PolicyInfo{Name: "srjf", Usage: "shortest remaining job first: a slot to the job with the fewest tasks of its kind left"}
	build := func(string, *sim.PolicyOptions) (sim.Policy, bool) { return srjf{}, true }
	if err := sim.RegisterPolicy(info, build); err != nil {
		panic(err)
	}
}

// A policy from outside the package, registered by name (init above) and
// run like a built-in one. One node with two map slots, locality off:
// A submitted at 0 s with maps of 10, 6, 6 and 6 s, B at 1 s with two
// maps of 5 s, C at 3 s with one of 2 s.
//
// fifo, jobs in submit order: A's maps run 0–10, 0–6, 6–12 and 10–16;
// B's 12–17 and 16–21; C's 17–19. Responses 16, 20 and 16 s: mean 52/3.
//
// srjf: A takes both slots at 0 s (A0 0–10, A1 0–6). At 6 s C has 1 map
// left, B 2, A 3: C0 6–8. At 8 s B (2) before A (3): B0 8–13. At 10 s A and
// B both have 2 left, but B only 1 waiting to start, A 2: B1 10–15. Then A
// alone: A2 13–19, A3 15–21. Responses 21, 14 and 5 s: mean 40/3.
func ExamplePolicy() {
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 1, MapSlots: 2}, Jobs: []sim.Job{
		{Name: "A", Maps: sim.Tasks{Durations: []float64{10, 6, 6, 6}}},
		{Name: "B", Arrival: 1, Maps: sim.Tasks{Count: 2, Mean: 5}},
		{Name: "C", Arrival: 3, Maps: sim.Tasks{Count: 1, Mean: 2}},
	}}
	for _, name := range []string{"fifo", "srjf"} {
		p, err := sim.ParsePolicy(name, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		r, err := sim.Run(w, p, &sim.Settings{IgnoreLocality: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s:", r.Policy)
		var sum float64
		for _, j := range r.Jobs {
			fmt.Printf(" %s %g–%g s", j.Name, j.Start, j.Finish)
			sum += j.Response
		}
		fmt.Printf("; mean response %.2f s\n", sum/float64(len(r.Jobs)))
	}
	// Output:
	// fifo: A 0–16 s B 12–21 s C 17–19 s; mean response 17.33 s
	// srjf: A 0–21 s B 8–15 s C 6–8 s; mean response 13.33 s
}
