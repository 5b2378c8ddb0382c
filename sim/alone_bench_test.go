package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// aloneWorkload is n jobs on the FB-2010 trace's cluster (3000 nodes in 150
// racks, 2 map and 1 reduce slot each), sized as that trace's are: most jobs
// a map or a few, a tenth with reduces, a few hundreds of maps. On such a day
// each job alone runs in microseconds, so what the alone pass costs is mostly
// setting up a run on the 3000 nodes, once per job.
func aloneWorkload(n int) *Workload {
	rng := rand.New(rand.NewPCG(uint64(n), 16))
	w := &Workload{Name: fmt.Sprintf("alone-%d", n), Cluster: Cluster{Nodes: 3000, Racks: 150, MapSlots: 2, ReduceSlots: 1}}
	for j := range n {
		maps := 1 + int(rng.ExpFloat64()*rng.ExpFloat64()*8)
		job := Job{Name: fmt.Sprint(j), Arrival: float64(j), Maps: Tasks{Count: maps, Mean: 2 + 10*rng.Float64()}}
		if rng.IntN(10) == 0 {
			job.Reduces = Tasks{Count: 1 + rng.IntN(5), Mean: 5 + 20*rng.Float64()}
			job.Shuffle = rng.Float64()
		}
		w.Jobs = append(w.Jobs, job)
	}
	return w
}

// BenchmarkAlone is the alone pass of 2000 such jobs, one at a time (the
// cost per job is what matters; Alone runs them side by side) and with
// heartbeats, which queue an event per node.
func BenchmarkAlone(b *testing.B) {
	w := aloneWorkload(2000)
	for _, hb := range []float64{0, 3} {
		b.Run(fmt.Sprintf("heartbeat=%g", hb), func(b *testing.B) {
			set := &Settings{Seed: 1, Heartbeat: hb}
			for b.Loop() {
				if _, err := aloneOn(w, set, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(w.Jobs)), "ns/job")
		})
	}
}
