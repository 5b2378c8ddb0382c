package engine

import (
	"math/rand/v2"
	"testing"
)

// TestNextFreeWordMatchesScan: on random free-slot bitmaps of up to five
// summary words, mostly empty, with maps, reduces, both or neither
// runnable, nextFreeWord(k, w) is, for every w, the first word from w on
// whose kind-k bits are not 0 while those of a runnable kind are not 0
// either, as a scan of the words finds it.
func TestNextFreeWordMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 18))
	for trial := range 400 {
		words := 1 + rng.IntN(300)
		s := &State{}
		for k := range 2 {
			s.freeBits[k] = make([]uint64, words)
			s.freeWords[k] = make([]uint64, (words+63)/64)
			for w := range words {
				if rng.IntN(30) == 0 {
					s.freeBits[k][w] = 1 << rng.IntN(64)
					s.freeWords[k][w/64] |= 1 << (w % 64)
				}
			}
		}
		maps, reds := trial%4&1 != 0, trial%4&2 != 0
		if maps {
			s.runnable[Map] = []int32{0}
		}
		if reds {
			s.runnable[Reduce] = []int32{0}
		}
		for k := Map; k <= Reduce; k++ {
			for w := 0; w <= words+1; w++ {
				want := -1
				for v := w; v < words && want < 0; v++ {
					other := maps && s.freeBits[Map][v] != 0 || reds && s.freeBits[Reduce][v] != 0
					if s.freeBits[k][v] != 0 && other {
						want = v
					}
				}
				if got := s.nextFreeWord(k, w); got != want {
					t.Fatalf("trial %d (%d words, maps %v, reduces %v): nextFreeWord(%v, %d) = %d, want %d", trial, words, maps, reds, k, w, got, want)
				}
			}
		}
	}
}
