package optimize

import (
	"math/rand/v2"
	"testing"

	"github.com/packer-sched/packer/model"
)

// BenchmarkKnapsack is the pricing programme at 200 jobs on 50 hosts
// (exact, 101 × 101 cells) over the grid durations, at random duals:
// untraced, as a full round prices, and traced, as a quick round does.
func BenchmarkKnapsack(b *testing.B) {
	cl := model.PaperCluster()
	cl.Hosts = 50
	p, err := model.NewProblem(RandomWorkload(1, 200), cl)
	if err != nil {
		b.Fatal(err)
	}
	cg := newColumnGen(p, 0, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	cg.pi = make([]float64, len(p.Jobs))
	for j := range cg.pi {
		cg.pi[j] = 100 * rng.Float64()
	}
	for _, trace := range []bool{false, true} {
		name := map[bool]string{false: "untraced", true: "traced"}[trace]
		b.Run(name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				cg.knapsack(cg.grid[i%len(cg.grid)], cg.scale, trace, false)
			}
		})
	}
}
