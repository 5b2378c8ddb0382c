package profile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// syntheticCSV writes jobs × nodes × repeats rows of noisy power-law runs.
func syntheticCSV(jobs, nodes, repeats int) string {
	rng := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString("job,nodes,seconds,cpu_util,io_mbps\n")
	for j := range jobs {
		for n := 1; n <= nodes; n++ {
			for range repeats {
				s := 1000 * math.Pow(float64(n), -0.7) * math.Exp(0.05*rng.NormFloat64())
				fmt.Fprintf(&b, "job-%d,%d,%.3f,%.3f,%.1f\n", j, n, s, rng.Float64(), 200*rng.Float64())
			}
		}
	}
	return b.String()
}

// BenchmarkReadAndAnalyze reads and fits observation files from a handful of
// runs to a large job history, asserting each round trip succeeded.
func BenchmarkReadAndAnalyze(b *testing.B) {
	for _, size := range []struct{ jobs, nodes, repeats int }{{1, 4, 3}, {20, 8, 3}, {200, 16, 5}} {
		csv := syntheticCSV(size.jobs, size.nodes, size.repeats)
		b.Run(fmt.Sprintf("jobs=%d/rows=%d", size.jobs, size.jobs*size.nodes*size.repeats), func(b *testing.B) {
			for b.Loop() {
				jobs, err := ReadObservations(strings.NewReader(csv), "bench.csv")
				if err != nil || len(jobs) != size.jobs {
					b.Fatalf("read %d jobs, err %v", len(jobs), err)
				}
				for _, j := range jobs {
					r, err := Analyze(j.Job, j.Observations, nil)
					if err != nil || r.Fit.Points != size.nodes*size.repeats {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
