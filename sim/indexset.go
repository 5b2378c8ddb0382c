package sim

import "math/bits"

// indexSet is a set of integers in [0, n) with ordered search: a bitmap of
// the members and, above it, bitmaps of the non-zero words of the level below
// (bit w of level l+1 is set when word w of level l is not zero), up to one
// word. Adding, removing and finding the least member ≥ i are then a few word
// operations per level, ⌈log₆₄ n⌉ + 1 levels at most: four for a million
// (15 625, 245, 4 and 1 words).
//
// lo is a lower bound on the members, raised by searches that start below
// it: the jobs of a queue finish roughly in order, so the members bunch at
// the high end and a search from the start would climb and descend the
// levels past the empty low words every time. hi is an upper bound,
// lowered by searches that find nothing: a fair order's walk asks, of each
// count's set, for the job after its last, which otherwise climbs every
// level to find none (under fair sharing, a large part of all searches).
type indexSet struct {
	level  [][]uint64
	lo, hi int
}

// newIndexSet is an empty set of integers in [0, n).
func newIndexSet(n int) *indexSet {
	x := &indexSet{hi: -1}
	for {
		words := max(1, (n+63)/64)
		x.level = append(x.level, make([]uint64, words))
		if words == 1 {
			return x
		}
		n = words
	}
}

// add puts i in the set. (Positions are unsigned here and in remove and
// search: a signed division by 64 and remainder take a fix-up for negative
// numbers, instructions at every level of every operation.)
func (x *indexSet) add(i int) {
	x.lo, x.hi = min(x.lo, i), max(x.hi, i)
	u := uint(i)
	for _, l := range x.level {
		w := u / 64
		was := l[w]
		l[w] |= 1 << (u % 64)
		if was != 0 {
			return // the levels above already mark this word
		}
		u = w
	}
}

// remove takes i out of the set and reports whether the set is empty now:
// a word emptied at every level, up to the top's one word.
func (x *indexSet) remove(i int) (empty bool) {
	u := uint(i)
	for _, l := range x.level {
		w := u / 64
		if l[w] &^= 1 << (u % 64); l[w] != 0 {
			return false // the word still has members: the levels above stand
		}
		u = w
	}
	return true
}

// next is the least member ≥ i, or −1.
func (x *indexSet) next(i int) int {
	if i > x.hi {
		return -1
	}
	if i > x.lo {
		m := x.search(i)
		if m < 0 {
			x.hi = i - 1
		}
		return m
	}
	m := x.search(x.lo)
	if m >= 0 {
		x.lo = m
	} else {
		x.hi = x.lo - 1 // no member at all
	}
	return m
}

// search is the least member ≥ i, or −1.
func (x *indexSet) search(i int) int {
	// Climb until a word holds a member at or after the position, then go
	// down along the lowest set bits.
	u, l := uint(i), 0
	for {
		if l == len(x.level) {
			return -1
		}
		lv, w := x.level[l], u/64
		if w >= uint(len(lv)) {
			return -1
		}
		if m := lv[w] & (^uint64(0) << (u % 64)); m != 0 {
			u = w*64 + uint(bits.TrailingZeros64(m))
			break
		}
		u, l = w+1, l+1
	}
	for ; l > 0; l-- {
		u = u*64 + uint(bits.TrailingZeros64(x.level[l-1][u]))
	}
	return int(u)
}
