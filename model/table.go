package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// ErrTooFewNodeCounts is wrapped when runs cover fewer distinct node counts
// than a form has parameters to pin down.
var ErrTooFewNodeCounts = errors.New("model: too few distinct node counts for this form")

// Table is a measured runtime table: the median time at each measured node
// count, read between them by monotone cubic interpolation (Fritsch and
// Carlson, "Monotone Piecewise Cubic Interpolation", SIAM J. Numer. Anal.
// 1980) of ln t over ln n, which passes through every point and never
// overshoots: between two measured counts the time stays between their two
// times. Interpolating in log-log space makes a table of a power law's points
// that power law exactly, as a runtime halving per doubling of VMs should be
// read.
//
// Above the measured range a table of three points or more extrapolates
// with Amdahl's law a + c/n, c fitted to its last three points and a set
// so that the curve passes through the last (tail): a serial part and a
// part that divides among the VMs, judged where the job ran largest, since
// that is the regime more VMs continue (docs/profiling.md measures it on
// real runs). Below the range, and above it with two points, the
// table extrapolates with the power law through the two measured points
// nearest that end (a·n^b on the log-log secant, the straight continuation
// in the space it interpolates in), which stays positive; a one-point table
// is flat. Nodes ascend strictly.
type Table struct {
	Nodes []int     `json:"nodes"`
	Times []float64 `json:"seconds"`
}

var _ Model = (*Table)(nil)

// Seconds interpolates or extrapolates the table at n; 0 for n ≤ 0.
func (t *Table) Seconds(n int) float64 {
	if n <= 0 || len(t.Nodes) == 0 {
		return 0
	}
	k := len(t.Nodes)
	x := float64(n)
	switch i := sort.SearchInts(t.Nodes, n); {
	case i < k && t.Nodes[i] == n:
		return t.Times[i]
	case k == 1:
		return t.Times[0]
	case i == 0:
		return t.secant(0, 1, x)
	case i == k && k >= 3:
		return t.tail(x)
	case i == k:
		return t.secant(k-2, k-1, x)
	default:
		return t.hermite(i-1, x)
	}
}

// secant is the power law through points i and j, at x.
func (t *Table) secant(i, j int, x float64) float64 {
	xi, xj := float64(t.Nodes[i]), float64(t.Nodes[j])
	b := math.Log(t.Times[j]/t.Times[i]) / math.Log(xj/xi)
	return t.Times[i] * math.Pow(x/xi, b)
}

// tail is Amdahl's law a + c/n beyond the last three points, at x above
// them: c the least-squares slope of time over 1/n through those points,
// and a such that the curve passes through the last point, so that the
// table runs on without a jump; a is at least 0 (then c = T·n through the
// last point). Times that rise at the end (c < 0) take the secant through
// the last two points instead. Closed form: planners call Seconds in their
// inner loops.
func (t *Table) tail(x float64) float64 {
	k := len(t.Nodes)
	var mx, my float64
	for i := k - 3; i < k; i++ {
		mx += 1 / float64(t.Nodes[i])
		my += t.Times[i]
	}
	mx, my = mx/3, my/3
	var sxy, sxx float64
	for i := k - 3; i < k; i++ {
		dx := 1/float64(t.Nodes[i]) - mx
		sxy += dx * (t.Times[i] - my)
		sxx += dx * dx
	}
	c := sxy / sxx
	if !(c >= 0) {
		return t.secant(k-2, k-1, x)
	}
	nk, tk := float64(t.Nodes[k-1]), t.Times[k-1]
	a := tk - c/nk
	if a < 0 {
		a, c = 0, tk*nk
	}
	return a + c/x
}

// logPoints are the table's points in log-log space.
func (t *Table) logPoints() (xs, ys []float64) {
	for i := range t.Nodes {
		xs = append(xs, math.Log(float64(t.Nodes[i])))
		ys = append(ys, math.Log(t.Times[i]))
	}
	return xs, ys
}

// slopes are the Fritsch–Carlson tangents at every point in log-log space:
// the mean of the neighbouring secants (one-sided at the ends), zero at a
// local extremum, and scaled down where α² + β² > 9 so that each piece stays
// monotone.
func (t *Table) slopes() []float64 {
	k := len(t.Nodes)
	xs, ys := t.logPoints()
	d := make([]float64, k-1)
	for i := range d {
		d[i] = (ys[i+1] - ys[i]) / (xs[i+1] - xs[i])
	}
	m := make([]float64, k)
	m[0], m[k-1] = d[0], d[k-2]
	for i := 1; i < k-1; i++ {
		if d[i-1]*d[i] > 0 {
			m[i] = (d[i-1] + d[i]) / 2
		}
	}
	for i, di := range d {
		if di == 0 {
			m[i], m[i+1] = 0, 0
			continue
		}
		a, b := m[i]/di, m[i+1]/di
		if a < 0 {
			m[i], a = 0, 0
		}
		if b < 0 {
			m[i+1], b = 0, 0
		}
		if s := a*a + b*b; s > 9 {
			tau := 3 / math.Sqrt(s)
			m[i], m[i+1] = tau*a*di, tau*b*di
		}
	}
	return m
}

// hermite is the cubic Hermite piece between points i and i+1 in log-log
// space, at n = x.
func (t *Table) hermite(i int, x float64) float64 {
	m := t.slopes()
	xs, ys := t.logPoints()
	h := xs[i+1] - xs[i]
	s := (math.Log(x) - xs[i]) / h
	h00 := 2*s*s*s - 3*s*s + 1
	h10 := s*s*s - 2*s*s + s
	h01 := -2*s*s*s + 3*s*s
	h11 := s*s*s - s*s
	return math.Exp(h00*ys[i] + h10*h*m[i] + h01*ys[i+1] + h11*h*m[i+1])
}

// Kind is KindTable.
func (*Table) Kind() Kind { return KindTable }

// String shows the table for people: "table 2:300 4:160 8:95".
func (t *Table) String() string {
	parts := make([]string, len(t.Nodes))
	for i := range t.Nodes {
		parts[i] = fmt.Sprintf("%d:%.4g", t.Nodes[i], t.Times[i])
	}
	return "table " + strings.Join(parts, " ")
}

// Validate reports a table that cannot describe a runtime: at least one
// point, node counts from 1 strictly ascending, times finite and positive.
func (t *Table) Validate() error {
	if len(t.Nodes) == 0 || len(t.Nodes) != len(t.Times) {
		return fmt.Errorf("model.nodes and model.seconds must be equally long and not empty, got %d and %d", len(t.Nodes), len(t.Times))
	}
	for i, n := range t.Nodes {
		if n < 1 || (i > 0 && n <= t.Nodes[i-1]) {
			return fmt.Errorf("model.nodes must ascend strictly from at least 1, got %v", t.Nodes)
		}
		if n > MaxPrimaryVMs {
			return fmt.Errorf("model.nodes[%d] must be at most %d VMs, got %d", i, MaxPrimaryVMs, n)
		}
		if err := within(fmt.Sprintf("model.seconds[%d]", i), t.Times[i], false); err != nil {
			return err
		}
	}
	return nil
}

// MarshalJSON writes {"kind": "table", "nodes": […], "seconds": […]}.
func (t *Table) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Kind    Kind      `json:"kind"`
		Nodes   []int     `json:"nodes"`
		Seconds []float64 `json:"seconds"`
	}{KindTable, t.Nodes, t.Times})
}

// FitTable makes the table of the median time at each distinct node count.
// Node counts must be whole numbers.
func FitTable(nodes, seconds []float64) (*Table, error) {
	if err := needRuns("a table", 1, nodes, seconds); err != nil {
		return nil, err
	}
	by := map[int][]float64{}
	for i, n := range nodes {
		if n != math.Trunc(n) || n > math.MaxInt32 {
			return nil, fmt.Errorf("model: observation %d: a table needs whole node counts, got %v", i+1, n)
		}
		by[int(n)] = append(by[int(n)], seconds[i])
	}
	t := &Table{}
	for n := range by {
		t.Nodes = append(t.Nodes, n)
	}
	slices.Sort(t.Nodes)
	for _, n := range t.Nodes {
		t.Times = append(t.Times, median(by[n]))
	}
	return t, nil
}

// median of a non-empty sample; the mean of the middle two for an even count.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	k := len(s)
	if k%2 == 1 {
		return s[k/2]
	}
	return (s[k/2-1] + s[k/2]) / 2
}
