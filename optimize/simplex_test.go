package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/packer-sched/packer/model"
)

// randomCoverLP is a covering LP over m jobs with n random columns (each
// of 1–4 jobs, cost 1–10), solved.
func randomCoverLP(rng *rand.Rand, m, n int) *coverLP {
	single := make([]float64, m)
	for j := range single {
		single[j] = 2 + 8*rng.Float64()
	}
	lp := newCoverLP(single)
	for range n {
		jobs := rng.Perm(m)[:1+rng.IntN(min(4, m))]
		lp.add(jobs, 1+9*rng.Float64())
	}
	return lp
}

// TestRefactorInvertsTheBasis: after solves that pivot many times, refactor
// leaves B⁻¹·B = I, the LP's basic values B⁻¹·1 and the perturbed ones
// B⁻¹·rhs (clamped at 0), and solving on from it gives
// the value a from-scratch solve of the same columns gives. Spoiling B⁻¹
// before refactor checks that it rebuilds rather than keeps.
func TestRefactorInvertsTheBasis(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for trial := range 30 {
		m := 3 + rng.IntN(30)
		lp := randomCoverLP(rng, m, 10*m)
		lp.solve(50*m, nil)
		for k := range lp.binv {
			lp.binv[k][rng.IntN(m)] += 0.5
			lp.x1[k] += 0.5
			lp.xb[k] += 0.5
		}
		lp.refactor(nil)
		for k, b := range lp.basis {
			col := make([]float64, m)
			if b < 0 {
				col[-1-b] = -1
			} else {
				for _, j := range lp.cols[b] {
					col[j] = 1
				}
			}
			for r := range m { // (B⁻¹·B)[r][k]
				v := 0.0
				for j := range m {
					v += lp.binv[r][j] * col[j]
				}
				want := 0.0
				if r == k {
					want = 1
				}
				if math.Abs(v-want) > 1e-9 {
					t.Fatalf("trial %d: (B⁻¹B)[%d][%d] = %v, want %v", trial, r, k, v, want)
				}
			}
		}
		for r, row := range lp.binv {
			if own, pert := floats.Sum(row), max(floats.Dot(row, lp.rhs), 0); math.Abs(lp.x1[r]-own) > 1e-12 || math.Abs(lp.xb[r]-pert) > 1e-12 {
				t.Fatalf("trial %d, row %d: values %v and %v (perturbed), want %v and %v", trial, r, lp.x1[r], lp.xb[r], own, pert)
			}
		}
		fresh := newCoverLP(lp.cost[:m])
		for c := m; c < len(lp.cols); c++ {
			fresh.add(lp.cols[c], lp.cost[c])
		}
		got, want := lp.solve(50*m, nil), fresh.solve(50*m, nil)
		if math.Abs(got-want) > 1e-7*want {
			t.Fatalf("trial %d: value %v after refactor, %v from scratch", trial, got, want)
		}
	}
}

// TestColumnsDoNotStall: two 30-job workloads on which column generation,
// before the basis was refactored and Bland's rule guarded degenerate
// pivots, sat at one LP value while round-off duals kept pricing out
// columns, until its round limit (1,000 rounds, 40 and 265 s). Now it ends
// within the tolerance well inside 300 rounds.
func TestColumnsDoNotStall(t *testing.T) {
	for _, seed := range []uint64{3, 10} {
		p, err := model.NewProblem(RandomWorkload(seed, 30), model.PaperCluster())
		if err != nil {
			t.Fatal(err)
		}
		pr, err := PairSchedule(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Columns(p, []model.Schedule{pr.Schedule}, ColumnsOptions{Rounds: 300})
		if err != nil {
			t.Fatal(err)
		}
		if res.Ended == EndedRounds {
			t.Errorf("random-m30-seed%d: column generation ran its %d rounds without ending (LP %.1f, bound %.1f)", seed, res.Rounds, res.LPValue, res.LowerBound)
		}
	}
}

// TestRefactorStops: a stop that says yes at its first question (after 8
// columns of the elimination) leaves B⁻¹ and the pivot count as they were;
// one that never does asks once every 8 columns and rebuilds B⁻¹.
func TestRefactorStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 3))
	m := 40
	lp := randomCoverLP(rng, m, 10*m)
	lp.solve(50*m, nil)
	lp.binv[0][1] += 0.5 // spoilt: a refactorisation would mend it
	before := lp.binv[0][1]
	pivots := lp.pivots
	asked := 0
	lp.refactor(func() bool { asked++; return true })
	if asked != 1 || lp.binv[0][1] != before || lp.pivots != pivots {
		t.Errorf("stopped refactor: asked %d times, B⁻¹[0][1] %v (was %v), pivots %d (were %d)", asked, lp.binv[0][1], before, lp.pivots, pivots)
	}
	asked = 0
	lp.refactor(func() bool { asked++; return false })
	if asked != m/8 || lp.binv[0][1] == before || lp.pivots != 0 {
		t.Errorf("unstopped refactor: asked %d times (want %d), B⁻¹[0][1] %v, pivots %d", asked, m/8, lp.binv[0][1], lp.pivots)
	}
}

// TestDevexAgainstDantzig: Devex only chooses which variable enters, so on
// the LPs column generation builds (100–160 jobs on 9 hosts, 20 rounds), solved
// afresh from the singletons, it reaches the optimum Dantzig's rule
// reaches, in fewer pivots overall (were its weights never updated, every
// choice would be Dantzig's, and the pivots the same).
func TestDevexAgainstDantzig(t *testing.T) {
	var pivots [2]int
	for inst := range 4 {
		m := 100 + 20*inst
		p, err := model.NewProblem(RandomWorkload(uint64(90+inst), m), model.PaperCluster())
		if err != nil {
			t.Fatal(err)
		}
		cg := newColumnGen(p, 0, 0)
		priceRounds(cg, 20, 1000*m)
		var z [2]float64
		for rule := range 2 {
			lpm := freshLP(cg)
			lpm.dantzig = rule == 1
			z[rule] = lpm.solve(1000*m, nil)
			if !lpm.optimal {
				t.Fatalf("workload %d, rule %d: not optimal after %d pivots", inst, rule, 1000*m)
			}
			pivots[rule] += lpm.work
		}
		if math.Abs(z[0]-z[1]) > 1e-9*(1+z[1]) {
			t.Fatalf("workload %d: Devex ends at %v, Dantzig's rule at %v", inst, z[0], z[1])
		}
	}
	if pivots[0] >= pivots[1] {
		t.Errorf("Devex made %d pivots, Dantzig's rule %d: want fewer", pivots[0], pivots[1])
	}
	t.Logf("pivots: Devex %d, Dantzig's rule %d", pivots[0], pivots[1])
}

// TestDevexWeights checks one Devex update against Forrest and Goldfarb's
// formulas computed from the B⁻¹ before the pivot: every variable's weight
// becomes max(w_j, (α_rj/α_rq)²·w_q), α_rj being B⁻¹'s old row r times
// its column (a column's jobs, −e_j for a surplus, e_i − e_j for a
// transfer), and the leaving variable's max(w_q/α_rq², 1). The LPs are
// random, with transfers, a few pivots in, and the weights random.
func TestDevexWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 10))
	checked := 0
	for inst := range 200 {
		lpm, cols, costs := randomMaster(rng, 4+rng.IntN(20))
		for k := range cols {
			lpm.add(cols[k], costs[k])
		}
		lpm.solve(rng.IntN(6), nil)
		for _, w := range [][]float64{lpm.wCol, lpm.wSur, lpm.wTr} {
			for i := range w {
				w[i] = 1 + 9*rng.Float64()
			}
		}
		// Any variable with a pivot element will do: the formulas do not
		// depend on the step being feasible.
		enter := rng.IntN(len(lpm.cols)+lpm.m+len(lpm.trans)) - lpm.m - len(lpm.trans)
		if enter < 0 {
			enter = -1 - (-1-enter)%(lpm.m+len(lpm.trans))
		}
		if slices.Contains(lpm.basis, enter) {
			continue
		}
		d := columnPlain(lpm, enter)
		r := 0
		for k := range d {
			if math.Abs(d[k]) > math.Abs(d[r]) {
				r = k
			}
		}
		if math.Abs(d[r]) < 1e-3 {
			continue
		}
		old := slices.Clone(lpm.binv[r])
		wCol, wSur, wTr := slices.Clone(lpm.wCol), slices.Clone(lpm.wSur), slices.Clone(lpm.wTr)
		wq, left := lpm.weight(enter), lpm.basis[r]
		lpm.pivot(r, enter, 0, d)
		y := make([]float64, lpm.m)
		for j := range y {
			y[j] = 10 * rng.Float64()
		}
		if !lpm.devex(lpm.row(r), enter, left, d[r], y) {
			t.Fatalf("instance %d: devex reset its weights at %v", inst, wq)
		}
		for c := range lpm.cols {
			if got, want := lpm.rcNext[c], lpm.reducedCostOf(c, y); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("instance %d: column %d's reduced cost kept as %v, summed %v", inst, c, got, want)
			}
		}
		want := func(w, alpha float64) float64 { return max(w, alpha*alpha/(d[r]*d[r])*wq) }
		near := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-9*want {
				t.Fatalf("instance %d: %s weight %v, want %v", inst, what, got, want)
			}
		}
		leaving := max(wq/(d[r]*d[r]), 1)
		for c, jobs := range lpm.cols {
			var a float64
			for _, j := range jobs {
				a += old[j]
			}
			if c != left {
				near(fmt.Sprintf("column %d", c), lpm.wCol[c], want(wCol[c], a))
			}
		}
		for j := range lpm.m {
			if -1-j != left {
				near(fmt.Sprintf("surplus %d", j), lpm.wSur[j], want(wSur[j], -old[j]))
			}
		}
		for k, tr := range lpm.trans {
			if -1-lpm.m-k != left {
				near(fmt.Sprintf("transfer %d", k), lpm.wTr[k], want(wTr[k], old[tr[0]]-old[tr[1]]))
			}
		}
		near("leaving", lpm.weight(left), leaving)
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d of 200 updates checked", checked)
	}
}

// TestRatioTestRefusesRoundOff: hand-worked ratio tests. An element of
// B⁻¹a below pivotRel times the largest never leaves, even at the least
// step (the pivot on 1.05e-9 beside 1.8e3 that once made the basis
// singular); of tied rows the largest element leaves, under Bland's rule
// the least order; and with no safe element, none leaves.
func TestRatioTestRefusesRoundOff(t *testing.T) {
	lp := newCoverLP([]float64{1, 1, 1})
	lp.add([]int{0}, 1)
	lp.basis[0] = 3 // row 0's basic variable is column 3: the last in order
	cases := []struct {
		name  string
		xb, d []float64
		bland bool
		r     int
		theta float64
	}{
		{"round-off never leaves", []float64{0, 0.5, 2}, []float64{1e-8, 1, 0}, false, 1, 0.5},
		{"round-off never leaves under Bland", []float64{0, 0.5, 2}, []float64{1e-8, 1, 0}, true, 1, 0.5},
		{"relative to the largest", []float64{0, 3, 2}, []float64{1e-5, 1e3, 0}, false, 1, 0.003},
		{"least step", []float64{2e-10, 1e-13, 1}, []float64{1, 0.001, 0.25}, false, 1, 1e-10},
		{"tie: largest element", []float64{0, 0, 0.5}, []float64{0.5, 1, 1}, false, 1, 0},
		{"tie under Bland: least order", []float64{0, 0, 0.5}, []float64{1, 0.5, 1}, true, 1, 0},
		{"clear least step", []float64{0.9, 0.2, 0.5}, []float64{1, 0.5, 2}, false, 2, 0.25},
		{"nothing safe", []float64{0, 1, 1}, []float64{1e-10, -1, 0}, false, -1, math.Inf(1)},
	}
	for _, c := range cases {
		copy(lp.xb, c.xb)
		r, theta := lp.ratioTest(c.d, largestAbs(c.d), c.bland)
		if r != c.r || math.Abs(theta-c.theta) > 1e-12*(1+math.Abs(c.theta)) && !(math.IsInf(theta, 1) && math.IsInf(c.theta, 1)) {
			t.Errorf("%s: row %d, step %g; want row %d, step %g", c.name, r, theta, c.r, c.theta)
		}
	}
}

// TestSingularBasisRestarts: a basis that holds one column twice has no
// inverse; refactor drops it for the singletons (B = I, λ = 1), and solving
// on from there reaches the value a fresh LP over the same columns reaches.
func TestSingularBasisRestarts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for trial := range 20 {
		m := 3 + rng.IntN(20)
		lp := randomCoverLP(rng, m, 8*m)
		fresh := newCoverLP(lp.cost[:m])
		for c := m; c < len(lp.cols); c++ {
			fresh.add(lp.cols[c], lp.cost[c])
		}
		want := fresh.solve(100*m, nil)
		lp.solve(100*m, nil)
		lp.basis[0], lp.basis[1] = m, m // one column twice: singular
		if !lp.refactor(nil) {
			t.Fatalf("trial %d: refactor of a singular basis kept the old B⁻¹", trial)
		}
		for j := range m {
			if lp.basis[j] != j || lp.x1[j] != 1 || lp.xb[j] != lp.rhs[j] || lp.binv[j][j] != 1 || slices.ContainsFunc(lp.binv[j], func(v float64) bool { return v != 0 && v != 1 }) {
				t.Fatalf("trial %d: row %d after the restart: basis %d, λ %g (perturbed %g), B⁻¹ row %v", trial, j, lp.basis[j], lp.x1[j], lp.xb[j], lp.binv[j])
			}
		}
		if got := lp.solve(100*m, nil); math.Abs(got-want) > 1e-9*want || !lp.optimal {
			t.Errorf("trial %d: value %g (optimal %v) after the restart, %g fresh", trial, got, lp.optimal, want)
		}
	}
}

// TestRejectedPivotSitsOut: when B⁻¹ is so spoilt that an entering
// column's only pivot element is round-off, the column sits out and the
// solve goes on with another: here column {1}, which replaces job 1's
// singleton; the solve then does not claim the LP optimal.
func TestRejectedPivotSitsOut(t *testing.T) {
	lp := newCoverLP([]float64{1e15, 10})
	lp.add([]int{0}, 0.5) // B⁻¹a = (1e-12, 0): rejected
	lp.add([]int{1}, 0.5) // B⁻¹a = (0, 1): safe
	lp.binv[0][0], lp.xb[0], lp.x1[0] = 1e-12, 1e-9, 1e-9
	lp.solve(10, nil)
	if lp.optimal || lp.work != 1 || lp.basis[1] != 3 || lp.basis[0] != 0 {
		t.Errorf("optimal %v, pivots %d, basis %v; want not optimal, 1 pivot, basis [0 3]", lp.optimal, lp.work, lp.basis)
	}
}

// TestSmallPivotRefactorsFirst: B⁻¹ spoilt as if by updates (one pivot
// since the last refactorisation, too few for solve to refactor as it
// starts) offers a pivot of 1e-6 beside 1, above pivotRel but below
// pivotCheck. solve computes B⁻¹ afresh before it pivots, so it takes the
// pivots an unspoilt twin takes, to the same basis and the LP's optimum:
// the column {0, 1} at cost 1 covers both jobs, six singletons at 10 the
// rest. (Pivoting on the 1e-6 costs an extra pivot here; at 1,000 jobs such
// pivots had made the basis singular.)
func TestSmallPivotRefactorsFirst(t *testing.T) {
	build := func() *coverLP {
		lp := newCoverLP([]float64{10, 10, 10, 10, 10, 10, 10, 10})
		lp.add([]int{0, 1}, 1)
		return lp
	}
	clean, spoilt := build(), build()
	clean.solve(20, nil)
	spoilt.binv[0][0], spoilt.binv[0][1], spoilt.xb[0], spoilt.x1[0] = 0.5+1e-6, -0.5, 1e-9, 1e-9
	spoilt.pivots = 1
	got := spoilt.solve(20, nil)
	if math.Abs(got-61) > 1e-9 || !spoilt.optimal || spoilt.work != clean.work || !slices.Equal(spoilt.basis, clean.basis) {
		t.Errorf("spoilt: value %g (optimal %v), %d pivots, basis %v; unspoilt: %d pivots, basis %v; want 61 and the same pivots",
			got, spoilt.optimal, spoilt.work, spoilt.basis, clean.work, clean.basis)
	}
}

// TestPerturbationShortensSolves solves the master LPs column generation
// builds (20 rounds, 150 jobs on 50 hosts) from the singletons twice: with
// the perturbed right-hand side and with the LP's own (every row 1). Both
// must end at the same value, the value their duals prove. The perturbed
// solves must take fewer pivots, and a tenth at most of the steps of zero
// (in the values the pivots follow) that send a solve to Bland's rule.
func TestPerturbationShortensSolves(t *testing.T) {
	var stalls, pivots [2]int
	for inst := range 3 {
		cl := model.PaperCluster()
		cl.Hosts = 50
		p, err := model.NewProblem(RandomWorkload(uint64(40+inst), 150), cl)
		if err != nil {
			t.Fatal(err)
		}
		cg := newColumnGen(p, 0, 0)
		cg.workers = 1
		priceRounds(cg, 20, 1000*len(p.Jobs))
		var z [2]float64
		for plain := range 2 {
			lpm := freshLP(cg)
			if plain == 1 {
				for j := range lpm.rhs {
					lpm.rhs[j] = 1
				}
				lpm.restart()
			}
			z[plain] = lpm.solve(1000*len(p.Jobs), nil)
			if !lpm.optimal {
				t.Fatalf("workload %d, plain %d: not optimal", inst, plain)
			}
			if y := floats.Sum(lpm.duals()); math.Abs(y-z[plain]) > 1e-9*z[plain] {
				t.Errorf("workload %d, plain %d: value %v, but the duals sum to %v", inst, plain, z[plain], y)
			}
			stalls[plain] += lpm.stalls
			pivots[plain] += lpm.work
		}
		if math.Abs(z[0]-z[1]) > 1e-9*z[1] {
			t.Errorf("workload %d: perturbed LP ends at %v, the LP itself at %v", inst, z[0], z[1])
		}
	}
	t.Logf("pivots: perturbed %d (%d steps of zero), plain %d (%d)", pivots[0], stalls[0], pivots[1], stalls[1])
	if pivots[0] >= pivots[1] || stalls[1] < 100 || 10*stalls[0] > stalls[1] {
		t.Errorf("pivots: perturbed %d (%d steps of zero), plain %d (%d): want fewer, and a tenth of the steps of zero at most", pivots[0], stalls[0], pivots[1], stalls[1])
	}
}

// TestPrimalFallsBack (values set by hand): where the LP's own basic
// solution B⁻¹·1 has a value below 0 past round-off (a basis optimal for
// the perturbed LP need not be feasible for the LP itself), objective and
// values report the perturbed solution, and agree with each other; a value
// below 0 by round-off keeps the LP's own, λ read as 0.
func TestPrimalFallsBack(t *testing.T) {
	lp := newCoverLP([]float64{4, 5})
	lp.xb[0], lp.x1[0] = 0.25, 0.5
	if z := lp.objective(); z != 4*0.5+5*1 {
		t.Errorf("feasible own solution: value %v, want %v", z, 4*0.5+5*1)
	}
	lp.x1[0] = -1e-9
	if z, v := lp.objective(), lp.values(); math.Abs(z-(4*-1e-9+5)) > 1e-15 || v[0] != 0 || v[1] != 1 {
		t.Errorf("own solution below 0 by round-off: value %v, λ %v; want %v and [0 1]", z, v, 4*-1e-9+5)
	}
	lp.x1[0] = -1e-3
	z, v := lp.objective(), lp.values()
	want := 4*0.25 + 5*lp.xb[1]
	if math.Abs(z-want) > 1e-12 || v[0] != 0.25 || v[1] != lp.xb[1] {
		t.Errorf("own solution below 0: value %v, λ %v; want %v and the perturbed λ [0.25 %v]", z, v, want, lp.xb[1])
	}
}

// TestStoppedRefactorEndsSolve: a solve whose first pivot is doubtful
// refactors first; a stop that says yes at its first question ends that
// refactorisation, and with it the solve: no pivot, not optimal, stop asked
// once (before, the solve asked again and again until its own check).
func TestStoppedRefactorEndsSolve(t *testing.T) {
	lp := newCoverLP([]float64{10, 10, 10, 10, 10, 10, 10, 10})
	lp.add([]int{0, 1}, 1)
	lp.binv[0][0], lp.binv[0][1], lp.xb[0], lp.x1[0] = 0.5+1e-6, -0.5, 1e-9, 1e-9
	lp.pivots = 1
	asked := 0
	lp.solve(20, func() bool { asked++; return true })
	if asked != 1 || lp.work != 0 || lp.optimal {
		t.Errorf("stop asked %d times, %d pivots, optimal %v; want 1, 0, false", asked, lp.work, lp.optimal)
	}
}

// TestPivotErrorHandWorked: on B = I, a row of B⁻¹ spoilt by s in column j
// has r̃·B − e_r = s·e_j, so the error of d[r] is |s·d_j|; an exact row
// has none, whatever d.
func TestPivotErrorHandWorked(t *testing.T) {
	lp := newCoverLP([]float64{4, 5, 6})
	d := []float64{0.5, 2, -1}
	if e := lp.pivotError(0, d); e != 0 {
		t.Errorf("exact B⁻¹: error %g, want 0", e)
	}
	lp.binv[0][1] = 1e-3
	if e := lp.pivotError(0, d); math.Abs(e-2e-3) > 1e-15 {
		t.Errorf("row 0 spoilt by 1e-3 in column 1: error %g, want 2e-3", e)
	}
	lp.binv[0][1], lp.binv[2][2] = 0, 1-1e-4
	if e := lp.pivotError(2, d); math.Abs(e-1e-4) > 1e-15 {
		t.Errorf("row 2's own element spoilt by 1e-4: error %g, want 1e-4", e)
	}
}

// TestPivotErrorAllKinds: on a basis of a two-job column, a surplus, a
// transfer and a singleton (B below, by rows), B⁻¹ afresh gives no error in
// any row; row 1 spoilt by s in column j has ε = s·(row j of B), so the
// error is Σ_k |s·B[j][k]·d_k|, for each j.
func TestPivotErrorAllKinds(t *testing.T) {
	lp := newCoverLP([]float64{4, 5, 6, 7})
	lp.trans = [][2]int{{2, 3}}
	lp.add([]int{0, 1}, 3)
	lp.basis = []int{4, -1 - 1, -1 - lp.m, 3} // column {0,1}, job 1's surplus, transfer (2,3), job 3
	if !lp.refactor(nil) {
		t.Fatal("refactor stopped")
	}
	B := [][]float64{
		{1, 0, 0, 0},
		{1, -1, 0, 0},
		{0, 0, 1, 0},
		{0, 0, -1, 1},
	}
	d := []float64{0.3, -0.7, 1.1, 1.3}
	for r := range lp.m {
		if e := lp.pivotError(r, d); e > 1e-15 {
			t.Errorf("B⁻¹ afresh, row %d: error %g, want 0", r, e)
		}
	}
	const s = 1e-3
	for j := range lp.m {
		lp.binv[1][j] += s
		want := 0.0
		for k := range lp.m {
			want += math.Abs(s * B[j][k] * d[k])
		}
		if e := lp.pivotError(1, d); math.Abs(e-want) > 1e-12 {
			t.Errorf("row 1 spoilt by %g in column %d: error %g, want %g", s, j, e, want)
		}
		lp.binv[1][j] -= s
	}
}

// TestDoubtfulPivot: a pivot a millionth of d's largest element (1e3) is
// taken on an updated B⁻¹ whose row is exact; spoilt by 1e-9 in another
// column (an error of 1e-9·1e3, past pivotTrust·1e-3) the same row makes
// it doubtful, unless B⁻¹ has just been computed afresh. A pivot that is
// not small beside the largest is never doubtful, even from a spoilt row.
func TestDoubtfulPivot(t *testing.T) {
	d := []float64{1e-3, 1e3, 0}
	lp := newCoverLP([]float64{4, 5, 6})
	lp.pivots = 1
	if lp.doubtful(0, d, 1e3) {
		t.Errorf("exact row, updated B⁻¹: doubtful")
	}
	lp.binv[0][1] = 1e-9
	if !lp.doubtful(0, d, 1e3) {
		t.Errorf("row spoilt by 1e-9, updated B⁻¹: not doubtful")
	}
	lp.binv[1][1] = 1 + 1e-3 // an error of 1e-3·1e3: doubtful, were the pivot small
	if lp.doubtful(1, d, 1e3) {
		t.Errorf("the largest pivot, row spoilt: doubtful")
	}
	lp.pivots = 0
	if lp.doubtful(0, d, 1e3) {
		t.Errorf("spoilt row of a B⁻¹ just computed afresh: doubtful")
	}
}

// columnPlain is the plain reference for column: B⁻¹a summed entry by entry
// of a into all of d, the additions column makes along each row in the
// same order.
func columnPlain(lp *coverLP, v int) []float64 {
	d := make([]float64, lp.m)
	lp.entries(v, func(j int, a float64) {
		for k := range d {
			d[k] += a * lp.binv[k][j]
		}
	})
	return d
}

// TestColumnEqualsPlainReference: column gives the plain reference's B⁻¹a
// bit for bit, for every column, surplus and transfer, on one goroutine and
// on three, at bases a few pivots and many pivots from the singletons.
func TestColumnEqualsPlainReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	for trial := range 12 {
		m := 20 + rng.IntN(40)
		lp := randomCoverLP(rng, m, 8*m)
		for range m / 2 {
			lp.trans = append(lp.trans, [2]int{rng.IntN(m), rng.IntN(m)})
		}
		lp.workers, lp.parallelAt = 1+2*(trial%2), 1
		for _, pivots := range []int{5, 50 * m} {
			lp.solve(pivots, nil)
			d := make([]float64, m)
			for v := -m - len(lp.trans); v < len(lp.cols); v++ {
				lp.column(v, d)
				if want := columnPlain(lp, v); !slices.Equal(d, want) {
					t.Fatalf("trial %d (%d workers), after %d pivots: variable %d: B⁻¹a %v, plain %v", trial, lp.workers, lp.work, v, d, want)
				}
			}
		}
	}
}
