package experiments

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/packer-sched/packer/sim"
)

// The experiments of the DP paper (Sandholm & Lai, JSSPP 2010): dynamic
// proportional share, where a queue's slot share follows its spending rate
// while its budget lasts.

func dpBudget() Experiment {
	return Experiment{
		Name: "dp-budget", Paper: DPPaper,
		Title: "2 queues, budgets 1000 and 10000, spending 0.5 : 0.25 per slot per 20 s, with preemption: the service each queue " +
			"gets while q1 can pay, and after its budget ran out",
		Columns:  []string{"q1 (rate 2) (s)", "q2 (rate 1) (s)", "q2 ÷ q1", "q1 budget out at (s)"},
		Rows:     []string{"run time, jobs run while q1 pays", "response, jobs submitted after q1's budget ran out"},
		Reported: []string{"q1 about 3000 s, q2 4500–5800 s: 1.5–1.9×, about 1.8", "q1 degrades significantly"},
		Run:      runDPBudget,
		Check: func(med Table) []Check {
			return []Check{
				{Claim: "while q1 pays twice q2's rate its jobs run 1.5–2.5× faster than q2's", Holds: med[0][2] >= 1.5 && med[0][2] <= 2.5},
				{Claim: "once its budget runs out q1's jobs take over twice as long as q2's", Holds: med[1][0] > 2*med[1][1]},
			}
		},
	}
}

func runDPBudget(seed uint64, small bool) (Table, error) {
	jobs := 30
	if small {
		jobs = 20
	}
	w := DPTwoQueues(jobs, seed)
	p := dp(dpSettings{budget: map[string]float64{"q1": 1000, "q2": 10000}, spending: map[string]float64{"q1": 0.5, "q2": 0.25},
		preempt: true, conserv: true})
	r, err := sim.Run(w, p, &sim.Settings{Seed: seed})
	if err != nil {
		return nil, err
	}
	out, ok := p.Exhausted()["q1"]
	if !ok {
		return nil, errors.New("q1's budget never ran out")
	}
	// While q1 pays, the run time (first task to last) of the jobs that ran
	// entirely then: both queues are backlogged, so response times grow with
	// the backlog, while run times show the service each queue gets. After,
	// the response time of the jobs submitted then: q1's wait for slots is
	// what degrades.
	mean := func(q string, before bool) float64 {
		var sum float64
		n := 0
		for _, j := range r.Jobs {
			switch {
			case j.User != q:
			case before && j.Finish < out:
				sum += j.Finish - j.Start
				n++
			case !before && j.Submit >= out:
				sum += j.Response
				n++
			}
		}
		return sum / float64(max(n, 1))
	}
	b1, b2, a1, a2 := mean("q1", true), mean("q2", true), mean("q1", false), mean("q2", false)
	return Table{{b1, b2, b2 / b1, out}, {a1, a2, a2 / a1, out}}, nil
}

// dpSharesQueues is the number of queues of dp-shares: queue n spends n.
const dpSharesQueues = 10

func dpShares() Experiment {
	rows := make([]string, dpSharesQueues)
	reported := make([]string, dpSharesQueues)
	for q := range rows {
		rows[q] = fmt.Sprintf("q%d (rate %d, %.1f %%)", q+1, q+1, 100*float64(q+1)/55)
	}
	reported[0] = "10 service levels, ordered by spending (Fig. 5, 8)"
	reported[1] = "levels 1 and 2 a bit below ideal (Fig. 8)"
	return Experiment{
		Name: "dp-shares", Paper: DPPaper,
		Title: "10 queues with spending rate n (share n/55) on 110 map slots: slot share while every queue has work, " +
			"and the completion time of each queue's first job",
		Columns: []string{"DP map share %", "DP+preempt+work-conserving %", "FIFO map share %", "DP first job (s)", "FIFO first job (s)"},
		Rows:    rows, Reported: reported,
		Run:   runDPShares,
		Check: checkDPShares,
	}
}

// spendingByQueue gives queue qn spending rate n, for n = 1..queues.
func spendingByQueue(queues int) map[string]float64 {
	rates := map[string]float64{}
	for q := 1; q <= queues; q++ {
		rates[fmt.Sprintf("q%d", q)] = float64(q)
	}
	return rates
}

func runDPShares(seed uint64, small bool) (Table, error) {
	jobs := 4
	if small {
		jobs = 2
	}
	w := DPQueues(dpSharesQueues, jobs, seed)
	rates := spendingByQueue(dpSharesQueues)
	out := make(Table, dpSharesQueues)
	for q := range out {
		out[q] = make([]float64, 5)
	}
	// Columns 0–2: the map share under each policy; 3 and 4: the first
	// jobs' completion under DP and FIFO.
	firstJobCol := []int{3, -1, 4}
	for i, p := range []sim.Policy{
		dp(dpSettings{spending: rates, defaultBudget: 1e9}),
		dp(dpSettings{spending: rates, defaultBudget: 1e9, conserv: true, preempt: true}),
		fifo()} {
		tr := newBusyTracer(w)
		r, err := sim.Run(w, p, &sim.Settings{Seed: seed, Trace: tr})
		if err != nil {
			return nil, err
		}
		for q, share := range mapShares(w, tr.spans, dpSharesQueues) {
			out[q][i] = share
			if c := firstJobCol[i]; c >= 0 {
				out[q][c] = r.Jobs[q].Response // job k of queue q is index k·queues + q
			}
		}
	}
	return out, nil
}

// mapShares is each queue's percentage of the map slot time used while
// every queue competes: until the first queue has started its last map,
// every queue has pending maps.
func mapShares(w *sim.Workload, spans []span, queues int) []float64 {
	last := make([]float64, queues)
	for _, iv := range spans {
		if iv.kind == sim.Map {
			q := queueOf(w.Jobs[iv.job].User)
			last[q] = max(last[q], iv.start)
		}
	}
	until := slices.Min(last)
	busy := make([]float64, queues)
	total := 0.0
	for _, iv := range spans {
		if iv.kind != sim.Map {
			continue
		}
		d := min(iv.end, until) - iv.start
		if d <= 0 {
			continue
		}
		busy[queueOf(w.Jobs[iv.job].User)] += d
		total += d
	}
	for q := range busy {
		busy[q] = 100 * busy[q] / total
	}
	return busy
}

func checkDPShares(med Table) []Check {
	inc := func(col int) bool {
		for q := 1; q < len(med); q++ {
			if med[q][col] <= med[q-1][col] {
				return false
			}
		}
		return true
	}
	dec := func(col int) bool {
		for q := 1; q < len(med); q++ {
			if med[q][col] >= med[q-1][col] {
				return false
			}
		}
		return true
	}
	within := true
	for q := range med {
		ideal := 100 * float64(q+1) / 55
		within = within && math.Abs(med[q][0]-ideal) <= 0.25*ideal
	}
	return []Check{
		{Claim: "DP: slot share grows strictly with the spending rate", Holds: inc(0)},
		{Claim: "DP with preemption: likewise", Holds: inc(1)},
		{Claim: "DP: every queue's share within 25 % of n/55", Holds: within},
		{Claim: "DP: first jobs finish strictly sooner the more their queue spends", Holds: dec(3)},
	}
}

// dp80 is the DP paper's 80-queue run: queue n spends n, so its share is
// n/3240 of the slots; on 110 map slots most quotas are below one slot and
// the largest-remainder rule gives whole slots, so only a handful of service
// levels exist (the paper saw about 10, in groups of 10–15 users).
func dp80() Experiment {
	rows := make([]string, dp80Queues/dp80Group)
	for g := range rows {
		rows[g] = fmt.Sprintf("q%d–q%d", g*dp80Group+1, (g+1)*dp80Group)
	}
	reported := make([]string, len(rows))
	reported[0] = "about 10 service levels, users in groups of 10–15 (Fig. 6, 9)"
	return Experiment{
		Name: "dp-80", Paper: DPPaper,
		Title:   "80 queues with spending rate n on 110 map slots, shares enforced strictly, one 40-map job each at 0: completion time by group of 10 queues",
		Columns: []string{"DP mean completion (s)", "FIFO mean completion (s)", "distinct DP completion levels"},
		Rows:    rows, Reported: reported,
		Run: runDP80,
		Check: func(med Table) []Check {
			dec := true
			for g := 1; g < len(med); g++ {
				dec = dec && med[g][0] < med[g-1][0]
			}
			return []Check{
				{Claim: "DP: each group of 10 queues finishes sooner than the group spending less", Holds: dec},
				{Claim: "DP: a few distinct service levels, not 80 (between 3 and 30)", Holds: med[0][2] >= 3 && med[0][2] <= 30},
			}
		},
	}
}

// dp-80's queues, reported in groups of dp80Group.
const dp80Queues, dp80Group = 80, 10

func runDP80(seed uint64, small bool) (Table, error) {
	w := DPQueues(dp80Queues, 1, seed)
	rs, err := runPolicies(w, seed, false, dp(dpSettings{spending: spendingByQueue(dp80Queues), defaultBudget: 1e9}), fifo())
	if err != nil {
		return nil, err
	}
	// Completion levels: finishes rounded to the 20 s allocation interval,
	// the resolution at which DP can tell queues apart.
	levels := map[float64]bool{}
	for _, j := range rs[0].Jobs {
		levels[math.Round(j.Response/20)] = true
	}
	out := make(Table, dp80Queues/dp80Group)
	for g := range out {
		in := func(j sim.JobResult) bool { q := queueOf(j.User); return q >= g*dp80Group && q < (g+1)*dp80Group }
		out[g] = []float64{meanResponse(rs[0], in), meanResponse(rs[1], in), float64(len(levels))}
	}
	return out, nil
}

func dpBoost() Experiment {
	return Experiment{
		Name: "dp-boost", Paper: DPPaper,
		Title:    "10 users × 10 jobs; user n bids 4× for its n-th job: completion times",
		Columns:  []string{"with preemption (s)", "without (s)"},
		Rows:     []string{"boosted jobs", "other jobs", "speed-up (other ÷ boosted)"},
		Reported: []string{"about 300 s", "about 900 s", "about 3×"},
		Run:      runDPBoost,
		Check: func(med Table) []Check {
			return []Check{
				{Claim: "boosted jobs finish faster than the others, with and without preemption", Holds: med[0][0] < med[1][0] && med[0][1] < med[1][1]},
			}
		},
	}
}

func runDPBoost(seed uint64, small bool) (Table, error) {
	w, period := DPBoost(seed)
	var changes []sim.DPChange
	for u := 1; u <= 10; u++ {
		q := fmt.Sprintf("u%d", u)
		changes = append(changes, sim.DPChange{At: float64(u-1) * period, Queue: q, Spending: 4},
			sim.DPChange{At: float64(u) * period, Queue: q, Spending: 1})
	}
	slices.SortStableFunc(changes, func(a, b sim.DPChange) int { return cmp.Compare(a.At, b.At) })
	rs, err := runPolicies(w, seed, false,
		dp(dpSettings{defaultBudget: 1e6, changes: changes, conserv: true, preempt: true}),
		dp(dpSettings{defaultBudget: 1e6, changes: changes, conserv: true}))
	if err != nil {
		return nil, err
	}
	boosted := func(j sim.JobResult) bool {
		var u, k int
		_, err := fmt.Sscanf(j.Name, "u%d-%d", &u, &k)
		return err == nil && u == k
	}
	out := Table{make([]float64, 2), make([]float64, 2), make([]float64, 2)}
	for i, r := range rs {
		b := meanResponse(r, boosted)
		o := meanResponse(r, func(j sim.JobResult) bool { return !boosted(j) })
		out[0][i], out[1][i], out[2][i] = b, o, o/b
	}
	return out, nil
}
