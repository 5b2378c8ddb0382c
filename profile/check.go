package profile

import (
	"maps"
	"math"
	"slices"

	"github.com/packer-sched/packer/model"
)

// Prediction is a fitted job's runtime at a node count it was not fitted
// on, against the runs measured there: how well the model predicts what it
// has not seen, above all beyond the range it was measured in.
type Prediction struct {
	Job   string
	Nodes int
	// Predicted is the model's seconds; Measured the median of the
	// successful runs at Nodes, of which there were Runs.
	Predicted, Measured float64
	Runs                int
	// Error is (Predicted − Measured) ÷ Measured: positive when the model
	// is pessimistic.
	Error float64
	// Beyond is true when Nodes lies outside the range the job was fitted
	// on: the model extrapolates.
	Beyond bool
}

// CheckPredictions compares every job of w that has a profile with the
// runs of that job in files at node counts the job was not fitted on;
// counts w's job was fitted at are passed over, and jobs of the files that
// w does not have are named in unfitted, in the order they appear. The
// predictions are by job in w's order, then by node count.
func CheckPredictions(w *model.Workload, files []ObservationFile) (out []Prediction, unfitted []string, err error) {
	jobs, err := readObservationFiles(files)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]*observed{}
	for _, j := range jobs {
		byName[j.Job] = j
	}
	inW := map[string]bool{}
	for _, job := range w.Jobs {
		inW[job.Name] = true
	}
	for _, j := range jobs {
		if !inW[j.Job] {
			unfitted = append(unfitted, j.Job)
		}
	}
	for _, job := range w.Jobs {
		o, ok := byName[job.Name]
		if !ok || job.Profile == nil {
			continue
		}
		fitted := map[int]bool{}
		for _, r := range job.Profile.Observations {
			if !r.Failed {
				fitted[r.Nodes] = true
			}
		}
		held := map[int][]float64{}
		for _, r := range o.Observations {
			if !r.Failed && !fitted[r.Nodes] {
				held[r.Nodes] = append(held[r.Nodes], r.Seconds)
			}
		}
		for _, n := range slices.Sorted(maps.Keys(held)) {
			m := median(held[n])
			p := job.Seconds(n)
			beyond := job.Range != nil && (n < job.Range.Min || n > job.Range.Max)
			out = append(out, Prediction{Job: job.Name, Nodes: n, Predicted: p, Measured: m, Runs: len(held[n]), Error: (p - m) / m, Beyond: beyond})
		}
	}
	return out, unfitted, nil
}

// PredictionSummary is the predictions at one node count: how many jobs,
// and the median, 90th percentile and largest absolute error, with the job
// that had it.
type PredictionSummary struct {
	Nodes              int
	Jobs               int
	Median, P90, Worst float64
	WorstJob           string
}

// SummarisePredictions summarises ps by node count, ascending. The 90th
// percentile is the nearest rank: the smallest error at least 90 % of the
// jobs are within.
func SummarisePredictions(ps []Prediction) []PredictionSummary {
	byNodes := map[int][]Prediction{}
	for _, p := range ps {
		byNodes[p.Nodes] = append(byNodes[p.Nodes], p)
	}
	var out []PredictionSummary
	for _, n := range slices.Sorted(maps.Keys(byNodes)) {
		at := byNodes[n]
		errs := make([]float64, len(at))
		worst := at[0]
		for i, p := range at {
			errs[i] = math.Abs(p.Error)
			if math.Abs(p.Error) > math.Abs(worst.Error) {
				worst = p
			}
		}
		slices.Sort(errs)
		rank := max(0, int(math.Ceil(0.9*float64(len(errs))))-1)
		out = append(out, PredictionSummary{Nodes: n, Jobs: len(at), Median: median(errs), P90: errs[rank],
			Worst: math.Abs(worst.Error), WorstJob: worst.Job})
	}
	return out
}
