package experiments

import (
	"fmt"
	"slices"
	"strings"
)

// Experiment is one of a paper's headline comparisons, regenerated in the
// simulator. Run computes, for one random seed, Values[row][column]; the
// harness (Evaluate) takes the median over seeds and Check tests the paper's
// directions on the medians.
type Experiment struct {
	// Name is the command-line name: "dp-shares".
	Name string
	// Paper is the paper the experiment comes from.
	Paper Paper
	// Title says what is compared, on which workload.
	Title string
	// Columns and Rows label Run's table.
	Columns, Rows []string
	// Reported is the paper's number or claim per row ("" for none).
	Reported []string
	// Run computes the table for one seed; small asks for the reduced
	// workloads the tests use, where the experiment has one.
	Run func(seed uint64, small bool) (Table, error)
	// Check evaluates the paper's directions on the medians over seeds.
	Check func(med Table) []Check
}

// Table is values[row][column], one per Experiment row and column.
type Table [][]float64

// Check is one of the paper's directions and whether our medians follow it,
// decided by measurement alone: nothing is marked expected in advance.
type Check struct {
	Claim string `json:"claim"`
	Holds bool   `json:"holds"`
}

// Verdict is how a report marks the check: "holds" or "does not hold".
func (c Check) Verdict() string {
	if c.Holds {
		return "holds"
	}
	return "does not hold"
}

// All lists every experiment, grouped by paper in the order of Papers.
func All() []Experiment {
	out := []Experiment{dpBudget(), dpShares(), dp80(), dpBoost(), delayLocality()}
	out = append(out, hybsExperiments()...)
	out = append(out, tyrexExperiments()...)
	return append(out, packingW1W6())
}

// Select returns the named experiments in the order named; no names, or
// the single name "all", selects every one.
func Select(names []string) ([]Experiment, error) {
	all := All()
	if len(names) == 0 || (len(names) == 1 && names[0] == "all") {
		return all, nil
	}
	byName := make(map[string]Experiment, len(all))
	known := make([]string, len(all))
	for i, e := range all {
		byName[e.Name] = e
		known[i] = e.Name
	}
	out := make([]Experiment, 0, len(names))
	for _, name := range names {
		e, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("experiments: %w experiment %q (want all or one of %s)", ErrUnknown, name, strings.Join(known, ", "))
		}
		out = append(out, e)
	}
	return out, nil
}

// Tally is how many of one paper's claims hold over a set of results.
type Tally struct {
	Paper  Paper `json:"paper"`
	Holds  int   `json:"holds"`
	Claims int   `json:"claims"`
}

// Summary tallies the results' checks by paper, papers in the order they
// first appear, and adds the total over all of them as the last entry (its
// Paper zero).
func Summary(results []*Result) []Tally {
	var out []Tally
	var all Tally
	for _, r := range results {
		i := slices.IndexFunc(out, func(t Tally) bool { return t.Paper.Name == r.Paper.Name })
		if i < 0 {
			out = append(out, Tally{Paper: r.Paper})
			i = len(out) - 1
		}
		for _, c := range r.Checks {
			out[i].Claims++
			all.Claims++
			if c.Holds {
				out[i].Holds++
				all.Holds++
			}
		}
	}
	return append(out, all)
}
