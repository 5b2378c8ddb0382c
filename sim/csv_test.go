package sim_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim"
)

// TestJobsCSVRounded: times and ratios go to the CSV rounded to a millionth
// in their shortest form; 9 stays 9, -1e-9 becomes 0, not -0.
func TestJobsCSVRounded(t *testing.T) {
	w := &sim.Workload{Jobs: []sim.Job{{Name: "job1"}}}
	r := &sim.Result{Policy: "fifo", Makespan: 15.000104099999998, Utilisation: [2]float64{0.5833333333333334, 2.0 / 3},
		Jobs: []sim.JobResult{{Name: "job1", Submit: 9, Start: -1e-9, Finish: 15.000104099999998, Response: 6.000104099999998,
			Slowdown: 1.4999942626214884, Locality: sim.LocalityCounts{Remote: 1}}}}
	runs := []sim.Outcome{{Workload: w, Result: r}}
	got := string(sim.JobsCSV(runs))
	want := "policy,job,user,submit,start,finish,response,slowdown,node_local,rack_local,remote,no_input\n" +
		"fifo,job1,,9,0,15.000104,6.000104,1.499994,0,0,1,0\n"
	if got != want {
		t.Errorf("JobsCSV:\n%s\nwant\n%s", got, want)
	}
	sum := string(sim.SummaryCSV(runs))
	if !strings.Contains(sum, "fifo,15.000104,") || !strings.Contains(sum, ",0.583333,0.666667\n") {
		t.Errorf("SummaryCSV not rounded:\n%s", sum)
	}
}

// TestCSVRoundTrip: every rounded number reads back within half the
// precision of the value, over many magnitudes.
func TestCSVRoundTrip(t *testing.T) {
	for _, v := range []float64{0, 1e-7, 4.99e-7, 5.01e-7, 0.1 + 0.2, 15.000104099999998, 86464.03212781667, 123456789.123456789, 1e15} {
		r := &sim.Result{Policy: "p", Makespan: v}
		line := strings.Split(string(sim.SummaryCSV([]sim.Outcome{{Result: r}})), "\n")[1]
		s := strings.Split(line, ",")[1]
		var got float64
		if _, err := fmt.Sscan(s, &got); err != nil {
			t.Fatalf("%v: %q: %v", v, s, err)
		}
		if math.Abs(got-v) > sim.CSVPrecision/2*(1+1e-9)+math.Abs(v)*1e-15 {
			t.Errorf("%v rendered %q, off by %g", v, s, got-v)
		}
		if i := strings.Index(s, "."); i >= 0 && len(s)-i-1 > 6 {
			t.Errorf("%v rendered %q: more than 6 decimals", v, s)
		}
	}
}
