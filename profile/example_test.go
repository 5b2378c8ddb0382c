package profile_test

import (
	"fmt"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/profile"
)

// Runs measured elsewhere, fitted and classified: 120/n seconds, I/O falling
// from 150 to 90 MB/s between 4 and 8 nodes, so at 6 nodes it is
// 150·(90/150)^(log₂1.5) ≈ 111.3 MB/s > 100, I/O-intensive.
func ExampleAnalyze() {
	csv := `job,nodes,seconds,cpu_util,io_mbps
sort,2,60,0.2,170
sort,4,30,0.2,150
sort,8,15,0.2,90
`
	jobs, err := profile.ReadObservations(strings.NewReader(csv), "runs.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := profile.Analyze(jobs[0].Job, jobs[0].Observations, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	j := res.Job
	pl := j.Model.(model.PowerLaw) // exact power-law runs: auto selection keeps the power law
	fmt.Printf("F(n) = %.1f·n^%.2f, R² = %.3f, measured on %d–%d nodes\n", pl.A, pl.B, res.Fit.R2, j.Range.Min, j.Range.Max)
	fmt.Printf("at 6 nodes: %.1f MB/s, class %s\n", *j.Profile.IOMBps, j.Class())
	fmt.Println(j.Extrapolated(18))
	// Output:
	// F(n) = 120.0·n^-1.00, R² = 1.000, measured on 2–8 nodes
	// at 6 nodes: 111.3 MB/s, class io
	// true
}

// Thresholds are settings: a stricter I/O threshold changes the class.
func ExampleSettings() {
	obs := []model.Observation{{Nodes: 2, Seconds: 60}, {Nodes: 6, Seconds: 25}}
	io := 120.0
	obs[1].IOMBps = &io
	for _, th := range []float64{100, 150} {
		res, _ := profile.Analyze("sort", obs, &profile.Settings{Thresholds: model.Thresholds{IOMBps: th}})
		fmt.Printf("above %g MB/s: I/O-intensive %v\n", th, res.Job.IOIntensive)
	}
	// Output:
	// above 100 MB/s: I/O-intensive true
	// above 150 MB/s: I/O-intensive false
}
