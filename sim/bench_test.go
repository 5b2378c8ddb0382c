package sim

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchWorkload is n tasks on a cluster sized to them: jobs of 100 maps
// (5–15 s, HDFS blocks) and 5 reduces (10 s), arriving Poisson at a rate that
// would keep the map slots of the cluster of n/1000 nodes (20 per rack, 2 map
// and 1 reduce slot) 70 % busy if every map ran node-local. They do not:
// the saturated slots come free on nodes that rarely hold the head job's
// next blocks (a job's 300 replicas cover a quarter of the nodes at 10⁶
// tasks, 3 % at 10⁷, and fewer as its maps run), and rack-local (×1.2) and
// off-rack (×2) maps raise the load. Measured: at 10⁶ tasks fifo runs 13 %
// of maps node-local, 56 % rack-local, 31 % off-rack, the map slots 97.7 %
// busy (fair 93.9 %); at 10⁷ fifo runs 82 % off-rack and fair D=10 98 %
// (ten skips find a local slot rarely on 10,000 nodes), the slots 99.6 % busy
// and fair's queue growing until the arrivals stop. So this is a saturated
// cluster, the hard case for the policies' data structures, not a quiet one.
func benchWorkload(n int) *Workload {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	nodes := max(10, n/1000)
	w := &Workload{Name: fmt.Sprintf("bench-%d", n), Cluster: Cluster{Nodes: nodes, Racks: max(1, nodes/20), MapSlots: 2, ReduceSlots: 1}}
	jobs := n / 105
	// A job is 100 maps × 10 s = 1000 slot-seconds on 2·nodes map slots:
	// arrivals every 1000/(0.7·2·nodes) s on average load them to 70 %.
	gap := 1000 / (0.7 * 2 * float64(nodes))
	var t float64
	for j := range jobs {
		d := make([]float64, 100)
		for i := range d {
			d[i] = 5 + 10*rng.Float64()
		}
		w.Jobs = append(w.Jobs, Job{Name: fmt.Sprint(j), Arrival: t, Maps: Tasks{Durations: d}, Reduces: Tasks{Count: 5, Mean: 10}})
		t += rng.ExpFloat64() * gap
	}
	return w
}

// peakHeap samples the heap in use until stop is closed.
func peakHeap(stop <-chan struct{}, peak *uint64, wg *sync.WaitGroup) {
	defer wg.Done()
	var m runtime.MemStats
	for {
		runtime.ReadMemStats(&m)
		*peak = max(*peak, m.HeapInuse)
		select {
		case <-stop:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// cpuSeconds is the process's user and system time so far: on a shared
// machine, wall time measures the neighbours as much as the code.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkRun reports, at 10⁴ to 10⁷ tasks under FIFO, fair sharing as
// `packer simulate -p fair` runs it (no delay), and fair with delay
// scheduling (D = 10, whose locality probes make it the costliest):
// events/s, the core's events (task ends, arrivals, reduce readiness,
// retries) per second of wall time, setup included; task-events/s, task
// starts and ends per second; the same per CPU-second of the process
// (task-events/cpu-s: per core, whatever else the machine runs); and for
// one more run, the peak heap sampled every millisecond (the workload's own
// slices included), per task too, and the bytes the run allocates in all
// (a bound on what it adds to the heap).
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{1e4, 1e5, 1e6, 1e7} {
		var w *Workload // built on first use: -bench may pick one size
		for _, p := range []Policy{&FIFO{}, &Fair{}, &Fair{Delay: 10}} {
			b.Run(fmt.Sprintf("tasks=%d/%s", n, p.Name()), func(b *testing.B) {
				if w == nil {
					w = benchWorkload(n)
				}
				var events, taskEvents int64
				start, cpu := time.Now(), cpuSeconds()
				for b.Loop() {
					r, err := Run(w, p, &Settings{Seed: 1})
					if err != nil {
						b.Fatal(err)
					}
					if r.Tasks != w.Tasks() || r.Makespan <= 0 {
						b.Fatalf("run of %d tasks reports %d tasks, makespan %v", w.Tasks(), r.Tasks, r.Makespan)
					}
					events += r.Events
					taskEvents += 2 * int64(r.Tasks) // every task starts and ends once
				}
				elapsed, cpuElapsed := time.Since(start).Seconds(), cpuSeconds()-cpu
				b.ReportMetric(float64(events)/elapsed, "events/s")
				b.ReportMetric(float64(taskEvents)/elapsed, "task-events/s")
				b.ReportMetric(float64(taskEvents)/cpuElapsed, "task-events/cpu-s")
				// One more run, untimed, with the heap sampled, and the bytes
				// it allocates: with them the run can never hold more.
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				var peak uint64
				var wg sync.WaitGroup
				stop := make(chan struct{})
				wg.Add(1)
				go peakHeap(stop, &peak, &wg)
				if _, err := Run(w, p, &Settings{Seed: 1}); err != nil {
					b.Fatal(err)
				}
				close(stop)
				wg.Wait()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(peak)/float64(w.Tasks()), "peak-heap-B/task")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "run-alloc-MB")
			})
		}
	}
}
