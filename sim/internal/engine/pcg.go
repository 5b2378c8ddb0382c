package engine

import "math/bits"

// pcg is the generator block replicas are drawn from: a 128-bit linear
// congruential state with the DXSM output (O'Neill's PCG family, pcg64_dxsm
// with the full 128-bit multiplier), which is the generator math/rand/v2
// calls rand.PCG; it draws exactly what rand.PCG draws from the same seeds
// (TestPCGMatchesRand), so runs are as they were when the replicas came
// from rand.PCG. It is the simulator's own so that its step inlines: a
// chunk of replicas is one loop with the state in registers (drawChunk3),
// where through rand.PCG every bounded draw was a call (intN, which
// rand.PCG's step made too big to inline) that loaded and stored the state.
type pcg struct{ hi, lo uint64 }

// newPCG is the generator rand.NewPCG(seed1, seed2) is.
func newPCG(seed1, seed2 uint64) pcg { return pcg{hi: seed1, lo: seed2} }

// The LCG's multiplier and increment, and DXSM's 64-bit multiplier: PCG's
// published constants.
const (
	pcgMulHi, pcgMulLo = 2549297995355413924, 4865540595714422341
	pcgIncHi, pcgIncLo = 6364136223846793005, 1442695040888963407
	pcgDXSM            = 0xda942042e4dd58b5
)

// next is the generator one step on, and that step's output. By value, so
// that a loop's generator can live in registers.
func (g pcg) next() (pcg, uint64) {
	// state = state·mul + inc, modulo 2¹²⁸
	hi, lo := bits.Mul64(g.lo, pcgMulLo)
	hi += g.hi*pcgMulLo + g.lo*pcgMulHi
	lo, carry := bits.Add64(lo, pcgIncLo, 0)
	hi += pcgIncHi + carry
	// DXSM: a double xorshift and multiply of the high half, times the low
	// half made odd.
	x := hi ^ hi>>32
	x *= pcgDXSM
	x ^= x >> 48
	return pcg{hi, lo}, x * (lo | 1)
}

// intN draws from [0, n), n > 0, what rand.New(&g).IntN(n) draws, g the
// rand.PCG p is, on a 64-bit platform: Lemire's method, the high word of a
// 64×64-bit product, drawing again in the rare case that would bias it,
// and for a power of two the low bits. (On a 32-bit platform rand.Rand
// draws another way; this draws the same everywhere.)
func (p *pcg) intN(n int) int {
	if n <= 0 {
		panic("sim: intN of a bound that is not positive")
	}
	u := uint64(n)
	g, x := p.next()
	hi, lo := scale(x, u)
	if lo < u {
		g, hi = g.retry(u, hi, lo)
	}
	*p = g
	return int(hi)
}

// scale maps x, a draw, to [0, u): for a power of two its low bits (and u
// for lo, which needs no retry), otherwise the high and low words of x·u,
// the high one the result unless lo < u, when retry must decide. Split
// from intN so that a loop of draws inlines the draw and this, and calls
// only in the rare retry.
func scale(x, u uint64) (hi, lo uint64) {
	if u&(u-1) == 0 {
		return x & (u - 1), u
	}
	return bits.Mul64(x, u)
}

// retry is Lemire's rejection step: draw again while the low word falls
// in the biased part, below 2⁶⁴ mod u. It returns the generator after its
// draws and the result.
func (g pcg) retry(u, hi, lo uint64) (pcg, uint64) {
	for thresh := -u % u; lo < thresh; {
		var x uint64
		g, x = g.next()
		hi, lo = bits.Mul64(x, u)
	}
	return g, hi
}

// derive returns a seed for one component, so components draw from
// independent streams of the one master seed (splitmix64 finaliser).
func derive(seed uint64, component uint64) uint64 {
	z := seed + component*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
