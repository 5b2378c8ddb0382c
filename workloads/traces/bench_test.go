package traces

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/packer-sched/packer/sim"
)

// benchPolicies names the policies BenchmarkFB2010Day simulates; any of
// benchPolicy's names may be given:
// go test ./workloads/traces -run '^$' -bench FB2010 -benchtime 1x -policies fifo,fair,tyrex-dynamic
var benchPolicies = flag.String("policies", "fifo,fair,tyrex-dynamic", "comma-separated policies for BenchmarkFB2010Day")

// benchBlockMB is the HDFS block size BenchmarkFB2010Day imports with.
var benchBlockMB = flag.Int("block-mb", 256, "block size in MiB for BenchmarkFB2010Day")

// benchPolicy returns the simulator policy of that name.
func benchPolicy(name string) (sim.Policy, error) {
	switch name {
	case "fifo":
		return &sim.FIFO{}, nil
	case "fair":
		return &sim.Fair{}, nil
	case "fair-delay":
		return &sim.Fair{Delay: 10}, nil
	case "tyrex-dynamic":
		// The Tyrex paper's default: two partitions, 30 % and 70 % of the nodes.
		return &sim.Tyrex{Dynamic: true}, nil
	case "tyrex-static":
		return &sim.Tyrex{}, nil
	}
	return nil, fmt.Errorf("no policy %q here (have fifo, fair, fair-delay, tyrex-static, tyrex-dynamic)", name)
}

// fb2010 is the full FB-2010 day as BenchmarkFB2010Day simulates it: 3,000
// nodes in 150 racks (the 2010 cluster's size) and, by default, 256 MiB
// blocks (so the day's 845 TB of input are 4.0 million maps rather than the
// 16 million of 64 MiB blocks; -block-mb 64 runs those).
func fb2010(tb testing.TB) *Imported {
	f, err := os.Open("testdata/swim-FB-2010_samples_24_times_1hr_0.tsv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	im, err := ReadSWIM(f, f.Name(), &SWIMSettings{Cluster: sim.Cluster{Nodes: 3000, Racks: 150}, BlockBytes: int64(*benchBlockMB) << 20})
	if err != nil {
		tb.Fatal(err)
	}
	return im
}

// BenchmarkFB2010Day imports and simulates the 24,442-job FB-2010 day under
// each policy of -policies, reporting the wall time of one import plus run
// (s/run), the simulated makespan, and the peak heap in use sampled every
// 20 ms (MB).
func BenchmarkFB2010Day(b *testing.B) {
	for _, name := range strings.Split(*benchPolicies, ",") {
		p, err := benchPolicy(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			runtime.GC()
			var peak uint64
			var wg sync.WaitGroup
			stop := make(chan struct{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				var m runtime.MemStats
				for {
					runtime.ReadMemStats(&m)
					peak = max(peak, m.HeapInuse)
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			start := time.Now()
			var res *sim.Result
			for range b.N {
				im := fb2010(b)
				res, err = sim.Run(im.Workload, p, &sim.Settings{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
			}
			close(stop)
			wg.Wait()
			if len(res.Jobs) != 24442 {
				b.Fatalf("%d jobs simulated, want 24442", len(res.Jobs))
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/run")
			b.ReportMetric(res.Makespan, "makespan-s")
			b.ReportMetric(float64(res.Tasks), "tasks")
			b.ReportMetric(float64(peak)/1e6, "peak-MB")
		})
	}
}
