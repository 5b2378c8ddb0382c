package sim

import "testing"

// TestDPArrivalBetweenTicks: a queue that arrives between ticks takes part
// at once, as in the Dynamic Proportional Share paper, where the
// allocations are recalculated whenever a slot becomes available, for every
// user with a job pending or running.
//
// One node, 2 map slots, ticks every 20 s (the default), strict shares,
// budgets 1000. A (queue a, rate 1): 6 maps × 10 s at 0. B (queue b, rate
// 10): 2 maps × 10 s at 5.
//
//   - Tick 0: a alone, share 2: A runs 2 maps 0–10.
//   - 5: b arrives; price 1 + 10 = 11, quotas 2/11 = 0.18 and 20/11 = 1.82,
//     floors 0 and 1, the slot left to the larger remainder: a 0, b 2.
//   - 10: both slots free; b is under its share: B runs 10–20. (Waiting for
//     the tick, B would have started at 20 and A would have run 10–20.)
//   - Tick 20 comes before the task ends at 20: b holds 2 slots and pays
//     10 × 2 = 20; a holds none and pays nothing. B finishes at 20, queue b
//     leaves, a's share is 2 at once: A runs 20–30 and 30–40.
//   - Tick 40, before A's last maps end: a pays 1 × 2 = 2.
func TestDPArrivalBetweenTicks(t *testing.T) {
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2}, Jobs: []Job{
		{Name: "A", User: "a", Maps: Tasks{Count: 6, Mean: 10}},
		{Name: "B", User: "b", Arrival: 5, Maps: Tasks{Count: 2, Mean: 10}},
	}}
	p := &DP{DefaultBudget: 1000, Spending: map[string]float64{"b": 10}}
	r := mustRun(t, w, p, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 40}, "B": {10, 20}})
	spent := p.Spent()
	if spent["a"] != 2 || spent["b"] != 20 {
		t.Errorf("spent %v, want a 2 (2 slots at tick 40) and b 20 (2 slots × 10 at tick 20)", spent)
	}
	// With preemption the same: at tick 20 a holds nothing to take back.
	p.Preempt = true
	r = mustRun(t, w, p, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 40}, "B": {10, 20}})
	if p.Kills() != 0 {
		t.Errorf("%d kills, want 0", p.Kills())
	}
}

// TestDPQueueLeavingFreesItsShare: a queue whose last job finishes between
// ticks holds no share until the next tick. One node, 2 map slots, ticks
// every 20 s, rates 1, budgets 1000. A (queue a): 1 map × 5 s; B (queue b):
// 4 maps × 10 s; both at 0. Tick 0: shares 1 and 1: A 0–5, B 0–10. A
// finishes at 5: b's share is 2 at once and B's second map takes the freed
// slot, 5–15; B's third runs 10–20 and its fourth 15–25. (Holding a's share
// to the tick at 20, B's maps would run 0–10, 10–20, 20–30 and 20–30.)
func TestDPQueueLeavingFreesItsShare(t *testing.T) {
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2}, Jobs: []Job{
		{Name: "A", User: "a", Maps: Tasks{Count: 1, Mean: 5}},
		{Name: "B", User: "b", Maps: Tasks{Count: 4, Mean: 10}},
	}}
	r := mustRun(t, w, &DP{DefaultBudget: 1000}, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 5}, "B": {0, 25}})
}
