package sim

import (
	"fmt"
	"math"
	"slices"
)

// Tyrex is the size-based partitioning of the Tyrex paper (Ghiț & Epema,
// CCGrid 2016, section IV): the nodes, and so their map and reduce slots,
// are split into K partitions with capacities C_1..C_K (fractions of the
// cluster), each served FIFO in order of entry into the partition (a job
// that moves joins the back of the next partition's queue, behind the jobs
// already there). Every job enters P1; its partial size in a partition is
// the total run time of its tasks that completed there (slot-seconds). A job leaves P_k for P_k+1 when it is too big
// for it, keeping its completed work; its tasks still running in P_k finish
// there, and its further tasks run in P_k+1.
//
// When is a job too big? Static (STATICTAGS): as soon as its partial size in
// P_k reaches the timer T_k (the task completion that brings it to T_k or
// beyond moves it; T_K = ∞). Dynamic (DYNAMICTAGS): at every task completion,
// in each partition but the last whose distribution of partial sizes X
// (below) has changed and has a squared coefficient of variation above
// SCVLimit (default 2), the cutoff p with SCV(min(X, p)) = SCV(X − p | X > p)
// is found (by Cutoff's bisection; see migrate) and the partition's jobs
// above it move on.
//
// Which jobs' partial sizes make up X, section IV-D leaves open ("the
// distribution of the current partial job sizes" in a partition). The paper
// defines X as positive, so by default the jobs in the partition that have
// completed work there count, and so do the jobs that finished there, with
// their final partial sizes: with FIFO in a partition few jobs run at once,
// and without that history a big job at the head of P1 has nothing to be
// compared with. On the paper's HVW (300 jobs, 70 % load, three seeds) this
// reading finishes 270–279 jobs in P1 (the paper: over 80 %). CurrentOnly
// drops the finished jobs (270–277 in P1, but P1 is overloaded: median
// slowdown about 40); CountWaiting adds the jobs that have completed nothing
// yet, at size 0, which with CurrentOnly drives the cutoff towards 0 as soon
// as a few jobs wait and moves most jobs out of P1 (28–113 stay).
//
// Partitions are whole nodes, node i in the partition whose cumulative
// capacity first exceeds i/N, so partition k has about C_k·N nodes; no
// partition lends idle slots to another, as in the paper.
type Tyrex struct {
	// Capacities are the partitions' shares of the nodes, summing to 1.
	// Default {0.3, 0.7}, the paper's choice.
	Capacities []float64
	// Timers are T_1..T_K−1 in seconds for the static policy; a missing or
	// zero timer is ∞. Ignored when Dynamic.
	Timers []float64
	// Dynamic selects DYNAMICTAGS.
	Dynamic bool
	// SCVLimit is the squared CV above which the dynamic policy migrates;
	// default 2.
	SCVLimit float64
	// CountWaiting makes the dynamic policy count jobs with no completed work
	// in a partition, at partial size 0, in that partition's distribution.
	CountWaiting bool
	// CurrentOnly leaves out of a partition's distribution the jobs that
	// finished in it.
	CurrentOnly bool

	part    []int8 // node → partition
	jobPart []int8 // job → partition
	partial [][]float64
	queue   [][]int32 // per partition: its unfinished jobs in order of entry
	done    []sizes   // per partition: final partial sizes of the jobs finished there, if positive
	stale   []bool    // per partition: its partial sizes or jobs changed since migrate last looked
	xs      []float64 // scratch for the dynamic policy: current sizes,
	js      []int32   // their jobs,
	ask     []float64 // and the sizes of those that could move
	// migrateFn, when set, replaces migrate's work (tests swap in the
	// policy's definition to cross-check it).
	migrateFn func(t *Tyrex, s *State, p int)
	// blockCap, when set, is sizes.blockCap (tests make many small blocks).
	blockCap int
	moves    int
	// finishedIn counts jobs by the partition they were in when they finished.
	finishedIn []int
}

var (
	_ Policy          = (*Tyrex)(nil)
	_ Starter         = (*Tyrex)(nil)
	_ ArrivalObserver = (*Tyrex)(nil)
	_ TaskObserver    = (*Tyrex)(nil)
	_ FinishObserver  = (*Tyrex)(nil)
)

// Name is "tyrex-static" or "tyrex-dynamic".
func (t *Tyrex) Name() string {
	if t.Dynamic {
		return "tyrex-dynamic"
	}
	return "tyrex-static"
}

func (t *Tyrex) capacities() []float64 {
	if len(t.Capacities) == 0 {
		return []float64{0.3, 0.7}
	}
	return t.Capacities
}

// Validate rejects capacities that are not positive or do not sum to 1, and
// negative timers.
func (t *Tyrex) Validate() error {
	sum := 0.0
	for i, c := range t.capacities() {
		if !(c > 0 && c <= 1) {
			return fmt.Errorf("sim: tyrex: capacity %d must be in (0, 1], got %v", i+1, c)
		}
		sum += c
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("sim: tyrex: capacities must sum to 1, got %v", sum)
	}
	if len(t.capacities()) > 100 {
		return fmt.Errorf("sim: tyrex: at most 100 partitions, got %d", len(t.capacities()))
	}
	for i, v := range t.Timers {
		if !(v >= 0) {
			return fmt.Errorf("sim: tyrex: timer %d must not be negative, got %v", i+1, v)
		}
	}
	if t.SCVLimit < 0 {
		return fmt.Errorf("sim: tyrex: SCV limit must not be negative, got %v", t.SCVLimit)
	}
	return nil
}

// Start splits the nodes. With fewer nodes than partitions there is one
// partition and Tyrex is FIFO. It panics on capacities that Validate rejects.
func (t *Tyrex) Start(s *State) {
	if err := t.Validate(); err != nil {
		panic(err.Error())
	}
	caps := t.capacities()
	if len(caps) > s.Nodes() {
		caps = []float64{1}
	}
	t.part = make([]int8, s.Nodes())
	// Cumulative boundaries rounded to whole nodes, each partition at least one.
	lo := 0
	cum := 0.0
	for k, c := range caps {
		cum += c
		hi := int(math.Round(cum * float64(s.Nodes())))
		hi = max(hi, lo+1)
		hi = min(hi, s.Nodes()-(len(caps)-1-k))
		if k == len(caps)-1 {
			hi = s.Nodes()
		}
		for n := lo; n < hi; n++ {
			t.part[n] = int8(k)
		}
		lo = hi
	}
	t.jobPart = make([]int8, s.Jobs())
	t.partial = make([][]float64, len(caps))
	for k := range t.partial {
		t.partial[k] = make([]float64, s.Jobs())
	}
	t.queue = make([][]int32, len(caps))
	t.done = make([]sizes, len(caps))
	for k := range t.done {
		t.done[k].blockCap = t.blockCap
	}
	t.stale = make([]bool, len(caps))
	t.moves = 0
	t.finishedIn = make([]int, len(caps))
}

// Partition is job j's current partition, 0-based.
func (t *Tyrex) Partition(j int) int { return int(t.jobPart[j]) }

// Partial is job j's partial size in partition k: the run time of its tasks
// that completed there.
func (t *Tyrex) Partial(j, k int) float64 { return t.partial[k][j] }

// Moves is how many migrations the last run made.
func (t *Tyrex) Moves() int { return t.moves }

// FinishedIn is how many jobs of the last run finished in each partition.
func (t *Tyrex) FinishedIn() []int { return slices.Clone(t.finishedIn) }

// PartitionNodes is how many nodes partition k has.
func (t *Tyrex) PartitionNodes(k int) int {
	n := 0
	for _, p := range t.part {
		if int(p) == k {
			n++
		}
	}
	return n
}

// JobArrived puts the job at the back of P1's queue (arrival, then workload
// order: arrivals come in that order).
func (t *Tyrex) JobArrived(_ *State, j int) {
	t.queue[0] = append(t.queue[0], int32(j))
	t.stale[0] = true
}

// JobFinished forgets the job.
func (t *Tyrex) JobFinished(_ *State, j int) {
	k := t.jobPart[j]
	t.queue[k] = remove(t.queue[k], int32(j))
	t.stale[k] = true
	t.finishedIn[k]++
	if t.partial[k][j] > 0 {
		t.done[k].add(t.partial[k][j])
	}
}

// remove deletes the first j from q, keeping the order.
func remove(q []int32, j int32) []int32 {
	if i := slices.Index(q, j); i >= 0 {
		return slices.Delete(q, i, i+1)
	}
	return q
}

// TaskEnded adds the task's run time to its job's partial size in the
// partition of the node it ran on, then migrates.
func (t *Tyrex) TaskEnded(s *State, task int) {
	j := s.TaskJob(task)
	k := int(t.part[s.TaskNode(task)])
	t.partial[k][j] += s.Now() - s.TaskStart(task)
	t.stale[k] = true
	last := len(t.partial) - 1
	if !t.Dynamic {
		cur := int(t.jobPart[j])
		if cur < last && k == cur && !s.Finished(j) {
			if T := t.timer(cur); t.partial[cur][j] >= T {
				t.move(s, j)
			}
		}
		return
	}
	for p := 0; p < last; p++ {
		t.migrate(s, p)
	}
}

// migrate is DYNAMICTAGS in partition p: the jobs above the cutoff of the
// current partial sizes move on, in their order in p's queue. A partition
// whose distribution has not changed since it was last looked at moved
// nothing then (a move changes it) and would move nothing now, so it is
// skipped. The finished jobs' sizes enter through their moments (sizes),
// and the cutoff is only bisected until it separates the jobs that could
// move (dist.cutoffBounds): each bisection step costs O(log finished jobs +
// current jobs), not O(finished jobs), and there are few steps unless a
// job's size lies close to the cutoff (at most 100, as in Cutoff).
func (t *Tyrex) migrate(s *State, p int) {
	if !t.stale[p] {
		return
	}
	t.stale[p] = false
	if t.migrateFn != nil {
		t.migrateFn(t, s, p)
		return
	}
	limit := t.SCVLimit
	if limit == 0 {
		limit = 2
	}
	xs, js, ask := t.xs[:0], t.js[:0], t.ask[:0]
	for _, a := range t.queue[p] {
		if x := t.partial[p][a]; x > 0 || t.CountWaiting {
			xs = append(xs, x)
			js = append(js, a)
			// A job whose last task just ended counts in the distribution
			// but has nowhere left to go.
			if !s.Finished(int(a)) {
				ask = append(ask, x)
			}
		}
	}
	t.xs, t.js, t.ask = xs, js, ask
	if len(ask) == 0 {
		return // nothing could move, whatever the cutoff
	}
	d := dist{cur: xs}
	if !t.CurrentOnly {
		d.done = &t.done[p]
	}
	if d.count() < 2 {
		return
	}
	least, most := d.bounds()
	if most == 0 || d.scv() <= limit {
		return
	}
	_, c, ok := d.cutoffBounds(ask, least, most)
	if !ok {
		return
	}
	for i, a := range js {
		if xs[i] > c && !s.Finished(int(a)) {
			t.move(s, int(a))
		}
	}
}

func (t *Tyrex) timer(k int) float64 {
	if k < len(t.Timers) && t.Timers[k] > 0 {
		return t.Timers[k]
	}
	return math.Inf(1)
}

// move sends job j to the next partition and offers that partition's free
// slots, which may have been idle for want of a job.
func (t *Tyrex) move(s *State, j int) {
	from := t.jobPart[j]
	t.queue[from] = remove(t.queue[from], int32(j))
	t.jobPart[j]++
	t.moves++
	to := t.jobPart[j]
	t.queue[to] = append(t.queue[to], int32(j))
	t.stale[from], t.stale[to] = true, true
	for n, p := range t.part {
		if p == to && (s.FreeSlots(n, Map) > 0 || s.FreeSlots(n, Reduce) > 0) {
			s.Wake(n)
		}
	}
}

// Assign gives the slot to the first job, in order of entry, of the node's
// partition with a pending task of the slot's kind.
func (t *Tyrex) Assign(s *State, node int, k Kind) int {
	for _, j := range t.queue[t.part[node]] {
		if s.Pending(int(j), k) > 0 {
			return int(j)
		}
	}
	return Idle
}

// SCV is the squared coefficient of variation of xs, population variance over
// squared mean; 0 for an empty set or a zero mean.
func SCV(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if mean == 0 {
		return 0
	}
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	v /= float64(len(xs))
	return v / (mean * mean)
}

// Cutoff finds the Tyrex paper's optimal cutoff point for the sizes xs: the p in
// (0, max xs) where SCV(min(X, p)) = SCV(X − p | X > p), by bisection on
// f(p) = SCV(L_p) − SCV(R_p), which is 0 or above near the maximum (R_p is
// one value). For positive sizes it is below 0 near 0 (L_p is constant, R_p
// nearly X); where it is not (many zero sizes: jobs waiting) the cutoff tends
// to 0 and every job that has made progress is above it. It reports false
// when xs has fewer than two distinct values. It is the definition: the
// policy itself bisects the same way over moments of the sizes
// (dist.cutoffBounds), which stay cheap when thousands of finished jobs
// count.
func Cutoff(xs []float64) (float64, bool) {
	hi := slices.Max(xs)
	if hi == slices.Min(xs) {
		return 0, false
	}
	l := make([]float64, len(xs))
	r := make([]float64, 0, len(xs))
	f := func(p float64) float64 {
		r = r[:0]
		for i, x := range xs {
			l[i] = min(x, p)
			if x > p {
				r = append(r, x-p)
			}
		}
		return SCV(l) - SCV(r)
	}
	lo := 0.0
	for range 100 {
		m := (lo + hi) / 2
		if f(m) < 0 {
			lo = m
		} else {
			hi = m
		}
		if hi-lo <= 1e-9*hi {
			break
		}
	}
	return hi, true
}

// TaskFair is the Tyrex paper's baseline FAIR as that paper describes it: "a discrete
// version of the weighted processor-sharing discipline which allocates slots
// to jobs proportional to the number of their tasks". A free slot goes to the
// job with the fewest running tasks of the slot's kind per task of that kind
// it has in all (ties to the earlier job), so a job of 1000 maps is entitled
// to 100 times the slots of a job of 10. Fair is the unweighted (max-min)
// sharing of the Delay Scheduling paper.
type TaskFair struct {
	active []int32
}

var (
	_ Policy          = (*TaskFair)(nil)
	_ Starter         = (*TaskFair)(nil)
	_ ArrivalObserver = (*TaskFair)(nil)
	_ FinishObserver  = (*TaskFair)(nil)
)

// Name is "fair-by-tasks".
func (*TaskFair) Name() string { return "fair-by-tasks" }

// Start forgets the previous run.
func (f *TaskFair) Start(*State) { f.active = f.active[:0] }

// JobArrived adds the job.
func (f *TaskFair) JobArrived(_ *State, j int) { f.active = append(f.active, int32(j)) }

// JobFinished removes the job.
func (f *TaskFair) JobFinished(_ *State, j int) {
	if i := slices.Index(f.active, int32(j)); i >= 0 {
		f.active = slices.Delete(f.active, i, i+1)
	}
}

// Assign picks the job furthest below its weighted share.
func (f *TaskFair) Assign(s *State, _ int, k Kind) int {
	best, bestRatio := Idle, math.Inf(1)
	for _, j32 := range f.active {
		j := int(j32)
		if s.Pending(j, k) == 0 {
			continue
		}
		n := s.Job(j).Maps.N()
		if k == Reduce {
			n = s.Job(j).Reduces.N()
		}
		if r := float64(s.Running(j, k)) / float64(n); r < bestRatio {
			best, bestRatio = j, r
		}
	}
	return best
}
