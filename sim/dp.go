package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// DP is the Dynamic Priority scheduler of Sandholm & Lai, "Dynamic Proportional Share Scheduling in Hadoop" (JSSPP 2010) (section 3.1). Every job's User
// is its queue. Every allocation interval (Tick):
//
//  1. each queue that ran tasks in the interval just ended pays its spending
//     rate s_i of that interval per slot it holds now (map and reduce), u_i
//     slots: b_i −= s_i·u_i; only then do spending-rate changes (Changes)
//     due by now apply, to the interval that starts;
//  2. the price is the sum of the spending rates of the queues with pending or
//     running work and budget left (b_i > 0);
//  3. each such queue's share is s_i / price × the cluster's slots, for map and
//     for reduce slots separately, in whole slots by the largest-remainder
//     rule: each gets ⌊quota⌋, and the slots left over go one each to the
//     largest fractional parts (ties to the queue first seen). Bids $4, $1.5
//     and $2 over 15 slots: quotas 8, 3 and 4 exactly.
//
// Between ticks the shares follow the queues with work: a queue whose first
// job arrives takes part at once (its share is computed at arrival, at the
// rates and budgets in force, and the next freed slot can be its), and a
// queue whose last job finishes leaves at once, its share going to the
// others; the DP paper recalculates the allocations whenever a slot becomes
// available, for every user with a job pending or running. Billing,
// rate changes and preemption wait for the tick. A 10× bidder arriving at
// t = 5 on a full cluster thus starts when the first slot frees (t = 10),
// not at the tick at 20.
//
// A free slot goes to the queue furthest below its share (fewest running ÷
// share, ties to the queue first seen), FIFO within the queue. A queue that
// cannot pay gets no share; with no queue able to pay DP is FIFO. With
// WorkConserving, a slot no queue under its share can use goes FIFO to any
// job. With Preempt, at each tick a queue above its share loses its most
// recently started tasks while queues below their share have pending tasks
// of that kind; killed tasks start again from zero (Wasted counts the lost
// slot-seconds).
type DP struct {
	// Every is the allocation interval in seconds; default 20.
	Every float64
	// Budget and Spending give queues (users) their budget and spending rate
	// per slot per interval; a queue not named has DefaultBudget and spending
	// rate 1. DefaultBudget 0 means such queues cannot pay.
	Budget        map[string]float64
	Spending      map[string]float64
	DefaultBudget float64
	// Changes set a queue's spending rate from a time on (a workload event:
	// a user bidding more for a while), applied at the first tick at or after
	// At, in order, after that tick has billed the interval just ended.
	Changes []DPChange
	// Preempt kills tasks of queues above their share at each tick.
	Preempt bool
	// WorkConserving gives slots no entitled queue can use to any job.
	WorkConserving bool
	// Label replaces the name in results.
	Label string

	queues   int
	budget   []float64
	rate     []float64
	share    [2][]int
	paying   []bool
	changed  int
	wasted   float64
	kills    int
	active   []int32
	fifoMode bool
	spent    []float64
	names    []string
	broke    []float64 // when each queue's budget first ran out; +Inf if never
}

// DPChange sets Queue's spending rate to Spending at time At (seconds).
type DPChange struct {
	At       float64
	Queue    string
	Spending float64
}

var (
	_ Policy          = (*DP)(nil)
	_ Starter         = (*DP)(nil)
	_ Periodic        = (*DP)(nil)
	_ ArrivalObserver = (*DP)(nil)
	_ FinishObserver  = (*DP)(nil)
)

// Name is Label, or "dp" ("dp+preempt" with preemption).
func (d *DP) Name() string {
	switch {
	case d.Label != "":
		return d.Label
	case d.Preempt:
		return "dp+preempt"
	}
	return "dp"
}

// Interval is the allocation interval.
func (d *DP) Interval() float64 {
	if d.Every == 0 {
		return 20
	}
	return d.Every
}

// Validate rejects negative budgets, rates and intervals.
func (d *DP) Validate() error {
	if !(d.Every >= 0) || math.IsInf(d.Every, 0) {
		return fmt.Errorf("sim: dp: interval must be finite and not negative, got %v", d.Every)
	}
	for q, v := range d.Spending {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("sim: dp: queue %q: spending rate must be finite and not negative, got %v", q, v)
		}
	}
	for q, v := range d.Budget {
		if !(v >= 0) {
			return fmt.Errorf("sim: dp: queue %q: budget must not be negative, got %v", q, v)
		}
	}
	for i, c := range d.Changes {
		if !(c.Spending >= 0) || !(c.At >= 0) || math.IsInf(c.Spending, 0) {
			return fmt.Errorf("sim: dp: changes[%d]: time and spending rate must be finite and not negative, got %v and %v", i, c.At, c.Spending)
		}
	}
	return nil
}

// Start sets every queue's budget and rate. It panics on what Validate
// rejects.
func (d *DP) Start(s *State) {
	if err := d.Validate(); err != nil {
		panic(err.Error())
	}
	d.queues = s.Users()
	d.budget = make([]float64, d.queues)
	d.rate = make([]float64, d.queues)
	d.spent = make([]float64, d.queues)
	d.paying = make([]bool, d.queues)
	d.broke = make([]float64, d.queues)
	for q := range d.broke {
		d.broke[q] = math.Inf(1)
	}
	names := make([]string, d.queues)
	for j := range s.Jobs() {
		names[s.User(j)] = s.Job(j).User
	}
	for q, name := range names {
		d.budget[q] = d.DefaultBudget
		if b, ok := d.Budget[name]; ok {
			d.budget[q] = b
		}
		d.rate[q] = 1
		if r, ok := d.Spending[name]; ok {
			d.rate[q] = r
		}
	}
	for k := range d.share {
		d.share[k] = make([]int, d.queues)
	}
	d.changed, d.wasted, d.kills = 0, 0, 0
	d.active = d.active[:0]
	d.fifoMode = true
	d.names = names
}

// Wasted is the slot-seconds of killed tasks' lost work in the last run.
func (d *DP) Wasted() float64 { return d.wasted }

// Kills is how many tasks the last run killed.
func (d *DP) Kills() int { return d.kills }

// Spent is what each queue (by name) paid in the last run.
func (d *DP) Spent() map[string]float64 {
	out := make(map[string]float64, d.queues)
	for q, v := range d.spent {
		out[d.names[q]] = v
	}
	return out
}

// Exhausted is, for each queue (by name) whose budget ran out in the last
// run, the tick at which it did.
func (d *DP) Exhausted() map[string]float64 {
	out := map[string]float64{}
	for q, t := range d.broke {
		if !math.IsInf(t, 1) {
			out[d.names[q]] = t
		}
	}
	return out
}

// JobArrived adds the job in FIFO order (arrivals come in time order). A
// queue that had no job in the system takes part from now on: the slots are
// re-divided at once (before the tick), so the first slot freed after its
// arrival can go to it, as the DP paper recalculates the allocations
// whenever a slot becomes available and computes one for every user with a
// job pending or running. Billing stays per interval.
func (d *DP) JobArrived(s *State, j int) {
	q := s.User(j)
	joins := !d.queueBusy(s, q)
	d.active = append(d.active, int32(j))
	if joins && d.budget[q] > 0 && d.rate[q] > 0 {
		d.divide(s)
	}
}

// JobFinished removes the job. A queue left with no job stops taking part
// at once: its share goes to the queues with work, which may use slots it
// no longer needs before the next tick.
func (d *DP) JobFinished(s *State, j int) {
	if i := slices.Index(d.active, int32(j)); i >= 0 {
		d.active = slices.Delete(d.active, i, i+1)
	}
	if q := s.User(j); d.paying[q] && !d.queueBusy(s, q) {
		d.divide(s)
		for n := range s.Nodes() {
			s.Wake(n)
		}
	}
}

// Shares divides slots among queues with the given spending rates (0 for a
// queue that takes no part) in proportion to the rates, in whole slots by the
// largest-remainder rule (ties to the lower index).
func Shares(rates []float64, slots int) []int {
	out := make([]int, len(rates))
	var price float64
	for _, r := range rates {
		price += r
	}
	if price <= 0 {
		return out
	}
	rem := make([]float64, len(rates))
	left := slots
	for i, r := range rates {
		q := r / price * float64(slots)
		// Guard against 7.999999 when the quota is a whole number.
		f := math.Floor(q + 1e-9)
		out[i] = int(f)
		rem[i] = q - f
		left -= out[i]
	}
	idx := make([]int, len(rates))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(rem[b], rem[a]) })
	for _, i := range idx {
		if left <= 0 {
			break
		}
		if rates[i] > 0 {
			out[i]++
			left--
		}
	}
	return out
}

// running counts each queue's running tasks of kind.
func (d *DP) running(s *State, k Kind) []int {
	out := make([]int, d.queues)
	for _, j := range d.active {
		out[s.User(int(j))] += s.Running(int(j), k)
	}
	return out
}

// demand reports which queues have a pending task of kind.
func (d *DP) demand(s *State, k Kind) []bool {
	out := make([]bool, d.queues)
	for _, j := range d.active {
		if s.Pending(int(j), k) > 0 {
			out[s.User(int(j))] = true
		}
	}
	return out
}

// Tick charges, re-prices, re-divides and preempts.
func (d *DP) Tick(s *State) {
	// The interval that just ended is billed at the rate its shares were
	// computed from; a change of rate takes effect for the next one, as the
	// DP paper prices each interval from the rates of the one before it.
	run := [2][]int{d.running(s, Map), d.running(s, Reduce)}
	for q := range d.queues {
		if u := run[Map][q] + run[Reduce][q]; u > 0 && d.paying[q] {
			cost := d.rate[q] * float64(u)
			d.budget[q] -= cost
			d.spent[q] += cost
			if d.budget[q] <= 0 && math.IsInf(d.broke[q], 1) {
				d.broke[q] = s.Now()
			}
		}
	}
	for d.changed < len(d.Changes) && d.Changes[d.changed].At <= s.Now() {
		c := d.Changes[d.changed]
		if q := slices.Index(d.names, c.Queue); q >= 0 {
			d.rate[q] = c.Spending
		}
		d.changed++
	}
	d.divide(s)
	if d.Preempt && !d.fifoMode {
		for k := Map; k <= Reduce; k++ {
			d.preempt(s, k, run[k])
		}
	}
	for n := range s.Nodes() {
		s.Wake(n)
	}
}

// divide re-prices and re-divides the slots among the queues with work
// (pending or running) that can pay, at the rates and budgets in force.
func (d *DP) divide(s *State) {
	busy := make([]bool, d.queues)
	for _, j := range d.active {
		busy[s.User(int(j))] = true
	}
	rates := make([]float64, d.queues)
	d.fifoMode = true
	for q := range d.queues {
		d.paying[q] = busy[q] && d.budget[q] > 0 && d.rate[q] > 0
		if d.paying[q] {
			rates[q] = d.rate[q]
			d.fifoMode = false
		}
	}
	for k := Map; k <= Reduce; k++ {
		d.share[k] = Shares(rates, s.Nodes()*s.Slots(k))
	}
}

// queueBusy reports whether queue q has a job in the system.
func (d *DP) queueBusy(s *State, q int) bool {
	for _, j := range d.active {
		if s.User(int(j)) == q {
			return true
		}
	}
	return false
}

// preempt frees, for queues under their share with pending tasks, slots held
// beyond their share by other queues, killing the most recently started
// tasks first (least work lost).
func (d *DP) preempt(s *State, k Kind, run []int) {
	want := 0
	dem := d.demand(s, k)
	for q := range d.queues {
		if dem[q] && run[q] < d.share[k][q] {
			want += d.share[k][q] - run[q]
		}
	}
	free := 0
	for n := range s.Nodes() {
		free += s.FreeSlots(n, k)
	}
	want -= free
	if want <= 0 {
		return
	}
	type victim struct {
		task  int
		start float64
	}
	var vs []victim
	for n := range s.Nodes() {
		for i := range s.Slots(k) {
			if t := s.SlotTask(n, k, i); t >= 0 {
				vs = append(vs, victim{t, s.TaskStart(t)})
			}
		}
	}
	slices.SortStableFunc(vs, func(a, b victim) int {
		if c := cmp.Compare(b.start, a.start); c != 0 {
			return c
		}
		return cmp.Compare(b.task, a.task)
	})
	over := make([]int, d.queues)
	for q := range over {
		over[q] = run[q] - d.share[k][q]
	}
	for _, v := range vs {
		if want == 0 {
			break
		}
		q := s.User(s.TaskJob(v.task))
		if over[q] <= 0 {
			continue
		}
		d.wasted += s.Now() - v.start
		if s.Kill(v.task) {
			d.kills++
			over[q]--
			want--
		}
	}
}

// Assign gives the slot to the queue furthest below its share.
func (d *DP) Assign(s *State, _ int, k Kind) int {
	if d.fifoMode {
		return d.fifo(s, k, nil)
	}
	run := d.running(s, k)
	best, bestRatio := -1, math.Inf(1)
	dem := d.demand(s, k)
	for q := range d.queues {
		if !dem[q] || run[q] >= d.share[k][q] {
			continue
		}
		if r := float64(run[q]) / float64(d.share[k][q]); r < bestRatio {
			best, bestRatio = q, r
		}
	}
	if best >= 0 {
		return d.fifo(s, k, func(q int) bool { return q == best })
	}
	if d.WorkConserving {
		return d.fifo(s, k, nil)
	}
	return Idle
}

// fifo is the first job, in arrival order, of a queue ok accepts (nil: any)
// with a pending task of kind.
func (d *DP) fifo(s *State, k Kind, ok func(q int) bool) int {
	for _, j := range d.active {
		if (ok == nil || ok(s.User(int(j)))) && s.Pending(int(j), k) > 0 {
			return int(j)
		}
	}
	return Idle
}
