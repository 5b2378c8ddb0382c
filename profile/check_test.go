package profile

import (
	"math"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestCheckPredictions: job a fitted at 2 and 4 nodes (100 s, 50 s: the
// power law 200/n) predicts 66.67 s at 3 nodes (inside its range) and 25 s
// at 8 (beyond); the check file's runs there, 70 s and 24, 26, 27 s (median
// 26), give errors −4.76 % and −3.85 %. Its runs at 2 nodes, which it was
// fitted on, and job c, which was not fitted, are passed over.
func TestCheckPredictions(t *testing.T) {
	f, err := FitObservations(strings.NewReader("job,nodes,seconds\na,2,100\na,4,50\nb,2,10\nb,4,6\n"), "fit.csv", "", &Settings{Form: model.KindPower})
	if err != nil {
		t.Fatal(err)
	}
	check := "job,nodes,seconds\na,2,99\na,8,27\na,3,70\nc,8,5\na,8,24\na,8,26\nb,6,4\n"
	ps, unfitted, err := CheckPredictions(f.Workload, []ObservationFile{{R: strings.NewReader(check), File: "check.csv"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(unfitted) != 1 || unfitted[0] != "c" {
		t.Errorf("unfitted %v, want [c]", unfitted)
	}
	want := []Prediction{
		{Job: "a", Nodes: 3, Predicted: 200.0 / 3, Measured: 70, Runs: 1, Error: (200.0/3 - 70) / 70},
		{Job: "a", Nodes: 8, Predicted: 25, Measured: 26, Runs: 3, Error: -1.0 / 26, Beyond: true},
	}
	if len(ps) != 3 {
		t.Fatalf("predictions %+v", ps)
	}
	for i, w := range want {
		p := ps[i]
		if p.Job != w.Job || p.Nodes != w.Nodes || p.Runs != w.Runs || p.Beyond != w.Beyond ||
			math.Abs(p.Predicted-w.Predicted) > 1e-9 || p.Measured != w.Measured || math.Abs(p.Error-w.Error) > 1e-9 {
			t.Errorf("prediction %d: %+v, want %+v", i, p, w)
		}
	}
	if b := ps[2]; b.Job != "b" || b.Nodes != 6 || !b.Beyond {
		t.Errorf("job b: %+v", b)
	}
	sum := SummarisePredictions(ps)
	if len(sum) != 3 || sum[1].Nodes != 6 || sum[2].Nodes != 8 || sum[2].Jobs != 1 || math.Abs(sum[2].Median-1.0/26) > 1e-12 || sum[2].WorstJob != "a" {
		t.Errorf("summary %+v", sum)
	}
}

// TestSummarisePredictionsPercentile: ten jobs at one count with errors of
// 1 % to 10 %: the median is 5.5 %, the 90th percentile the ninth, 9 %, the
// worst 10 % (of the job with −10 %).
func TestSummarisePredictionsPercentile(t *testing.T) {
	var ps []Prediction
	for i := 1; i <= 10; i++ {
		e := float64(i) / 100
		if i == 10 {
			e = -e
		}
		ps = append(ps, Prediction{Job: string(rune('a' + i)), Nodes: 12, Error: e})
	}
	s := SummarisePredictions(ps)
	if len(s) != 1 || math.Abs(s[0].Median-0.055) > 1e-12 || s[0].P90 != 0.09 || s[0].Worst != 0.1 || s[0].WorstJob != "k" {
		t.Errorf("%+v", s)
	}
}
