package model

import (
	"fmt"
	"math"
	"slices"
)

// PowerTolerance is how much worse, in median leave-one-out relative error,
// the power law may predict than the best form and still be chosen by auto
// selection: 0.02 is two percentage points (a power law at 4 % median error
// is kept against an Amdahl law at 2.5 %, not against one at 1.5 %). A
// difference that small between two forms' leave-one-out errors is within
// what measuring again would change, and the planners were designed around
// the power law, so it keeps its place there; beyond it the other form
// predicts better. Not more: on real runs the power law extrapolates worst
// of the forms (the public C3O Spark runtimes fitted at 2–8 nodes, 12
// predicted: power law median error 10.4 %), and a tolerance of five points
// kept it for more than half of those jobs (auto 5.6 % at 12 nodes, 3.4 %
// with two points; docs/profiling.md).
const PowerTolerance = 0.02

// MinNodeCounts is the number of distinct node counts a form needs to be
// fitted at all: one per parameter (two for a table, which must interpolate
// or extrapolate between two points). Judging it by leaving one node count out
// needs one more.
func MinNodeCounts(k Kind) int {
	if k == KindErnest {
		return 4
	}
	return 2
}

// FitForm fits one form to observed (nodes, seconds) pairs: the power law by
// least squares in log space, Amdahl and Ernest by non-negative least squares
// on relative error, the table as the median at each node count.
func FitForm(k Kind, nodes, seconds []float64) (Model, error) {
	switch k {
	case KindPower:
		f, err := FitPowerLaw(nodes, seconds)
		return f.PowerLaw, err
	case KindAmdahl:
		f, err := FitAmdahl(nodes, seconds)
		return f.Amdahl, err
	case KindErnest:
		f, err := FitErnest(nodes, seconds)
		return f.Ernest, err
	case KindTable:
		if err := needRuns("a table", MinNodeCounts(KindTable), nodes, seconds); err != nil {
			return nil, err
		}
		return FitTable(nodes, seconds)
	}
	return nil, fmt.Errorf("model: unknown model form %q (want one of %s)", k, KindNames())
}

// FormScore is one form fitted to a job's runs and judged by how well it
// predicts a node count it was not fitted on.
type FormScore struct {
	Kind Kind
	// Model is the form fitted on all runs; nil when Refused.
	Model Model
	// Median and Worst are the median and largest relative error
	// |predicted − measured| / measured over the folds, where each fold leaves
	// out every run at one node count, fits the rest and predicts the median
	// run there. Zero when Folds is 0.
	Median, Worst float64
	// Folds is the number of node counts left out in turn; 0 when the runs
	// have too few node counts to fit the form without one of them.
	Folds int
	// Refused says why the form was not fitted or not judged; empty when it
	// was both.
	Refused string
	// fitErr is why the form could not be fitted, for errors.Is.
	fitErr error
}

// Choice is the result of ChooseModel: every form's score in Kinds order and
// the form chosen.
type Choice struct {
	Forms  []FormScore
	Chosen Kind
	// Reason says why in a sentence, for people.
	Reason string
}

// Model is the chosen form's fitted model.
func (c Choice) Model() Model {
	for _, f := range c.Forms {
		if f.Kind == c.Chosen {
			return f.Model
		}
	}
	return nil
}

// Score is the chosen form's score.
func (c Choice) Score(k Kind) (FormScore, bool) {
	for _, f := range c.Forms {
		if f.Kind == k {
			return f, true
		}
	}
	return FormScore{}, false
}

// ChooseModel fits every form to the runs, judges each by leave-one-node-
// count-out prediction error, and chooses one: force when it is not empty
// (an error if that form cannot be fitted), otherwise the form with the
// lowest median error, except that the power law is kept while its median is
// within PowerTolerance of the best. A form that needs more node counts than
// the runs have is refused; one that can be fitted but not judged (exactly
// MinNodeCounts node counts) is only chosen when forced. With no form
// judged, the power law is chosen, as packer always did.
func ChooseModel(nodes, seconds []float64, force Kind) (Choice, error) {
	if _, err := checkRuns(nodes, seconds); err != nil {
		return Choice{}, err
	}
	var c Choice
	for _, k := range Kinds {
		c.Forms = append(c.Forms, scoreForm(k, nodes, seconds))
	}
	if force != "" {
		f, ok := c.Score(force)
		if !ok {
			return Choice{}, fmt.Errorf("model: unknown model form %q (want one of %s)", force, KindNames())
		}
		if f.Model == nil {
			return Choice{}, fmt.Errorf("model: the %s form cannot be fitted: %w", force, f.fitErr)
		}
		c.Chosen, c.Reason = force, "forced"
		return c, nil
	}
	// The lowest median wins; forms within rounding (1e-6) of it tie, and a
	// tie goes to the earlier form in Kinds, the one with fewer parameters.
	low := math.Inf(1)
	for _, f := range c.Forms {
		if f.Folds > 0 {
			low = min(low, f.Median)
		}
	}
	best := slices.IndexFunc(c.Forms, func(f FormScore) bool { return f.Folds > 0 && f.Median <= low+1e-6 })
	power := c.Forms[0]
	switch {
	case power.Model == nil:
		return Choice{}, fmt.Errorf("%w: %s", ErrTooFewPoints, power.Refused)
	case best < 0:
		c.Chosen, c.Reason = KindPower, "too few node counts to judge any form by leaving one out: power law by default"
	case power.Folds > 0 && power.Median <= c.Forms[best].Median+PowerTolerance:
		c.Chosen, c.Reason = KindPower, fmt.Sprintf("power law kept: its median leave-one-out error is within %.0f points of the best", 100*PowerTolerance)
	default:
		c.Chosen = c.Forms[best].Kind
		c.Reason = fmt.Sprintf("%s predicts best: median leave-one-out error %.1f %% against the power law's %.1f %%",
			c.Chosen, 100*c.Forms[best].Median, 100*power.Median)
	}
	return c, nil
}

// scoreForm fits form k on all runs and on every leave-one-node-count-out fold.
func scoreForm(k Kind, nodes, seconds []float64) FormScore {
	s := FormScore{Kind: k}
	m, err := FitForm(k, nodes, seconds)
	if err != nil {
		s.Refused, s.fitErr = err.Error(), err
		return s
	}
	s.Model = m
	counts := distinctSorted(nodes)
	if len(counts)-1 < MinNodeCounts(k) {
		s.Refused = fmt.Sprintf("leaving one of %d node counts out leaves too few for %s (needs %d)", len(counts), k, MinNodeCounts(k))
		return s
	}
	var errs []float64
	for _, out := range counts {
		var ns, ss, held []float64
		for i, n := range nodes {
			if n == out {
				held = append(held, seconds[i])
			} else {
				ns, ss = append(ns, n), append(ss, seconds[i])
			}
		}
		fm, err := FitForm(k, ns, ss)
		if err != nil {
			s.Refused = fmt.Sprintf("fit without %v nodes: %v", out, err)
			return s
		}
		want := median(held)
		errs = append(errs, math.Abs(fm.Seconds(int(out))-want)/want)
	}
	s.Folds, s.Median, s.Worst = len(errs), median(errs), slices.Max(errs)
	return s
}

// distinctSorted is the distinct values of xs in increasing order.
func distinctSorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return slices.Compact(s)
}
