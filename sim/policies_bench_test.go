package sim

import (
	"fmt"
	"testing"
)

// BenchmarkIssue6Policies runs the policies of the Dynamic Proportional Share, HybS and Tyrex papers beside
// FIFO and fair on benchWorkload (jobs of 100 maps and 5 reduces at 70 %
// load, users u0–u9) at two sizes; each first asserts the run finished every
// job. The ratios to FIFO are the policies' overhead per scheduling decision.
func BenchmarkIssue6Policies(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		w := benchWorkload(n)
		for j := range w.Jobs {
			w.Jobs[j].User = fmt.Sprintf("u%d", j%10)
		}
		for _, p := range []Policy{&FIFO{}, &Fair{}, &DP{DefaultBudget: 1e12}, &DP{DefaultBudget: 1e12, Preempt: true, Label: "dp+preempt"},
			&HybS{Alpha: 1, Beta: -1, Gamma: -1}, &TaskFair{}, &Tyrex{Timers: []float64{200}}, &Tyrex{Dynamic: true}} {
			b.Run(fmt.Sprintf("%s/tasks=%d", p.Name(), n), func(b *testing.B) {
				for b.Loop() {
					r, err := Run(w, p, &Settings{Seed: 1})
					if err != nil {
						b.Fatal(err)
					}
					if r.Jobs[len(r.Jobs)-1].Finish == 0 {
						b.Fatal("last job unfinished")
					}
				}
			})
		}
	}
}
