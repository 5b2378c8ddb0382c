package sim

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestDPSharesLargestRemainder(t *testing.T) {
	for _, c := range []struct {
		name  string
		rates []float64
		slots int
		want  []int
	}{
		// The Dynamic Proportional Share paper's Fig. 1: price 4 + 1.5 + 2 = 7.5; quotas 4/7.5·15 = 8,
		// 1.5/7.5·15 = 3, 2/7.5·15 = 4, whole already.
		{"seed example", []float64{4, 1.5, 2}, 15, []int{8, 3, 4}},
		// 10/3 = 3.33 each: floors 3+3+3 = 9, the one slot left goes to the
		// first of the tied remainders.
		{"tie", []float64{1, 1, 1}, 10, []int{4, 3, 3}},
		// Quotas 2/7·10 = 2.857 and 5/7·10 = 7.143: floors 2 and 7, the
		// slot left to the larger remainder 0.857.
		{"remainder", []float64{2, 5}, 10, []int{3, 7}},
		// A queue that takes no part gets nothing, even a leftover slot:
		// 1/2·3 = 1.5 each → 1, 1, and the third to the first.
		{"non-payer", []float64{1, 0, 1}, 3, []int{2, 0, 1}},
		{"nobody pays", []float64{0, 0}, 4, []int{0, 0}},
	} {
		if got := Shares(c.rates, c.slots); !slices.Equal(got, c.want) {
			t.Errorf("%s: Shares(%v, %d) = %v, want %v", c.name, c.rates, c.slots, got, c.want)
		}
	}
}

func TestDPBudgetExhaustionFallsBackToFIFO(t *testing.T) {
	// One node, 2 map slots, ticks every 10 s. B (queue b, no budget) is
	// first in the workload, A (queue a, budget 3, rate 1) second; both at 0.
	// Tick 0: only a can pay, share 2 of 2: A runs 2 maps 0–10, B waits.
	// Tick 10 (before the task ends at 10): a pays 1 × 2 slots → budget 1;
	// still paying, A runs 10–20. Tick 20: pays 2 → −1: nobody can pay, so
	// DP is FIFO and B, first in the workload, takes a slot: B 20–30, A's
	// fifth map 20–30 and its sixth 30–40.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2}, Jobs: []Job{
		{Name: "B", User: "b", Maps: Tasks{Count: 1, Mean: 10}},
		{Name: "A", User: "a", Maps: Tasks{Count: 6, Mean: 10}},
	}}
	p := &DP{Every: 10, Budget: map[string]float64{"a": 3}}
	r := mustRun(t, w, p, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 40}, "B": {20, 30}})
	if got := p.Spent()["a"]; got != 4 {
		t.Errorf("queue a spent %v, want 4 (2 slots at 10 and at 20)", got)
	}
	if got := p.Exhausted(); len(got) != 1 || got["a"] != 20 {
		t.Errorf("exhausted %v, want a at 20", got)
	}
	// With no budget anywhere DP is FIFO throughout: same times as FIFO.
	zero := mustRun(t, w, &DP{Every: 10}, &Settings{IgnoreLocality: true})
	fifo := mustRun(t, w, &FIFO{}, &Settings{IgnoreLocality: true})
	for j := range zero.Jobs {
		if zero.Jobs[j].Start != fifo.Jobs[j].Start || zero.Jobs[j].Finish != fifo.Jobs[j].Finish {
			t.Errorf("no budgets: job %s %v–%v, FIFO %v–%v", zero.Jobs[j].Name, zero.Jobs[j].Start, zero.Jobs[j].Finish, fifo.Jobs[j].Start, fifo.Jobs[j].Finish)
		}
	}
}

func TestDPPreemption(t *testing.T) {
	// One node, 2 map slots, ticks every 10 s, both queues rate 1, budget 100.
	// A (2 maps × 30 s) runs alone from 0. B (2 maps × 5 s) arrives at 5:
	// the slots are re-divided at once, 1 and 1, but no slot is free and
	// preemption waits for the tick. At 10 a holds 2 > 1, so A's most
	// recent task (both began at 0: the higher id, task 1) is killed, 10 s
	// lost. B runs 10–15 and 15–20. B finishes at 20: queue b leaves, a's
	// share is 2 again at once, and the freed slot takes A's killed map,
	// 20–50.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2}, Jobs: []Job{
		{Name: "A", User: "a", Maps: Tasks{Count: 2, Mean: 30}},
		{Name: "B", User: "b", Arrival: 5, Maps: Tasks{Count: 2, Mean: 5}},
	}}
	p := &DP{Every: 10, DefaultBudget: 100, Preempt: true}
	r := mustRun(t, w, p, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 50}, "B": {10, 20}})
	if p.Kills() != 1 || p.Wasted() != 10 {
		t.Errorf("kills %d, wasted %v slot-seconds; want 1 and 10", p.Kills(), p.Wasted())
	}
	// Work conserving: the same, the slot freed at 20 being a's by share.
	p = &DP{Every: 10, DefaultBudget: 100, Preempt: true, WorkConserving: true}
	r = mustRun(t, w, p, &Settings{IgnoreLocality: true})
	checkTimes(t, r, map[string][2]float64{"A": {0, 50}, "B": {10, 20}})
}

func TestHybSPriorityByHand(t *testing.T) {
	// α = 1, β = −1, γ = −1: job waited 30 s against an average of 20, maps
	// of 10 s against 40, 6 tasks left against 12:
	// (30/20)^1 · (10/40)^−1 · (6/12)^−1 = 1.5 · 4 · 2 = 12.
	got := HybSPriority(1, -1, -1, 0, 30, 20, 10, 40, 6, 12, 3)
	if got != 12 {
		t.Errorf("priority %v, want 12", got)
	}
	// δ = 2 with user weight u = 3 multiplies by 9: 108.
	if got := HybSPriority(1, -1, -1, 2, 30, 20, 10, 40, 6, 12, 3); got != 108 {
		t.Errorf("priority with δ = 2: %v, want 108", got)
	}
}

func TestHybSOrder(t *testing.T) {
	// One node, one map slot, all jobs at 0 (every wait equal, so α does not
	// matter). Big: 4 maps × 10 s; Small: 1 map × 10 s. Averages: maps 10 s
	// each, tasks (4 + 1)/2 = 2.5. With γ = −1 Small's priority is
	// (1/2.5)^−1 = 2.5 against Big's (4/2.5)^−1 = 0.625: Small runs 0–10,
	// Big 10–50. FCFS (α = 1 only) ties at 1, so workload order: Big 0–40,
	// Small 40–50.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1}, Jobs: []Job{
		{Name: "Big", Maps: Tasks{Count: 4, Mean: 10}},
		{Name: "Small", Maps: Tasks{Count: 1, Mean: 10}},
	}}
	set := &Settings{IgnoreLocality: true}
	checkTimes(t, mustRun(t, w, &HybS{Alpha: 1, Beta: -1, Gamma: -1}, set),
		map[string][2]float64{"Small": {0, 10}, "Big": {10, 50}})
	checkTimes(t, mustRun(t, w, &HybS{Alpha: 1}, set),
		map[string][2]float64{"Big": {0, 40}, "Small": {40, 50}})
	// Service level 0.5 caps Big at ⌈F · 0.5⌉ running maps, F its maps not
	// done, on a node with 4 slots: at 0 F = 4, 2 run 0–10; at 10 F = 2, one
	// runs 10–20; at 20 F = 1, the last runs 20–30.
	w.Cluster.MapSlots = 4
	w.Jobs = w.Jobs[:1]
	checkTimes(t, mustRun(t, w, &HybS{Alpha: 1, ServiceLevel: 0.5}, set),
		map[string][2]float64{"Big": {0, 30}})
}

func TestTyrexStaticMovesAtTimer(t *testing.T) {
	// Two nodes, one map slot each, partitions of one node each. A: 3 maps ×
	// 10 s; B: 1 map × 5 s at 15. Timer T1 = 20. A's maps run in P1 (node 0)
	// 0–10 and 10–20; at 20 its partial size reaches 10 + 10 = 20 = T1 and it
	// moves: its third map runs on node 1 (P2) 20–30, and node 0 goes to B,
	// 20–25.
	w := &Workload{Cluster: Cluster{Nodes: 2, MapSlots: 1}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 3, Mean: 10}},
		{Name: "B", Arrival: 15, Maps: Tasks{Count: 1, Mean: 5}},
	}}
	set := &Settings{IgnoreLocality: true}
	p := &Tyrex{Capacities: []float64{0.5, 0.5}, Timers: []float64{20}}
	r := mustRun(t, w, p, set)
	checkTimes(t, r, map[string][2]float64{"A": {0, 30}, "B": {20, 25}})
	if p.Partition(0) != 1 || p.Partial(0, 0) != 20 || p.Partial(0, 1) != 10 || p.Moves() != 1 {
		t.Errorf("A in P%d, partial sizes %v and %v, %d moves; want P2, 20, 10, 1",
			p.Partition(0)+1, p.Partial(0, 0), p.Partial(0, 1), p.Moves())
	}
	// A timer just above 20 keeps A in P1: its third map 20–30 there, B 30–35.
	p = &Tyrex{Capacities: []float64{0.5, 0.5}, Timers: []float64{20.5}}
	checkTimes(t, mustRun(t, w, p, set), map[string][2]float64{"A": {0, 30}, "B": {30, 35}})
	if p.Moves() != 0 {
		t.Errorf("%d moves with T1 = 20.5, want 0", p.Moves())
	}
}

func TestTyrexCutoffByHand(t *testing.T) {
	// Sizes 1, 2, 3, 4, 100: mean 22, variance (21² + 20² + 19² + 18² + 78²)/5
	// = 7610/5 = 1522, SCV 1522/484 = 3.14 > 2.
	xs := []float64{1, 2, 3, 4, 100}
	if got := SCV(xs); math.Abs(got-1522.0/484) > 1e-12 {
		t.Fatalf("SCV %v, want 1522/484", got)
	}
	// Just below p = 4: L = {1, 2, 3, p, p} → at p = 3: mean 2.4, variance
	// 0.64, SCV 0.111; R = {4 − p, 100 − p}, SCV ((96)/2)²/(52 − p)² ≈ 1 at
	// p → 4: L − R < 0. From p = 4 on: R = {100 − p} alone, SCV 0, and
	// L = {1, 2, 3, 4, p} has SCV > 0: L − R > 0. So the cutoff is 4 and
	// only the job of 100 moves.
	p, ok := Cutoff(xs)
	if !ok || math.Abs(p-4) > 1e-6 {
		t.Errorf("cutoff %v (%v), want 4", p, ok)
	}
	// Fibonacci-like sizes: whatever the shape of the empirical f(p) =
	// SCV(L_p) − SCV(R_p), the cutoff is where it changes sign: below 0 just
	// under it, not below 0 at it.
	ys := []float64{1, 1.5, 2, 3, 5, 8, 13, 21, 34, 55, 89, 400}
	f := func(p float64) float64 { return fByTwoPass(ys, p) }
	p, _ = Cutoff(ys)
	if !(f(p*(1-1e-6)) < 0 && f(p) >= 0) {
		t.Errorf("cutoff %v: f just below %v, at it %v; want < 0 and ≥ 0", p, f(p*(1-1e-6)), f(p))
	}
	if _, ok := Cutoff([]float64{3, 3}); ok {
		t.Error("equal sizes have no cutoff")
	}
}

// tyrexPair is the cluster of the dynamic Tyrex tests: two nodes of slots
// map slots each, one per partition at capacities {0.5, 0.5}, running jobs.
func tyrexPair(slots int, jobs ...Job) *Workload {
	return &Workload{Cluster: Cluster{Nodes: 2, MapSlots: slots}, Jobs: jobs}
}

// secondMaps is a job of n maps of 1 s each, submitted at arrival.
func secondMaps(name string, n int, arrival float64) Job {
	return Job{Name: name, Arrival: arrival, Maps: Tasks{Count: n, Mean: 1}}
}

func TestTyrexDynamicMovesTheBigJob(t *testing.T) {
	// The reading that counts waiting jobs at size 0 among the current jobs
	// only (CountWaiting, CurrentOnly).
	// P1 = node 0 with 5 map slots, P2 = node 1. The big job (100 maps × 1 s)
	// is first in FIFO order and takes all of P1 at 0; four small jobs of 1–4
	// maps × 1 s wait. At 1 the partial sizes in P1 are {5, 0, 0, 0, 0}:
	// mean 1, variance (16 + 4·1)/5 = 4, SCV 4 > 2. L_p = {p, 0, 0, 0, 0} has
	// SCV 4 for every p and R_p = {5 − p} has 0, so the cutoff tends to 0 and
	// the big job moves to P2. The small jobs then run in P1 from 1: s1 1–2,
	// s2 1–2, s3 and s4 have 7 maps for 5 slots left after s1 and s2 take 3:
	// they finish by 3. Without timers (everything in P1) they wait until
	// the big job's 20 waves are done: finish 21 or 22.
	w := tyrexPair(5, secondMaps("big", 100, 0), secondMaps("s1", 1, 0), secondMaps("s2", 2, 0),
		secondMaps("s3", 3, 0), secondMaps("s4", 4, 0))
	set := &Settings{IgnoreLocality: true}
	p := &Tyrex{Capacities: []float64{0.5, 0.5}, Dynamic: true, CountWaiting: true, CurrentOnly: true}
	r := mustRun(t, w, p, set)
	if p.Partition(0) != 1 {
		t.Errorf("big job in P%d, want P2", p.Partition(0)+1)
	}
	st := &Tyrex{Capacities: []float64{0.5, 0.5}} // no timers: all in P1
	rs := mustRun(t, w, st, set)
	for j := 1; j < 5; j++ {
		if r.Jobs[j].Finish > 3 || rs.Jobs[j].Finish < 21 {
			t.Errorf("%s finishes at %v with dynamic timers (want ≤ 3), %v without (want ≥ 21)", r.Jobs[j].Name, r.Jobs[j].Finish, rs.Jobs[j].Finish)
		}
	}
}

func TestTaskFairWeightsByTasks(t *testing.T) {
	// One node, 4 map slots, all at 0. Big: 9 maps × 10 s; Small: 3 maps ×
	// 10 s. Slots go to the lower running ÷ tasks: Big 0/9, Small 0/3 → Big
	// (tie to the earlier); Big 1/9 = 0.11 vs Small 0 → Small; Big 0.11 vs
	// Small 0.33 → Big; Big 0.22 vs 0.33 → Big. So Big runs 3, Small 1 in
	// the first wave (shares 9 : 3 of 4 slots = 3 : 1). Max-min fair would
	// give 2 and 2.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 4}, Jobs: []Job{
		{Name: "Big", Maps: Tasks{Count: 9, Mean: 10}},
		{Name: "Small", Maps: Tasks{Count: 3, Mean: 10}},
	}}
	rec := &recorder{}
	mustRun(t, w, &TaskFair{}, &Settings{IgnoreLocality: true, Trace: rec})
	first := map[int]int{}
	for _, l := range rec.lines {
		var tm float64
		var kind string
		var job int
		if _, err := fmt.Sscanf(l, "%g %s job=%d", &tm, &kind, &job); err == nil && tm == 0 && kind == "start" {
			first[job]++
		}
	}
	if first[0] != 3 || first[1] != 1 {
		t.Errorf("first wave: Big %d slots, Small %d; want 3 and 1", first[0], first[1])
	}
}

func TestHybSWindowAndLevels(t *testing.T) {
	// One node, 2 map slots, all at 0, γ = −1. A: 2 maps × 10 s with service
	// level 0.5, so at most ⌈F·0.5⌉ = 1 running map; B: 4 maps × 10 s. A has
	// fewer tasks and leads. With the window W = 1 only A is considered: the
	// second slot stays idle while A runs 0–10 and 10–20, and B runs after:
	// 20–30, 30–40. With no window B takes the slot A cannot: B 0–10, 10–20,
	// then both its last maps 20–30.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 2, Mean: 10}},
		{Name: "B", Maps: Tasks{Count: 4, Mean: 10}},
	}}
	set := &Settings{IgnoreLocality: true}
	levels := map[string]float64{"A": 0.5}
	checkTimes(t, mustRun(t, w, &HybS{Gamma: -1, Window: 1, Levels: levels}, set),
		map[string][2]float64{"A": {0, 20}, "B": {20, 40}})
	checkTimes(t, mustRun(t, w, &HybS{Gamma: -1, Levels: levels}, set),
		map[string][2]float64{"A": {0, 20}, "B": {0, 30}})
}

func TestHybSOnlineEstimates(t *testing.T) {
	// One node, one slot, β = −1 (shortest maps first). A: 4 maps × 10 s,
	// B: 4 maps × 2 s. From the workload's durations (the paper's history
	// logs) B's r = 2 beats A's 10: B 0–8, A 8–48. Online, no job has a
	// completed map at 0, both estimates are the stand-in 1 s and A goes first
	// by workload order; after its first map A's estimate is 10 s and B's
	// stand-in is the mean of the known ones, also 10: a tie again, so A runs
	// on, 0–40, and B 40–48.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 4, Mean: 10}},
		{Name: "B", Maps: Tasks{Count: 4, Mean: 2}},
	}}
	set := &Settings{IgnoreLocality: true}
	checkTimes(t, mustRun(t, w, &HybS{Beta: -1}, set), map[string][2]float64{"B": {0, 8}, "A": {8, 48}})
	checkTimes(t, mustRun(t, w, &HybS{Beta: -1, Online: true}, set), map[string][2]float64{"A": {0, 40}, "B": {40, 48}})
}

func ExampleShares() {
	// The Dynamic Proportional Share paper's Fig. 1: Alice bids $4, Bob $1.5, Sam $2 for 15 slots.
	fmt.Println(Shares([]float64{4, 1.5, 2}, 15))
	// Output: [8 3 4]
}

func TestDPSpendingChange(t *testing.T) {
	// One node, 2 map slots, ticks every 10 s, queues a and b at rate 1,
	// shares enforced strictly (no work conservation). A (a) and B (b): 4
	// maps × 10 s each at 0. Tick 0: shares 1 and 1, A and B run a map each
	// 0–10. At 10 a bids 3: quotas 3/4·2 = 1.5 and 0.5, floors 1 and 0, the
	// slot left to the first of the tied remainders: a 2, b 0. A runs 10–20
	// (two maps) and 20–30 (its last; the other slot idles: b's share is 0).
	// Tick 30 comes before A's last map ends, so b still has no share; A
	// finishes at 30, queue a leaves, b's share is 2 at once: B runs 30–40
	// (two maps) and 40–50.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2}, Jobs: []Job{
		{Name: "A", User: "a", Maps: Tasks{Count: 4, Mean: 10}},
		{Name: "B", User: "b", Maps: Tasks{Count: 4, Mean: 10}},
	}}
	p := &DP{Every: 10, DefaultBudget: 1000, Changes: []DPChange{{At: 10, Queue: "a", Spending: 3}}}
	checkTimes(t, mustRun(t, w, p, &Settings{IgnoreLocality: true}), map[string][2]float64{"A": {0, 30}, "B": {0, 50}})
	// The policy value runs again from its own settings: the change does not
	// stick.
	checkTimes(t, mustRun(t, w, p, &Settings{IgnoreLocality: true}), map[string][2]float64{"A": {0, 30}, "B": {0, 50}})
}

func TestDPChangeBilledFromNextInterval(t *testing.T) {
	// One node, 2 map slots, ticks every 10 s, queue a alone at rate 3 with
	// budget 1000; A: 16 maps × 10 s at 0 holds both slots 0–80. a bids 2 from
	// t = 10. Ticks come before the task ends at the same instant, so every
	// tick 10, 20, ..., 80 finds a holding 2 slots. Tick 0 bills nothing (no
	// interval has ended). The interval 0–10 was priced at rate 3, so tick 10
	// bills 3 × 2 = 6 and only then applies the new rate; ticks 20..80 bill
	// 2 × 2 = 4 each: 6 + 7 × 4 = 34. (Applying the change first bills 0–10
	// at the new rate: 8 × 4 = 32.)
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 2}, Jobs: []Job{
		{Name: "A", User: "a", Maps: Tasks{Count: 16, Mean: 10}},
	}}
	p := &DP{Every: 10, Budget: map[string]float64{"a": 1000}, Spending: map[string]float64{"a": 3},
		Changes: []DPChange{{At: 10, Queue: "a", Spending: 2}}}
	checkTimes(t, mustRun(t, w, p, &Settings{IgnoreLocality: true}), map[string][2]float64{"A": {0, 80}})
	if got := p.Spent()["a"]; got != 34 {
		t.Errorf("queue a spent %v, want 34 (6 for 0–10 at the old rate, then 7 × 4)", got)
	}
}

func TestTyrexDynamicReadings(t *testing.T) {
	// P1 = node 0, P2 = node 1, one map slot each. At 0: s1..s4 (1 map × 1 s
	// each) and big (20 maps × 1 s); s5 (1 map × 1 s) at 10. P1 is FIFO: s1
	// 0–1, ..., s4 3–4, big from 4, one map a second, s5 waits behind it.
	// Default reading: X = the started jobs' partial sizes plus the finished
	// jobs' {1, 1, 1, 1}. With big at x, SCV{x, 1, 1, 1, 1} is 1.993 at
	// x = 13 and 2.086 at x = 14 (t = 18), above 2: for p < 1, L_p is
	// constant and f < 0; for p ≥ 1, R_p = {x − p} alone and f > 0: cutoff 1,
	// big moves. Its 6 maps left run in P2 18–24; s5 runs in P1 18–19.
	w := tyrexPair(1, secondMaps("s1", 1, 0), secondMaps("s2", 1, 0), secondMaps("s3", 1, 0),
		secondMaps("s4", 1, 0), secondMaps("big", 20, 0), secondMaps("s5", 1, 10))
	set := &Settings{IgnoreLocality: true}
	caps := []float64{0.5, 0.5}
	p := &Tyrex{Capacities: caps, Dynamic: true}
	checkTimes(t, mustRun(t, w, p, set), map[string][2]float64{"big": {4, 24}, "s5": {18, 19}})
	if p.Partition(4) != 1 || p.Partial(4, 0) != 14 || p.Partial(4, 1) != 6 || p.Moves() != 1 {
		t.Errorf("big in P%d, partial sizes %v and %v, %d moves; want P2, 14, 6, 1", p.Partition(4)+1, p.Partial(4, 0), p.Partial(4, 1), p.Moves())
	}
	if got := p.FinishedIn(); !slices.Equal(got, []int{5, 1}) {
		t.Errorf("finished in %v, want [5 1]", got)
	}
	// Current jobs only: big is the only started job in P1 whenever one of
	// its maps ends, a single value, so nothing moves and s5 waits: 24–25.
	// Counting waiting jobs at 0 as well changes nothing: at 1 and 2 the
	// job just finished is alone above the cutoff ({1, 0, 0, 0, 0}, SCV 4)
	// and has nowhere to go; from 3 on {1, 0, 0} and {x, 0} have SCV 2 and 1.
	for _, cw := range []bool{false, true} {
		p := &Tyrex{Capacities: caps, Dynamic: true, CurrentOnly: true, CountWaiting: cw}
		checkTimes(t, mustRun(t, w, p, set), map[string][2]float64{"big": {4, 24}, "s5": {24, 25}})
		if p.Moves() != 0 {
			t.Errorf("current jobs only, waiting counted %v: %d moves, want 0", cw, p.Moves())
		}
	}
}

func TestTyrexServesInOrderOfEntry(t *testing.T) {
	// Static T1 = 10; P1 = node 0, P2 = node 1, one map and one reduce slot
	// each. At 0, in this order: E (maps 1 s and 1 s, reduces 20 s and
	// 10 s) and L (one map of 12 s, two reduces of 10 s); no shuffle time.
	// P1: E's maps 0–1, 1–2; its reduces are ready at 2 and the first takes
	// P1's reduce slot 2–22. L's map runs 2–14: partial size 12 ≥ 10, L moves
	// to P2, whose reduce slot takes L's first reduce 14–24. At 22 E's first
	// reduce ends in P1: 2 + 20 ≥ 10, E moves to P2, behind L. At 24 P2's
	// reduce slot goes to the job that entered P2 first, L: 24–34, then E's
	// last reduce 34–44. (In order of arrival E would take it: E 24–34,
	// L 34–44.)
	w := &Workload{Cluster: Cluster{Nodes: 2, MapSlots: 1, ReduceSlots: 1}, Jobs: []Job{
		{Name: "E", Maps: Tasks{Durations: []float64{1, 1}}, Reduces: Tasks{Durations: []float64{20, 10}}},
		{Name: "L", Maps: Tasks{Count: 1, Mean: 12}, Reduces: Tasks{Count: 2, Mean: 10}},
	}}
	p := &Tyrex{Capacities: []float64{0.5, 0.5}, Timers: []float64{10}}
	checkTimes(t, mustRun(t, w, p, &Settings{IgnoreLocality: true}), map[string][2]float64{"E": {0, 44}, "L": {2, 34}})
	if p.Moves() != 2 {
		t.Errorf("%d moves, want 2", p.Moves())
	}
}

func TestHybSWaitSinceServed(t *testing.T) {
	// One node, one slot, α = 1 alone. A: 3 maps × 10 s at 0; B: 3 maps ×
	// 10 s at 5. From submission (the default) A's wait is always 5 s longer
	// than B's: A 0–30, B 30–60. Since last served: at 10 A's map has just
	// ended (t_d = 1) while B has waited since 5 (t_d = 6): B 10–20; at 20
	// A has waited since 10 (11) and B just ended (1): A 20–30, and so on,
	// in turn: A 0–10, 20–30, 40–50; B 10–20, 30–40, 50–60.
	w := &Workload{Cluster: Cluster{Nodes: 1, MapSlots: 1}, Jobs: []Job{
		{Name: "A", Maps: Tasks{Count: 3, Mean: 10}},
		{Name: "B", Arrival: 5, Maps: Tasks{Count: 3, Mean: 10}},
	}}
	set := &Settings{IgnoreLocality: true}
	checkTimes(t, mustRun(t, w, &HybS{Alpha: 1}, set), map[string][2]float64{"A": {0, 30}, "B": {30, 60}})
	checkTimes(t, mustRun(t, w, &HybS{Alpha: 1, WaitSinceServed: true}, set), map[string][2]float64{"A": {0, 50}, "B": {10, 60}})
}
