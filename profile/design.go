package profile

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/packer-sched/packer/model"
)

// Design asks ChooseNodes for the node counts to profile a job at. The zero
// value is invalid: it needs Candidates and Points or Budget.
type Design struct {
	// Form is the runtime model the runs must pin down; "" (auto) designs
	// for the Ernest form, whose terms include the power law's and Amdahl's.
	Form model.Kind
	// Candidates are the node counts a run may use (distinct, positive); a
	// single count N stands for 1..N.
	Candidates []int
	// Points is how many node counts to choose; 0 chooses as many as Budget
	// pays for.
	Points int
	// Budget, when positive, caps the machine time of the chosen runs in
	// node-seconds: a run at n nodes is taken to cost n × ProbeSeconds (the
	// run at 1 node, measured first, that every design then keeps).
	Budget float64
	// ProbeSeconds is the wall time of the run at 1 node; needed with Budget.
	ProbeSeconds float64
}

// Choice is the node counts ChooseNodes picked and why, in a sentence.
type Choice struct {
	Nodes []int
	Why   string
}

// designBasis is the regression row of a form at n: the terms its fit is
// linear in (the power law's in log space, ln F = ln a + b·ln n).
func designBasis(form model.Kind) (func(n float64) []float64, error) {
	switch form {
	case model.KindPower:
		return func(n float64) []float64 { return []float64{1, math.Log(n)} }, nil
	case model.KindAmdahl:
		return func(n float64) []float64 { return []float64{1, 1 / n} }, nil
	case model.KindErnest, "", "auto":
		return func(n float64) []float64 { return []float64{1, 1 / n, math.Log(n), n} }, nil
	case model.KindTable:
		return nil, nil
	}
	return nil, fmt.Errorf("profile: design: unknown form %q (want one of %s)", form, model.KindNames())
}

// Counts returns the candidate node counts, a single N expanded to 1..N, in
// increasing order, or why the design is invalid.
func (d *Design) Counts() ([]int, error) {
	v, err := d.validate(false)
	return v.Candidates, err
}

// validate checks the design and expands its candidates; probed says the
// probe must have run (ProbeSeconds set) when there is a Budget.
func (d *Design) validate(probed bool) (Design, error) {
	v := *d
	if len(v.Candidates) == 1 {
		v.Candidates = make([]int, d.Candidates[0])
		for i := range v.Candidates {
			v.Candidates[i] = i + 1
		}
	}
	if err := CheckNodes(v.Candidates); err != nil {
		return v, err
	}
	v.Candidates = slices.Clone(v.Candidates)
	slices.Sort(v.Candidates)
	if _, err := designBasis(v.Form); err != nil {
		return v, err
	}
	switch {
	case v.Points < 0:
		return v, fmt.Errorf("profile: design: Points %d is negative", v.Points)
	case v.Points == 0 && !(v.Budget > 0):
		return v, errors.New("profile: design: give Points, a Budget, or both")
	case v.Points > len(v.Candidates):
		return v, fmt.Errorf("profile: design: %d points wanted from %d candidate node counts", v.Points, len(v.Candidates))
	case math.IsNaN(v.Budget) || math.IsInf(v.Budget, 0) || v.Budget < 0:
		return v, fmt.Errorf("profile: design: Budget %v must be finite and non-negative", v.Budget)
	case probed && v.Budget > 0 && !(v.ProbeSeconds > 0 && !math.IsInf(v.ProbeSeconds, 0)):
		return v, fmt.Errorf("profile: design: a Budget needs the probe run's seconds, got %v", v.ProbeSeconds)
	case v.Budget > 0 && v.Candidates[0] != 1:
		return v, errors.New("profile: design: a Budget needs 1 among the candidates (the probe runs there)")
	}
	return v, nil
}

// ChooseNodes picks the node counts to profile at: the D-optimal design
// of Ernest (Venkataraman et al., NSDI 2016) for the form's regression
// terms x(n) — [1, ln n] for the power law (its fit is in log space),
// [1, 1/n] for Amdahl's, [1, 1/n, ln n, n] for Ernest's and for auto —
// that is the set S that maximises det Σ_{n∈S} x(n)x(n)ᵀ, the volume of the
// parameters' confidence region shrinking as it grows. With Points it picks
// that many; with a Budget, as many as fit in it (at most Points), a run at
// n costing n × ProbeSeconds node-seconds — the time at 1 node, as if more
// nodes bought no speed-up, so that a job that speeds up costs less than
// budgeted and only one that slows down with n can cost more — and the
// probe's node count 1 is always among them. A table (monotone
// interpolation between the runs) has no parameters to pin: its counts are
// spread evenly over the candidates, ends included.
//
// The search is greedy (each step adds the count that raises the
// determinant most; a tiny ridge lets it start below as many counts as
// terms) followed by exchanges of one chosen count for another while that
// raises it, the classic Fedorov exchange; ties go to the smaller count.
func ChooseNodes(d *Design) (Choice, error) {
	v, err := d.validate(true)
	if err != nil {
		return Choice{}, err
	}
	basis, err := designBasis(v.Form)
	if err != nil {
		return Choice{}, err
	}
	cost := func(n int) float64 {
		if v.Budget > 0 {
			return float64(n) * v.ProbeSeconds
		}
		return 0
	}
	want := v.Points
	if want == 0 {
		want = len(v.Candidates)
	}
	var s []int
	if basis == nil {
		s = evenlySpaced(v.Candidates, want, cost, v.Budget)
	} else {
		s = dOptimal(v.Candidates, want, basis, cost, v.Budget)
	}
	slices.Sort(s)
	return Choice{Nodes: s, Why: why(&v, s, cost)}, nil
}

// dOptimal is the greedy start and the exchanges of ChooseNodes.
func dOptimal(cands []int, want int, basis func(float64) []float64, cost func(int) float64, budget float64) []int {
	var s []int
	spent := 0.0
	if budget > 0 {
		s, spent = []int{1}, cost(1)
	}
	fits := func(extra float64) bool { return budget <= 0 || spent+extra <= budget*(1+1e-12) }
	for len(s) < want {
		best, bestDet := 0, math.Inf(-1)
		for _, n := range cands {
			if slices.Contains(s, n) || !fits(cost(n)) {
				continue
			}
			if ld := logDet(append(slices.Clone(s), n), basis); ld > bestDet+1e-12 {
				best, bestDet = n, ld
			}
		}
		if best == 0 {
			break
		}
		s, spent = append(s, best), spent+cost(best)
	}
	for range 100 * len(cands) {
		cur := logDet(s, basis)
		bi, bn, bestDet := -1, 0, cur
		for i, out := range s {
			if budget > 0 && out == 1 {
				continue // the probe has run already
			}
			for _, in := range cands {
				if slices.Contains(s, in) || !fits(cost(in)-cost(out)) {
					continue
				}
				t := slices.Clone(s)
				t[i] = in
				if ld := logDet(t, basis); ld > bestDet+1e-9*math.Max(1, math.Abs(bestDet)) {
					bi, bn, bestDet = i, in, ld
				}
			}
		}
		if bi < 0 {
			break
		}
		spent += cost(bn) - cost(s[bi])
		s[bi] = bn
	}
	return s
}

// logDet is ln det(XᵀX + εI) of the counts' regression rows; ε = 10⁻⁸
// keeps it finite below as many counts as terms.
func logDet(s []int, basis func(float64) []float64) float64 {
	p := len(basis(1))
	m := mat.NewSymDense(p, nil)
	for k := range p {
		m.SetSym(k, k, 1e-8)
	}
	for _, n := range s {
		x := basis(float64(n))
		for i := range p {
			for j := i; j < p; j++ {
				m.SetSym(i, j, m.At(i, j)+x[i]*x[j])
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(m) {
		return math.Inf(-1)
	}
	return ch.LogDet()
}

// evenlySpaced picks want counts spread evenly over cands, ends included,
// fewer while a Budget does not pay for them.
func evenlySpaced(cands []int, want int, cost func(int) float64, budget float64) []int {
	for k := want; k >= 1; k-- {
		var s []int
		total := 0.0
		for i := range k {
			pos := 0
			if k > 1 {
				pos = int(math.Round(float64(i) * float64(len(cands)-1) / float64(k-1)))
			}
			if n := cands[pos]; !slices.Contains(s, n) {
				s, total = append(s, n), total+cost(n)
			}
		}
		if budget <= 0 || total <= budget*(1+1e-12) {
			return s
		}
	}
	return nil
}

// why says in a sentence what was chosen and by which rule.
func why(v *Design, s []int, cost func(int) float64) string {
	form := string(v.Form)
	if form == "" {
		form = "auto (designed for ernest)"
	}
	var b strings.Builder
	if v.Form == model.KindTable {
		fmt.Fprintf(&b, "node counts %s: spread evenly over %d–%d for the table form", joinCounts(s), v.Candidates[0], v.Candidates[len(v.Candidates)-1])
	} else {
		fmt.Fprintf(&b, "node counts %s: the D-optimal design for the %s form (largest det XᵀX of its terms) over %d–%d",
			joinCounts(s), form, v.Candidates[0], v.Candidates[len(v.Candidates)-1])
	}
	if v.Budget > 0 {
		total := 0.0
		for _, n := range s {
			total += cost(n)
		}
		fmt.Fprintf(&b, "; %.4g of the %.4g node-s budget, a run at n costing n × %.4g s (the run at 1 node)", total, v.Budget, v.ProbeSeconds)
	}
	if v.Points > 0 && len(s) < v.Points {
		fmt.Fprintf(&b, "; the budget pays for %d of the %d points asked", len(s), v.Points)
	}
	return b.String()
}

func joinCounts(s []int) string {
	out := make([]string, len(s))
	for i, n := range s {
		out[i] = fmt.Sprint(n)
	}
	return strings.Join(out, ",")
}
