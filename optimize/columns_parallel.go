package optimize

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Pricing on several cores. A round prices many durations, each its own
// programme at the same duals, so the durations of a quick round and of a
// full round's grid are priced at once on up to maxPricingWorkers
// goroutines. The result is the one the durations priced one after another
// give, bit for bit: each programme reads only the duals and the phase
// solver, and writes only its goroutine's tables; the results are kept in
// the durations' order, and the table cells filled, which decide when a
// full round is due, are a sum. The limit is asked every fourth duration,
// for a chunk of durations before they are priced: a round the limit cuts
// is dropped (Columns leaves its loop on cg.cut, and no one reads the cells
// of a cut round), so the work units spent before any point of the search,
// and the search itself, are the same on any number of cores.
const (
	maxPricingWorkers = 8
	// parallelCells is the least table cells times jobs priced (those
	// with a positive dual) a programme fills for its durations to be
	// shared out: below it (9 hosts, up to about 80 jobs) the goroutines
	// cost about what they save. On 9 hosts at a fixed work limit, two
	// pricing goroutines on two cores took 7–9 % less wall time than one
	// at 100 and 200 jobs (the same plan: only the speed changes).
	parallelCells = 30_000
)

// pricer is one goroutine's pricing tables and the cells it has filled
// since its work was last added to the column generator's.
type pricer struct {
	dp   [3]groupDP
	work int64
	rows [4][]float64 // joinGroups' scratch
}

// priced is one duration's programme value, when traced its set, and the
// table cells it filled.
type priced struct {
	v           float64
	jobs, roles []int
	work        int64
}

// pricingWorkers is the goroutines priceAll uses: GOMAXPROCS, at most
// maxPricingWorkers (each holds tables and traces of its own).
func pricingWorkers() int { return min(runtime.GOMAXPROCS(0), maxPricingWorkers) }

// pricer returns the i-th pricer, making it on first use.
func (cg *columnGen) pricer(i int) *pricer {
	for len(cg.pricers) <= i {
		cg.pricers = append(cg.pricers, &pricer{})
	}
	return cg.pricers[i]
}

// priceAll prices the durations Ds at cg.pi in units of s VMs, as knapsack
// does (trace, up), on up to cg.workers goroutines. It returns nil, and
// sets cg.cut, if cg.stop ends the round first; it asks cg.stop for the
// k-th duration where a loop calling cg.stopped(k) before each would.
func (cg *columnGen) priceAll(Ds []float64, s int, trace, up bool) []priced {
	out := make([]priced, len(Ds))
	workers := cg.workersFor(s)
	// A chunk is a check's worth of durations (4) per worker: each
	// goroutine prices about 4, so the limit is seen about as often as
	// when one priced them one after another (at 1,000 jobs on 200 hosts,
	// 4 durations take 0.05 s to 0.15 s of one core), and a chunk waits
	// for its slowest goroutine less often than with one duration each.
	size := 4 * workers
	for c := 0; c < len(Ds); c += size {
		chunk := Ds[c:min(c+size, len(Ds))]
		for k := range chunk {
			if cg.stopped(c + k) {
				return nil
			}
		}
		cg.priceChunk(chunk, out[c:], s, trace, up, min(workers, len(chunk)))
		for _, o := range out[c : c+len(chunk)] {
			cg.work += o.work
		}
	}
	return out
}

// workersFor is the goroutines a round at units of s VMs prices on:
// cg.workers, or one for programmes too small to share out (parallelCells).
func (cg *columnGen) workersFor(s int) int {
	jobs := 0
	for _, v := range cg.pi {
		if v > 0 {
			jobs++
		}
	}
	if side := cg.ps.n/s + 1; side*side*jobs < parallelCells {
		return 1
	}
	return max(1, cg.workers)
}

// priceChunk prices Ds into out on workers goroutines, this one and
// workers − 1 more, each taking the next duration left.
func (cg *columnGen) priceChunk(Ds []float64, out []priced, s int, trace, up bool, workers int) {
	var next atomic.Int64
	run := func(pr *pricer) {
		for i := int(next.Add(1) - 1); i < len(Ds); i = int(next.Add(1) - 1) {
			o := &out[i]
			o.v, o.jobs, o.roles = cg.knapsackOn(pr, Ds[i], s, trace, up)
			o.work, pr.work = pr.work, 0
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		pr := cg.pricer(w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(pr)
		}()
	}
	run(cg.pricer(0))
	wg.Wait()
}

// refineValue is the untraced programme's value at candidate mid for
// farleyTheta, which splits its least range there, with mid's cells added to
// cg.work. It takes the value from memo if an earlier call priced it;
// otherwise it prices mid and, on the other goroutines, the middles of the
// next ranges in h, into memo. farleyTheta splits its ranges in ratio order,
// one at a time, and each split depends on the last; the ranges at the top
// of the heap are the likeliest next, and a range's middle never changes.
// Cells are counted when a value is used, as if priced then, so the search
// is the same on any number of cores; a guess never used costs another
// core's time, and the wait for the slower of the two.
func (cg *columnGen) refineValue(mid int, h rangeHeap, memo map[int]priced) float64 {
	if o, ok := memo[mid]; ok {
		delete(memo, mid)
		cg.work += o.work
		return o.v
	}
	idx := []int{mid}
	if workers := cg.workersFor(cg.scale); workers > 1 {
		for _, r := range h {
			if len(idx) >= workers {
				break
			}
			if m := (r.lo + r.hi - 1) / 2; r.lo < r.hi && !slices.Contains(idx, m) {
				if _, ok := memo[m]; !ok {
					idx = append(idx, m)
				}
			}
		}
	}
	Ds := make([]float64, len(idx))
	for k, i := range idx {
		Ds[k] = cg.ps.cands[i]
	}
	out := make([]priced, len(idx))
	cg.priceChunk(Ds, out, cg.scale, false, false, len(idx))
	for k, i := range idx[1:] {
		memo[i] = out[k+1]
	}
	cg.work += out[0].work
	return out[0].v
}
