package sim

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// migrateByDefinition is DYNAMICTAGS as the policy's doc comment defines
// it, in exact arithmetic: SCV over every partial size compared with the
// limit, and Cutoff's bisection, each decision taken in floating point
// (two-pass sums) where that is clearly decided and in rationals (exactSCV,
// exactF) near the tie. It is the reference that migrate's moments and
// early stop must agree with.
func migrateByDefinition(t *Tyrex, s *State, p int) {
	limit := t.SCVLimit
	if limit == 0 {
		limit = 2
	}
	var xs []float64
	var js []int32
	for _, a := range t.queue[p] {
		if x := t.partial[p][a]; x > 0 || t.CountWaiting {
			xs = append(xs, x)
			js = append(js, a)
		}
	}
	if !t.CurrentOnly {
		xs = t.done[p].appendTo(xs)
	}
	if len(xs) < 2 || slices.Max(xs) == 0 {
		return
	}
	if v := SCV(xs); v < limit*(1-1e-9) || v <= limit*(1+1e-9) && exactSCV(xs).Cmp(new(big.Rat).SetFloat64(limit)) <= 0 {
		return
	}
	hi := slices.Max(xs)
	if hi == slices.Min(xs) {
		return
	}
	lo := 0.0
	for range 100 {
		m := (lo + hi) / 2
		neg := false
		if v := fByTwoPass(xs, m); math.Abs(v) > 1e-6 {
			neg = v < 0
		} else {
			neg = exactF(xs, m).Sign() < 0
		}
		if neg {
			lo = m
		} else {
			hi = m
		}
		if hi-lo <= 1e-9*hi {
			break
		}
	}
	for i, a := range js {
		if xs[i] > hi && !s.Finished(int(a)) {
			t.move(s, int(a))
		}
	}
}

// fByTwoPass is Cutoff's f(p) = SCV(min(X, p)) − SCV(X − p | X > p).
func fByTwoPass(xs []float64, p float64) float64 {
	var l, r []float64
	for _, x := range xs {
		l = append(l, min(x, p))
		if x > p {
			r = append(r, x-p)
		}
	}
	return SCV(l) - SCV(r)
}

// exactSCV is SCV(xs) in rationals.
func exactSCV(xs []float64) *big.Rat {
	rs := make([]*big.Rat, len(xs))
	for i, x := range xs {
		rs[i] = new(big.Rat).SetFloat64(x)
	}
	return scvOfRats(rs)
}

// scvOfRats is n·Σx²/(Σx)² − 1 over rs, 0 for a zero sum.
func scvOfRats(rs []*big.Rat) *big.Rat {
	s1, s2 := new(big.Rat), new(big.Rat)
	for _, r := range rs {
		s1.Add(s1, r)
		s2.Add(s2, new(big.Rat).Mul(r, r))
	}
	if s1.Sign() == 0 {
		return s1
	}
	v := new(big.Rat).Mul(s2, big.NewRat(int64(len(rs)), 1))
	v.Quo(v, new(big.Rat).Mul(s1, s1))
	return v.Sub(v, big.NewRat(1, 1))
}

// exactF is fByTwoPass in rationals.
func exactF(xs []float64, p float64) *big.Rat {
	var l []float64
	var rs []*big.Rat
	pr := new(big.Rat).SetFloat64(p)
	for _, x := range xs {
		l = append(l, min(x, p))
		if x > p {
			rs = append(rs, new(big.Rat).Sub(new(big.Rat).SetFloat64(x), pr))
		}
	}
	return new(big.Rat).Sub(exactSCV(l), scvOfRats(rs))
}

// heavyTailed is a Tyrex workload: n jobs arriving about every gap seconds
// with Pareto-like map counts (most 1–5 maps, a few hundreds) of 1–20 s, on
// a cluster of a few nodes, so that partitions build long histories and
// big jobs migrate.
func heavyTailed(rng *rand.Rand, n int, gap float64) *Workload {
	w := &Workload{Cluster: Cluster{Nodes: 3 + rng.IntN(8), MapSlots: 1 + rng.IntN(3), ReduceSlots: 1}}
	at := 0.0
	for j := range n {
		maps := min(300, int(math.Ceil(math.Pow(1-rng.Float64(), -1/1.1))))
		job := Job{Name: fmt.Sprint(j), Arrival: math.Round(at), Maps: Tasks{Count: maps, Mean: float64(1 + rng.IntN(20))}}
		if rng.IntN(3) == 0 {
			job.Reduces = Tasks{Count: 1 + rng.IntN(3), Mean: float64(1 + rng.IntN(10))}
		}
		w.Jobs = append(w.Jobs, job)
		at += rng.ExpFloat64() * gap
	}
	return w
}

// TestTyrexDynamicMatchesDefinition runs the dynamic policy, in each of its
// readings and with two and three partitions, on random heavy-tailed
// workloads, once as built and once by definition: the results (every
// job's times, every move) must be identical.
func TestTyrexDynamicMatchesDefinition(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(16, 4))
	moves := 0
	for i := range 60 {
		w := heavyTailed(rng, 30+rng.IntN(120), 2+rng.Float64()*10)
		set := &Settings{Seed: uint64(i)}
		caps := []float64{0.3, 0.7}
		if i%3 == 2 {
			caps = []float64{0.2, 0.3, 0.5}
		}
		for _, v := range []struct{ cw, cur bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			// Blocks of 1 to 8 finished sizes: dozens of blocks per partition.
			built := &Tyrex{Capacities: caps, Dynamic: true, CountWaiting: v.cw, CurrentOnly: v.cur, blockCap: 1 + i%4}
			def := &Tyrex{Capacities: caps, Dynamic: true, CountWaiting: v.cw, CurrentOnly: v.cur, migrateFn: migrateByDefinition}
			a, b := mustRun(t, w, built, set), mustRun(t, w, def, set)
			if !reflect.DeepEqual(a, b) || built.Moves() != def.Moves() || !slices.Equal(built.FinishedIn(), def.FinishedIn()) {
				t.Fatalf("case %d (%d jobs, waiting %v, current only %v): %d moves, finished in %v; by definition %d, %v",
					i, len(w.Jobs), v.cw, v.cur, built.Moves(), built.FinishedIn(), def.Moves(), def.FinishedIn())
			}
			moves += built.Moves()
		}
	}
	if moves < 100 {
		t.Errorf("only %d moves in all: the migrations went untested", moves)
	}
	t.Logf("%d moves, all as by definition", moves)
}

// randomSizes draws n sizes of one of several shapes: spread over decades,
// nearly equal, repeated, or with zeros.
func randomSizes(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	shape := rng.IntN(4)
	for i := range xs {
		switch shape {
		case 0:
			xs[i] = math.Exp(rng.Float64() * 12)
		case 1:
			xs[i] = 1e6 * (1 + 1e-9*rng.Float64())
		case 2:
			xs[i] = float64(1 + rng.IntN(4))
		default:
			xs[i] = float64(rng.IntN(3)) * rng.Float64() * 100
		}
	}
	return xs
}

// TestDistMomentsMatchTwoPass: the SCV and the cutoff function from
// double-double moments agree with the two-pass ones over random splits of
// random sizes into finished (sizes) and current.
func TestDistMomentsMatchTwoPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 16))
	for i := range 2000 {
		all := randomSizes(rng, 2+rng.IntN(200))
		split := rng.IntN(len(all) + 1)
		z := sizes{blockCap: 1 + rng.IntN(8)}
		for _, x := range all[split:] {
			z.add(x)
		}
		if got := z.appendTo(nil); !slices.IsSorted(got) || len(got) != len(all)-split || z.len() != len(got) {
			t.Fatalf("case %d: sizes %v not sorted or lost some", i, got)
		}
		d := dist{cur: all[:split], done: &z}
		if got, want := d.scv(), SCV(all); math.Abs(got-want) > 1e-12*max(1, want) {
			t.Fatalf("case %d: SCV %v from moments, %v two-pass", i, got, want)
		}
		hi := slices.Max(all)
		for range 5 {
			p := rng.Float64() * hi
			var l, r []float64
			for _, x := range all {
				l = append(l, min(x, p))
				if x > p {
					r = append(r, x-p)
				}
			}
			// Near p = x the moments are the less accurate (x − p is exact
			// in the two-pass sums, not in Σx² − 2pΣx + kp²): hence 1e-9.
			if got, want := d.f(p), SCV(l)-SCV(r); math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
				t.Fatalf("case %d: f(%v) %v from moments, %v two-pass", i, p, got, want)
			}
		}
	}
}

// TestCutoffBoundsAgreesWithCutoff: every size asked about lies on the side
// of cutoffBounds' hi that it lies on of Cutoff's cutoff.
func TestCutoffBoundsAgreesWithCutoff(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 16))
	stopped := 0
	for i := range 2000 {
		all := randomSizes(rng, 2+rng.IntN(100))
		split := 1 + rng.IntN(len(all))
		var z sizes
		for _, x := range all[split:] {
			z.add(x)
		}
		d := dist{cur: all[:split], done: &z}
		c, ok := Cutoff(all)
		least, most := d.bounds()
		lo, hi, ok2 := d.cutoffBounds(d.cur, least, most)
		if ok != ok2 {
			t.Fatalf("case %d: Cutoff ok %v, cutoffBounds ok %v", i, ok, ok2)
		}
		if !ok {
			continue
		}
		if hi-lo > 1e-9*hi {
			stopped++
		}
		for _, x := range d.cur {
			if (x > c) != (x > hi) {
				t.Fatalf("case %d: size %v against cutoff %v, but bounds (%v, %v]", i, x, c, lo, hi)
			}
		}
	}
	if stopped == 0 {
		t.Error("the bisection never stopped early")
	}
}

// TestSizesPrefixSums: after random inserts into blocks of several sizes,
// the sizes are in order, and the count, Σx and Σx² at or below any p are
// those of the sorted sizes, to double-double accuracy.
func TestSizesPrefixSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 16))
	for _, half := range []int{1, 3, 16, 0} {
		z := sizes{blockCap: half}
		var ref []float64
		for i := range 700 {
			x := math.Exp(rng.Float64() * 20)
			if i%5 == 0 && len(ref) > 0 {
				x = ref[rng.IntN(len(ref))] // repeats
			}
			z.add(x)
			ref = append(ref, x)
		}
		slices.Sort(ref)
		if got := z.appendTo(nil); !slices.Equal(got, ref) {
			t.Fatalf("half block %d: sizes not kept in order", half)
		}
		if half > 0 && len(z.blocks) < 700/(2*half) {
			t.Fatalf("half block %d: %d blocks for 700 sizes", half, len(z.blocks))
		}
		// Every size (equal sizes straddle blocks), between sizes, 0 and ∞.
		for i, p := range append(append([]float64{0, math.Inf(1)}, ref...), rng.Float64()*ref[len(ref)-1]) {
			if i > 2 && i%2 == 0 && i < len(ref)+2 {
				p = (p + ref[i-3]) / 2
			}
			n, s1, s2 := z.below(p)
			var m int
			var a, b float64
			for _, x := range ref {
				if x <= p {
					m++
					a += x
					b += x * x
				}
			}
			if n != m || math.Abs(s1.hi+s1.lo-a) > 1e-13*a || math.Abs(s2.hi+s2.lo-b) > 1e-13*b {
				t.Fatalf("half block %d, p %v: %d sizes, Σx %v, Σx² %v; counted %d, %v, %v", half, p, n, s1.hi, s2.hi, m, a, b)
			}
		}
	}
}

// TestDDAgainstBig: double-double sums and products agree with 200-bit
// arithmetic to about 2⁻¹⁰⁰ of the result, over operands of mixed
// magnitudes and signs.
func TestDDAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 16))
	draw := func() dd {
		hi := math.Ldexp(rng.Float64()+0.5, rng.IntN(80)-40)
		if rng.IntN(2) == 0 {
			hi = -hi
		}
		return twoSum(hi, hi*math.Ldexp(rng.Float64()-0.5, -53))
	}
	exact := func(x dd) *big.Float {
		v := new(big.Float).SetPrec(200).SetFloat64(x.hi)
		return v.Add(v, new(big.Float).SetPrec(200).SetFloat64(x.lo))
	}
	check := func(op string, got dd, want *big.Float) {
		t.Helper()
		diff := new(big.Float).SetPrec(200).Sub(exact(got), want)
		tol := new(big.Float).SetPrec(200).Abs(want)
		tol.SetMantExp(tol, -100)
		if diff.Abs(diff).Cmp(tol) > 0 {
			t.Fatalf("%s: %v + %v, exactly %v", op, got.hi, got.lo, want)
		}
	}
	for range 20000 {
		x, y := draw(), draw()
		f := y.hi
		check("add", x.add(y), new(big.Float).SetPrec(200).Add(exact(x), exact(y)))
		check("sub", x.sub(y), new(big.Float).SetPrec(200).Sub(exact(x), exact(y)))
		check("mulF", x.mulF(f), new(big.Float).SetPrec(200).Mul(exact(x), exact(dd{f, 0})))
		check("mul", x.mul(y), new(big.Float).SetPrec(200).Mul(exact(x), exact(y)))
		check("twoProd", twoProd(x.hi, f), new(big.Float).SetPrec(200).Mul(exact(dd{x.hi, 0}), exact(dd{f, 0})))
	}
}

// BenchmarkSizes: 100,000 finished jobs' sizes inserted one by one (a
// multi-day trace's partition), then the cutoff function evaluated over
// them beside 20 current jobs, as at a task end.
func BenchmarkSizes(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 16))
	xs := make([]float64, 100_000)
	for i := range xs {
		xs[i] = math.Exp(rng.Float64() * 12)
	}
	b.Run("add-100k", func(b *testing.B) {
		for b.Loop() {
			var z sizes
			for _, x := range xs {
				z.add(x)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/add")
	})
	b.Run("f", func(b *testing.B) {
		var z sizes
		for _, x := range xs {
			z.add(x)
		}
		d := dist{cur: xs[:20], done: &z}
		ps := xs[20:1044] // 1,024 points over the sizes' range
		i := 0
		for b.Loop() {
			d.f(ps[i&1023])
			i++
		}
	})
}
