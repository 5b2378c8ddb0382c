package sim

import (
	"math/rand/v2"
	"testing"
)

// TestIndexSetNext: after every add or remove on random sets of sizes that
// give one to four levels, next(i) is the least member ≥ i, as a plain
// []bool says, for every i (and n, past the end, has none), and remove
// reports whether it left the set empty.
func TestIndexSetNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 5, 64, 65, 4096, 4097, 300_000} {
		x, want := newIndexSet(n), make([]bool, n)
		for step := range 200 {
			i := rng.IntN(n)
			if step%3 == 2 && rng.IntN(2) == 0 {
				// Remove a member if there is one near, to empty words too.
				if m := x.next(i); m >= 0 {
					i = m
				}
			}
			removed, emptied := want[i], false
			if removed {
				emptied = x.remove(i)
			} else {
				x.add(i)
			}
			want[i] = !want[i]
			probes := []int{0, i, max(0, i-1), min(n-1, i+1), rng.IntN(n), n - 1}
			for _, p := range probes {
				got, exp := x.next(p), -1
				for q := p; q < n; q++ {
					if want[q] {
						exp = q
						break
					}
				}
				if got != exp {
					t.Fatalf("n = %d, step %d: next(%d) = %d, want %d", n, step, p, got, exp)
				}
			}
			if got := x.next(n); got != -1 {
				t.Fatalf("n = %d: next(n) = %d, want -1", n, got)
			}
			empty := true
			for _, b := range want {
				empty = empty && !b
			}
			if removed && emptied != empty {
				t.Fatalf("n = %d, step %d: remove(%d) reports empty %v, want %v", n, step, i, emptied, empty)
			}
		}
	}
}

// TestIndexSetSparse: two members far apart in a big set, found across
// empty words and empty summary words (64·64 = 4096 per summary word).
func TestIndexSetSparse(t *testing.T) {
	x := newIndexSet(1 << 20)
	x.add(7)
	x.add(900_001)
	for _, c := range []struct{ from, want int }{{0, 7}, {7, 7}, {8, 900_001}, {900_001, 900_001}, {900_002, -1}} {
		if got := x.next(c.from); got != c.want {
			t.Errorf("next(%d) = %d, want %d", c.from, got, c.want)
		}
	}
	if x.remove(7) {
		t.Error("remove(7) reports the set empty, with 900001 in it")
	}
	if got := x.next(0); got != 900_001 {
		t.Errorf("after remove(7): next(0) = %d, want 900001", got)
	}
	if empty := x.remove(900_001); !empty || x.next(0) != -1 {
		t.Errorf("after removing both: remove reports empty %v, next(0) %d", empty, x.next(0))
	}
}
