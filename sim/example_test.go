package sim_test

import (
	"fmt"

	"github.com/packer-sched/packer/sim"
)

// The issue's example: one node with two map slots, job A (4 maps × 10 s)
// and job B (2 maps × 5 s) submitted together, locality off. FIFO finishes A
// at 20 s and B at 25 s; fair sharing finishes B at 10 s and A at 30 s.
func ExampleRun() {
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 1, MapSlots: 2}, Jobs: []sim.Job{
		{Name: "A", Maps: sim.Tasks{Count: 4, Mean: 10}},
		{Name: "B", Maps: sim.Tasks{Count: 2, Mean: 5}},
	}}
	for _, p := range []sim.Policy{&sim.FIFO{}, &sim.Fair{}} {
		r, err := sim.Run(w, p, &sim.Settings{IgnoreLocality: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-4s makespan %g s:", r.Policy, r.Makespan)
		for _, j := range r.Jobs {
			fmt.Printf(" %s %g–%g s", j.Name, j.Start, j.Finish)
		}
		fmt.Println()
	}
	// Output:
	// fifo makespan 25 s: A 0–20 s B 20–25 s
	// fair makespan 30 s: A 0–30 s B 0–10 s
}

// Slowdowns need each job's time alone on the empty cluster, which Alone
// simulates; Summarize turns them into the per-policy statistics.
func ExampleResult_Summarize() {
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 1, MapSlots: 2}, Jobs: []sim.Job{
		{Name: "A", Maps: sim.Tasks{Count: 4, Mean: 10}},
		{Name: "B", Maps: sim.Tasks{Count: 2, Mean: 5}},
	}}
	set := &sim.Settings{IgnoreLocality: true}
	r, _ := sim.Run(w, &sim.FIFO{}, set)
	alone, _ := sim.Alone(w, set) // A: 2 waves of 10 s; B: 1 wave of 5 s
	r.Summarize(alone)
	// A: 20 ÷ 20 = 1; B: 25 ÷ 5 = 5.
	fmt.Println(alone, r.Jobs[0].Slowdown, r.Jobs[1].Slowdown, r.Summary.V95)
	// Output:
	// [20 5] 1 5 5
}
