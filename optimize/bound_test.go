package optimize

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAreaIndex: the index answers min{x·t[x] : t[x] ≤ D} exactly as a scan
// over every x does, on random runtime curves (rising, falling and neither)
// and durations below, between and above them.
func TestAreaIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 200 {
		n := rng.IntN(12)
		rt := make([]float64, n+1)
		for x := 1; x <= n; x++ {
			switch i % 3 {
			case 0:
				rt[x] = 1000 / float64(x)
			case 1:
				rt[x] = 100 + 10*float64(x)
			default:
				rt[x] = math.Round(rng.Float64() * 50)
			}
		}
		ix := newAreaIndex(rt)
		for range 20 {
			D := rng.Float64() * 1200
			if rng.IntN(4) == 0 && n > 0 {
				D = rt[1+rng.IntN(n)] // exactly a runtime: t[x] ≤ D holds
			}
			want := math.Inf(1)
			for x := 1; x <= n; x++ {
				if rt[x] <= D {
					want = min(want, float64(x)*rt[x])
				}
			}
			if got := ix.area(D); got != want {
				t.Fatalf("curve %d %v, D = %v: index %v, scan %v", i, rt, D, got, want)
			}
		}
	}
}
