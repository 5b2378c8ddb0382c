package optimize

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestSpanValley: span against a plain scan of every VM count, on runtimes
// that fall and then rise (as a model kept inside its measured range does)
// and on monotone ones, by hand and at random (up to 120 counts, with flat
// steps: span's binary searches go through every branch).
func TestSpanValley(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 90))
	var random [][]float64
	for range 200 {
		n := 1 + rng.IntN(120)
		c := make([]float64, n+1)
		low := 1 + rng.IntN(n)
		c[low] = float64(rng.IntN(3))
		for x := low - 1; x >= 1; x-- {
			c[x] = c[x+1] + float64(rng.IntN(3))
		}
		for x := low + 1; x <= n; x++ {
			c[x] = c[x-1] + float64(rng.IntN(3))
		}
		random = append(random, c)
	}
	curves := [][]float64{
		{0, 9, 9, 5, 3, 2, 9, 9},  // a range 3–5 with a penalty either side
		{0, 8, 4, 2, 1, 1, 1},     // falling, then flat
		{0, 1, 2, 4, 8},           // rising
		{0, 5},                    // one VM count
		{0, 7, 7, 7},              // flat
		{0, 10, 6, 6, 3, 3, 4, 4}, // flat steps on both sides of the bottom
	}
	for ci, c := range slices.Concat(curves, random) {
		ps := &phaseSolver{rt: [][3][]float64{{c}}, low: [][3]int{{lowest(c)}}}
		for T := 0.0; T <= slices.Max(c)+1; T += 0.5 {
			lo, hi := ps.span(0, 0, T)
			wlo, whi := 1, 0
			for x := 1; x < len(c); x++ {
				if c[x] <= T {
					if whi == 0 {
						wlo = x
					}
					whi = x
				}
			}
			empty, wempty := lo > hi, wlo > whi
			if empty != wempty || !empty && (lo != wlo || hi != whi) {
				t.Errorf("curve %d, T %v: span [%d, %d], want [%d, %d]", ci, T, lo, hi, wlo, whi)
			}
		}
	}
}

// TestSpanMatchesSortSearch: span gives what its searches written with
// sort.Search give, on any curve, valley-shaped or not (the solver's
// tables are, zigzag.go; a search of another curve answers by the counts
// it probes, so this pins the probes too).
func TestSpanMatchesSortSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 91))
	for range 3000 {
		c := make([]float64, 2+rng.IntN(60))
		for x := 1; x < len(c); x++ {
			c[x] = float64(rng.IntN(12))
		}
		x, m := lowest(c), len(c)-1
		ps := &phaseSolver{rt: [][3][]float64{{c}}, low: [][3]int{{x}}}
		for T := c[x]; T <= 12; T += 0.5 {
			lo, hi := ps.span(0, 0, T)
			wlo := 1 + sort.Search(x, func(i int) bool { return c[i+1] <= T })
			whi := x - 1 + sort.Search(m-x+1, func(i int) bool { return c[x+i] > T })
			if lo != wlo || hi != whi {
				t.Fatalf("curve %v, T %v: span [%d, %d], sort.Search [%d, %d]", c, T, lo, hi, wlo, whi)
			}
		}
	}
}
