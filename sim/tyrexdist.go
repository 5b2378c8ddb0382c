package sim

import (
	"math"
	"slices"
	"sort"
)

// The dynamic Tyrex policy looks at a partition's distribution of partial
// sizes at every task end there, and that distribution holds every job that
// finished in the partition: tens of thousands on a day of a production
// trace. Summing them at every task end (and a few dozen times more for the
// cutoff's bisection) made tyrex-dynamic quadratic: ten minutes for the
// Facebook 2010 day at 256 MiB blocks. So the finished jobs' sizes are kept
// sorted with prefix sums of x and x² (sizes), and a distribution's SCV and
// the cutoff function f(p) = SCV(L_p) − SCV(R_p) come from those moments in
// O(log n + current jobs). Moments lose digits to cancellation where the
// two-pass sums do not, so they are summed in double-double arithmetic
// (about 32 digits). SCV then comes out correct to a few units in the last
// place. f(p)'s right side, Σ(x − p)² = Σx² − 2pΣx + kp², loses about
// 2·log10(x/(x − p)) more digits when every size above p lies within a
// relative δ of p (error about 1e-32/δ²), where the two-pass x − p is exact;
// in the bisection the sizes above a midpoint lie at least about 5e-10 of
// the range away from it, so f's error stays below about 1e-11 (measured
// against 400-bit arithmetic with 20,000 finished jobs), where f itself is
// of order 1: far from deciding a sign otherwise except at ties.

// dd is an unevaluated sum hi + lo of two float64s with |lo| ≤ ulp(hi)/2:
// double-double arithmetic (Dekker; Knuth's TwoSum; the product's error by
// a fused multiply-add).
type dd struct{ hi, lo float64 }

// twoSum is a + b exactly.
func twoSum(a, b float64) dd {
	s := a + b
	v := s - a
	return dd{s, (a - (s - v)) + (b - v)}
}

// fastTwoSum is a + b exactly when |a| ≥ |b| or a is 0.
func fastTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd is a·b exactly.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (x dd) add(y dd) dd {
	s := twoSum(x.hi, y.hi)
	t := twoSum(x.lo, y.lo)
	s = fastTwoSum(s.hi, s.lo+t.hi)
	return fastTwoSum(s.hi, s.lo+t.lo)
}

func (x dd) sub(y dd) dd { return x.add(dd{-y.hi, -y.lo}) }

func (x dd) mulF(b float64) dd {
	p := twoProd(x.hi, b)
	return fastTwoSum(p.hi, p.lo+x.lo*b)
}

func (x dd) mul(y dd) dd {
	p := twoProd(x.hi, y.hi)
	return fastTwoSum(p.hi, p.lo+(x.hi*y.lo+x.lo*y.hi))
}

// scvOf is SCV for n values with sum s1 and sum of squares s2:
// (n·s2 − s1²) / s1², 0 for no values or a zero mean, as SCV.
func scvOf(n int, s1, s2 dd) float64 {
	if n == 0 || s1.hi == 0 {
		return 0
	}
	sq := s1.mul(s1)
	num := s2.mulF(float64(n)).sub(sq)
	return (num.hi + num.lo) / (sq.hi + sq.lo)
}

// sizes is a multiset of sizes kept in ascending order, in blocks of at
// most 2·blockCap, with the prefix sums of the sizes and of their squares
// within each block and over the blocks: the count and moments of those at
// or below any p take two binary searches, and an insert rewrites one
// block's sums and the blocks' from it on: O(blockCap + n/blockCap), where
// one sorted array rewrote O(n) per finished job (40 s for 100,000 jobs).
type sizes struct {
	blocks []sizeBlock
	// n[b], c1[b], c2[b]: how many sizes lie in the blocks before b, and
	// their Σx and Σx²; len(blocks)+1 of each.
	n      []int
	c1, c2 []dd
	// blockCap is half a block's most sizes; 0 means 256. Tests shrink it to
	// make many blocks of few sizes.
	blockCap int
}

// sizeBlock is a run of sizes in ascending order with their prefix sums.
type sizeBlock struct {
	x      []float64
	s1, s2 []dd // Σ x[:i] and Σ x[:i]², len(x)+1 of them
}

// sums rewrites b's prefix sums from index i on.
func (b *sizeBlock) sums(i int) {
	b.s1, b.s2 = b.s1[:i+1], b.s2[:i+1]
	for k := i; k < len(b.x); k++ {
		b.s1 = append(b.s1, b.s1[k].add(dd{b.x[k], 0}))
		b.s2 = append(b.s2, b.s2[k].add(twoProd(b.x[k], b.x[k])))
	}
}

// len is how many sizes z holds.
func (z *sizes) len() int {
	if len(z.n) == 0 {
		return 0
	}
	return z.n[len(z.n)-1]
}

// block is the block at or above p's place: the first whose greatest size
// exceeds p, or the last.
func (z *sizes) block(p float64) int {
	b := sort.Search(len(z.blocks), func(i int) bool { x := z.blocks[i].x; return x[len(x)-1] > p })
	return min(b, len(z.blocks)-1)
}

// add inserts v, after the sizes equal to it.
func (z *sizes) add(v float64) {
	from := 0 // the first block whose sizes changed
	if len(z.blocks) == 0 {
		z.blocks = []sizeBlock{{x: []float64{v}, s1: []dd{{}}, s2: []dd{{}}}}
		z.blocks[0].sums(0)
		z.n, z.c1, z.c2 = []int{0}, []dd{{}}, []dd{{}}
	} else {
		from = z.insert(v)
	}
	z.n, z.c1, z.c2 = z.n[:from+1], z.c1[:from+1], z.c2[:from+1]
	for k := from; k < len(z.blocks); k++ {
		b := &z.blocks[k]
		z.n = append(z.n, z.n[k]+len(b.x))
		z.c1 = append(z.c1, z.c1[k].add(b.s1[len(b.x)]))
		z.c2 = append(z.c2, z.c2[k].add(b.s2[len(b.x)]))
	}
}

// insert adds v to the block at its place, which it splits in two halves
// when it grows past 2·blockCap sizes, and returns that block's index.
func (z *sizes) insert(v float64) int {
	bi := z.block(v)
	b := &z.blocks[bi]
	i := sort.Search(len(b.x), func(k int) bool { return b.x[k] > v })
	b.x = slices.Insert(b.x, i, v)
	b.sums(i)
	half := z.blockCap
	if half == 0 {
		half = 256
	}
	if len(b.x) > 2*half {
		hi := sizeBlock{x: slices.Clone(b.x[half:]), s1: []dd{{}}, s2: []dd{{}}}
		hi.sums(0)
		b.x, b.s1, b.s2 = b.x[:half], b.s1[:half+1], b.s2[:half+1]
		z.blocks = slices.Insert(z.blocks, bi+1, hi)
	}
	return bi
}

// below is how many sizes are at most p, and their Σx and Σx².
func (z *sizes) below(p float64) (int, dd, dd) {
	if len(z.blocks) == 0 {
		return 0, dd{}, dd{}
	}
	bi := z.block(p)
	b := &z.blocks[bi]
	i := sort.Search(len(b.x), func(k int) bool { return b.x[k] > p })
	return z.n[bi] + i, z.c1[bi].add(b.s1[i]), z.c2[bi].add(b.s2[i])
}

// total is how many sizes z holds, and their Σx and Σx².
func (z *sizes) total() (int, dd, dd) {
	if len(z.blocks) == 0 {
		return 0, dd{}, dd{}
	}
	last := len(z.blocks)
	return z.n[last], z.c1[last], z.c2[last]
}

// least and most are the smallest and the greatest size; z must not be
// empty.
func (z *sizes) least() float64 { return z.blocks[0].x[0] }
func (z *sizes) most() float64 {
	x := z.blocks[len(z.blocks)-1].x
	return x[len(x)-1]
}

// appendTo appends the sizes in ascending order to dst.
func (z *sizes) appendTo(dst []float64) []float64 {
	for _, b := range z.blocks {
		dst = append(dst, b.x...)
	}
	return dst
}

// dist is a partition's distribution of partial sizes: the current jobs'
// (cur, in any order) and, unless nil, the finished jobs'.
type dist struct {
	cur  []float64
	done *sizes
}

// count is how many sizes the distribution holds.
func (d dist) count() int {
	if d.done == nil {
		return len(d.cur)
	}
	return len(d.cur) + d.done.len()
}

// bounds are the least and the greatest size; d must not be empty.
func (d dist) bounds() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	if len(d.cur) > 0 {
		lo, hi = slices.Min(d.cur), slices.Max(d.cur)
	}
	if d.done != nil && d.done.len() > 0 {
		lo, hi = min(lo, d.done.least()), max(hi, d.done.most())
	}
	return lo, hi
}

// scv is SCV over the whole distribution.
func (d dist) scv() float64 {
	var s1, s2 dd
	if d.done != nil {
		_, s1, s2 = d.done.total()
	}
	for _, x := range d.cur {
		s1, s2 = s1.add(dd{x, 0}), s2.add(twoProd(x, x))
	}
	return scvOf(d.count(), s1, s2)
}

// f is Cutoff's f(p) = SCV(min(X, p)) − SCV(X − p | X > p).
func (d dist) f(p float64) float64 {
	n := d.count()
	var a1, a2, b1, b2 dd // moments of the sizes at most p, and above it
	k := 0                // how many are above p
	if d.done != nil {
		var m, all int
		var t1, t2 dd
		m, a1, a2 = d.done.below(p)
		all, t1, t2 = d.done.total()
		b1, b2 = t1.sub(a1), t2.sub(a2)
		k = all - m
	}
	for _, x := range d.cur {
		if x <= p {
			a1, a2 = a1.add(dd{x, 0}), a2.add(twoProd(x, x))
		} else {
			b1, b2 = b1.add(dd{x, 0}), b2.add(twoProd(x, x))
			k++
		}
	}
	kp := twoProd(float64(k), p)
	pp := twoProd(p, p)
	kpp := pp.mulF(float64(k))
	// L_p: the sizes at most p, and p for each of the k above it.
	l1, l2 := a1.add(kp), a2.add(kpp)
	// R_p: x − p for the k above p; Σ(x − p)² = Σx² − 2pΣx + kp².
	r1 := b1.sub(kp)
	r2 := b2.sub(b1.mulF(2 * p)).add(kpp)
	return scvOf(n, l1, l2) - scvOf(k, r1, r2)
}

// cutoffBounds bisects for the cutoff with Cutoff's midpoints and stopping
// rule, f from moments, but only as long as one of the sizes asked about
// lies in (lo, hi]: the bisection's later ends all lie in that interval, so
// a size above hi would lie above the cutoff the full bisection returns
// (its last hi), and a size at or below lo would not. So the sizes asked
// about that lie above the cutoff are exactly those above hi. ok is false
// where Cutoff's is. The distribution must hold two sizes or more, least
// and most being its bounds.
func (d dist) cutoffBounds(ask []float64, least, most float64) (lo, hi float64, ok bool) {
	if most == least {
		return 0, 0, false
	}
	lo, hi = 0, most // as Cutoff
	undecided := func() bool {
		for _, x := range ask {
			if x > lo && x <= hi {
				return true
			}
		}
		return false
	}
	for range 100 {
		if !undecided() {
			break
		}
		m := (lo + hi) / 2
		if d.f(m) < 0 {
			lo = m
		} else {
			hi = m
		}
		if hi-lo <= 1e-9*hi {
			break
		}
	}
	return lo, hi, true
}
