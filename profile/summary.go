package profile

import (
	"slices"

	"github.com/packer-sched/packer/model"
)

// FormSummary is one model form's leave-one-node-count-out errors over a set
// of jobs: the median over the jobs of each job's median error, and the
// worst error of any fold of any job. Form "chosen" is the form each job's
// choice took.
type FormSummary struct {
	Form string
	// Jobs is how many jobs the form could be judged on.
	Jobs          int
	Median, Worst float64
	// Chosen is how many jobs chose the form (for "chosen", all judged jobs).
	Chosen int
}

// Summarise sums up every form's leave-one-out errors over results, in
// model.Kinds order and then "chosen". A job none of whose forms could be
// judged is left out of every row.
func Summarise(results []*Result) []FormSummary {
	var rows []FormSummary
	med := map[string][]float64{}
	worst := map[string]float64{}
	chosen := map[string]int{}
	add := func(name string, f model.FormScore) {
		med[name] = append(med[name], f.Median)
		worst[name] = max(worst[name], f.Worst)
	}
	for _, r := range results {
		for _, f := range r.Choice.Forms {
			if f.Folds > 0 {
				add(string(f.Kind), f)
			}
		}
		if f, ok := r.Choice.Score(r.Choice.Chosen); ok && f.Folds > 0 {
			add("chosen", f)
			chosen[string(f.Kind)]++
			chosen["chosen"]++
		}
	}
	names := make([]string, 0, len(model.Kinds)+1)
	for _, k := range model.Kinds {
		names = append(names, string(k))
	}
	for _, name := range append(names, "chosen") {
		s := FormSummary{Form: name, Jobs: len(med[name]), Worst: worst[name], Chosen: chosen[name]}
		if s.Jobs > 0 {
			m := slices.Clone(med[name])
			slices.Sort(m)
			s.Median = m[len(m)/2]
			if len(m)%2 == 0 {
				s.Median = (m[len(m)/2-1] + m[len(m)/2]) / 2
			}
		}
		rows = append(rows, s)
	}
	return rows
}
