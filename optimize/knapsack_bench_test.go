package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkKnapsack is the pricing programme at 200 jobs on 50 hosts
// (exact, 101 × 101 cells) over the grid durations, at random duals:
// untraced, as a full round prices, and traced, as a quick round does.
func BenchmarkKnapsack(b *testing.B) {
	p := randomOnHosts(b, 1, 200, 50)
	cg := newColumnGen(p, 0, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	cg.pi = make([]float64, len(p.Jobs))
	for j := range cg.pi {
		cg.pi[j] = 100 * rng.Float64()
	}
	if v, _, _ := cg.knapsack(cg.grid[len(cg.grid)-1], cg.scale, false, false); v <= 0 {
		b.Fatalf("the longest duration prices nothing (%v): the benchmark would time an empty table", v)
	}
	for _, trace := range []bool{false, true} {
		name := map[bool]string{false: "untraced", true: "traced"}[trace]
		b.Run(name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				cg.knapsack(cg.grid[i%len(cg.grid)], cg.scale, trace, false)
			}
		})
	}
}

// addRowMax is addRow as it was written first, with the builtin max and
// each sum formed before it: the plain reference for TestAddRowEqualsMax.
func addRowMax(r0, r1, p0, p1 []float64, wb int, v float64) {
	for b := len(r0) - 1; b >= 0; b-- {
		n0, n1 := r0[b], r1[b]
		if p0 != nil {
			n0 = max(n0, p0[b]+v)
			n1 = max(n1, p1[b]+v)
		}
		if wb >= 0 && b >= wb {
			n1 = max(n1, r0[b-wb]+v, r1[b-wb]+v)
		}
		r0[b], r1[b] = n0, n1
	}
}

// TestAddRowEqualsMax: add's flag-1 row update (addRow, addRowTraced)
// gives the same row as addRowMax on the full two-flag rows, bit for bit
// but for the sign of zero, on random rows with −Inf cells, zeros, the row
// below being the row itself (0 primary units) and every second-role
// width; the traced decisions rebuild each cell. Flag 0 uses no second
// resource, so its row is one value here; add's own flag-0 step, and the
// whole table, are held against a plain one by TestPricingEqualsReference.
func TestAddRowEqualsMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 12))
	cell := func() float64 {
		switch rng.IntN(5) {
		case 0:
			return math.Inf(-1)
		case 1:
			return 0
		}
		return 1000 * rng.Float64()
	}
	for range 20000 {
		n := 1 + rng.IntN(12)
		row := func() []float64 {
			r := make([]float64, n)
			for b := range r {
				r[b] = cell()
			}
			return r
		}
		flat := func(x float64) []float64 {
			r := make([]float64, n)
			for b := range r {
				r[b] = x
			}
			return r
		}
		z := cell()
		r0, r1 := flat(z), row()
		var p0, p1 []float64
		pz := math.NaN()
		switch rng.IntN(3) {
		case 1:
			pz = cell()
			p0, p1 = flat(pz), row()
		case 2:
			pz, p0, p1 = z, r0, r1 // 0 primary units: the row itself
		}
		wb, v := rng.IntN(n+2)-1, cell()
		if math.IsInf(v, -1) {
			v = 1
		}
		want0, want1 := slices.Clone(r0), slices.Clone(r1)
		wp0, wp1 := p0, p1
		if p0 != nil && &p0[0] == &r0[0] {
			wp0, wp1 = want0, want1
		} else if p0 != nil {
			wp0, wp1 = slices.Clone(p0), slices.Clone(p1)
		}
		addRowMax(want0, want1, wp0, wp1, wb, v)
		got1 := slices.Clone(r1)
		gp1 := p1
		if p1 != nil && &p1[0] == &r1[0] {
			gp1 = got1
		}
		addRow(z, got1, gp1, wb, v)
		got0 := z
		if p1 != nil {
			got0 = larger(z, pz+v)
		}
		tr1 := slices.Clone(r1)
		tp1 := p1
		if p1 != nil && &p1[0] == &r1[0] {
			tp1 = tr1
		}
		c1 := make([]int8, n)
		addRowTraced(z, tr1, tp1, c1, wb, v)
		for b := range n {
			if got0 != want0[b] || got1[b] != want1[b] || tr1[b] != want1[b] {
				t.Fatalf("n %d wb %d v %v cell %d: addRow (%v, %v), traced %v, max (%v, %v)",
					n, wb, v, b, got0, got1[b], tr1[b], want0[b], want1[b])
			}
			// r0, r1, p0 and p1 are the rows as they were.
			from1 := map[int8]float64{0: r1[b]}
			if p0 != nil {
				from1[1] = p1[b] + v
			}
			if wb >= 0 && b >= wb {
				from1[2], from1[3] = r0[b-wb]+v, r1[b-wb]+v
			}
			if f, ok := from1[c1[b]]; !ok || f != tr1[b] {
				t.Fatalf("n %d wb %d cell %d: flag 1 decision %d gives %v, the cell is %v", n, wb, b, c1[b], f, tr1[b])
			}
		}
	}
}
