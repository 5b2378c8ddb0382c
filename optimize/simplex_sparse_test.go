package optimize

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestSparseLPAgainstDense: the master LP with B⁻¹ kept as sparse factors
// and etas (what coverLP does from luJobs jobs on) reaches the optimum the
// dense inverse (the plain reference) reaches over the same columns, the
// 150-job case factorising its basis again within the solve (stale, or a
// doubtful pivot); at its optimum row(r)·B is row r of the identity, B
// times the basic values is the right-hand side, and the duals it reports
// leave no column, surplus or transfer pricing out.
func TestSparseLPAgainstDense(t *testing.T) {
	for _, c := range []struct {
		seed             uint64
		m, hosts, rounds int
	}{{1, 30, 9, 20}, {2, 60, 20, 30}, {3, 90, 50, 40}, {4, 150, 30, 30}} {
		name := fmt.Sprintf("%d jobs on %d hosts", c.m, c.hosts)
		p := randomOnHosts(t, c.seed, c.m, c.hosts)
		cg := newColumnGen(p, 0, 0)
		priceRounds(cg, c.rounds, 50*c.m)
		var z [2]float64
		for k, sparse := range []bool{false, true} {
			lp := freshLPAs(cg, sparse)
			z[k] = lp.solve(1000*c.m, nil)
			if !lp.optimal {
				t.Fatalf("%s (sparse %v): not optimal after %d pivots", name, sparse, lp.work)
			}
			if sparse {
				if c.m == 150 && lp.factorised < 2 { // restart's, and one at least within the solve
					t.Errorf("%s: the solve never factorised its basis again", name)
				}
				checkInverse(t, name, lp)
				checkOptimalDuals(t, name, lp)
			}
		}
		if math.Abs(z[0]-z[1]) > 1e-9*(1+z[0]) {
			t.Errorf("%s: LP optimum %.12g dense, %.12g sparse", name, z[0], z[1])
		}
	}
}

// checkInverse checks lp's B⁻¹ at its basis: row(r)·B = e_r for every r,
// and B·xb = rhs (to round-off, xb being clamped at 0).
func checkInverse(t *testing.T, name string, lp *coverLP) {
	t.Helper()
	bx := make([]float64, lp.m)
	for k, b := range lp.basis {
		lp.entries(b, func(j int, a float64) { bx[j] += a * lp.xb[k] })
	}
	for j, v := range bx {
		if math.Abs(v-lp.rhs[j]) > 1e-9 {
			t.Fatalf("%s: row %d of B·xb is %v, the right-hand side %v", name, j, v, lp.rhs[j])
		}
	}
	for r := range lp.m {
		row := lp.row(r)
		for k, b := range lp.basis {
			var v float64
			lp.entries(b, func(j int, a float64) { v += a * row[j] })
			if want := float64(b2i(k == r)); math.Abs(v-want) > 1e-9 {
				t.Fatalf("%s: row %d of B⁻¹ times basis column %d is %v, not %v", name, r, k, v, want)
			}
		}
	}
}

// checkOptimalDuals checks that no variable prices out at lp.duals().
func checkOptimalDuals(t *testing.T, name string, lp *coverLP) {
	t.Helper()
	y, tol := lp.duals(), 10*lp.tolerance()
	for c := range lp.cols {
		if rc := lp.reducedCostOf(c, y); rc < tol {
			t.Fatalf("%s: column %d prices out (%v) at the optimum's duals", name, c, rc)
		}
	}
	for j, v := range y {
		if v < tol {
			t.Fatalf("%s: job %d's surplus prices out (%v)", name, j, v)
		}
	}
	for i, tr := range lp.trans {
		if rc := y[tr[1]] - y[tr[0]]; rc < tol {
			t.Fatalf("%s: transfer %d prices out (%v)", name, i, rc)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSparseColumnsAgainstDense: column generation run to its end (no
// tolerance) with the master LP's B⁻¹ sparse and dense reaches the same LP
// optimum, both proving a bound that meets it, and both plans check out;
// the dives that make the plans re-solve copies of the master (forDive) and
// fix columns in them by the dual simplex, on sparse factors in the one.
func TestSparseColumnsAgainstDense(t *testing.T) {
	for i, c := range []struct {
		seed     uint64
		m, hosts int
	}{{5, 20, 9}, {6, 25, 10}, {7, 30, 12}} {
		p := randomOnHosts(t, c.seed, c.m, c.hosts)
		seeds := []model.Schedule{model.Sequential(p)}
		var res [2]ColumnsResult
		for k, sparse := range []bool{false, true} {
			r, err := Columns(p, seeds, ColumnsOptions{Tolerance: -1, sparse: sparse})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Converged {
				t.Fatalf("case %d (sparse %v): ended %q", i, sparse, r.Ended)
			}
			if r.proven < r.LPValue*(1-1e-6) {
				t.Errorf("case %d (sparse %v): bound %v below the converged LP %v", i, sparse, r.proven, r.LPValue)
			}
			if err := p.Check(r.Schedule); err != nil {
				t.Fatalf("case %d (sparse %v): %v", i, sparse, err)
			}
			res[k] = r
		}
		if math.Abs(res[0].LPValue-res[1].LPValue) > 1e-7*res[0].LPValue {
			t.Errorf("case %d: LP optimum %.9g dense, %.9g sparse", i, res[0].LPValue, res[1].LPValue)
		}
		t.Logf("case %d: LP %.6g; plans %.6g dense, %.6g sparse", i, res[0].LPValue, res[0].Makespan, res[1].Makespan)
	}
}

// TestBasisLUClone: a copy of an LP (forDive, a dive's) shares its sparse
// factors and etas as they were; pivots on the copy, then others on the
// original (a column the copy lacks enters), each append etas of their
// own: after both, each LP's B⁻¹ is still B's
// inverse at its own basis. Neither factorises again in between (which
// would replace the etas and hide a shared one).
func TestBasisLUClone(t *testing.T) {
	p := randomOnHosts(t, 8, 40, 12)
	cg := newColumnGen(p, 0, 0)
	priceRounds(cg, 10, 2000)
	lp := freshLPAs(cg, true)
	lp.solve(15, nil)
	// Room to append in place: were the copy's etas not its own, its
	// pivots would write into the original's arrays and the original's
	// over them.
	e := lp.lu
	e.epos, e.estart, e.ediag = slices.Grow(e.epos, 64), slices.Grow(e.estart, 64), slices.Grow(e.ediag, 64)
	e.eidx, e.eval = slices.Grow(e.eidx, 64*lp.m), slices.Grow(e.eval, 64*lp.m)
	d := lp.forDive()
	d.solve(15, nil)
	lp.add([]int{0, 1, 2, 3, 4, 5}, 1) // a cheap column: the original's pivots are not the copy's
	lp.solve(15, nil)
	if len(lp.lu.epos) != 30 || len(d.lu.epos) != 30 || lp.factorised != 1 || d.factorised != 0 {
		t.Fatalf("etas: %d in the original, %d in the copy (want 30 each); factorisations %d and %d (want 1 and 0)",
			len(lp.lu.epos), len(d.lu.epos), lp.factorised, d.factorised)
	}
	checkInverse(t, "original", lp)
	checkInverse(t, "copy", d)
}

// TestSparseFixAgainstDense: a dive's copy of the master LP (forDive) that
// covers the jobs of the LP's most used column (fix: their rows ask for 0,
// the dual simplex restores a feasible basis) reaches the same optimum
// with sparse factors as with the dense inverse, the dual simplex getting
// there on both, and its sparse B⁻¹ is still B's inverse.
func TestSparseFixAgainstDense(t *testing.T) {
	for _, c := range []struct {
		seed     uint64
		m, hosts int
	}{{9, 60, 12}, {10, 90, 20}} {
		name := fmt.Sprintf("%d jobs on %d hosts", c.m, c.hosts)
		p := randomOnHosts(t, c.seed, c.m, c.hosts)
		cg := newColumnGen(p, 0, 0)
		priceRounds(cg, 30, 50*c.m)
		var jobs []int
		var z [2]float64
		for k, sparse := range []bool{false, true} {
			lp := freshLPAs(cg, sparse)
			lp.solve(1000*c.m, nil)
			if !lp.optimal {
				t.Fatalf("%s (sparse %v): the LP is not optimal", name, sparse)
			}
			if jobs == nil { // the dense LP's most used column, for both
				best, lam := -1, 0.0
				for col, v := range lp.values() {
					if col >= c.m && v > lam {
						best, lam = col, v
					}
				}
				if best < 0 {
					t.Fatalf("%s: no column but the singletons is used", name)
				}
				jobs = lp.cols[best]
			}
			d := lp.forDive()
			if !d.fix(jobs, 50*c.m, nil) {
				t.Fatalf("%s (sparse %v): the dual simplex did not restore a feasible basis", name, sparse)
			}
			z[k] = d.solve(1000*c.m, nil)
			if !d.optimal {
				t.Fatalf("%s (sparse %v): the dive's LP is not optimal", name, sparse)
			}
			if sparse {
				checkInverse(t, name+", dive", d)
			}
		}
		if math.Abs(z[0]-z[1]) > 1e-9*(1+z[0]) {
			t.Errorf("%s: the dive's LP optimum %.12g dense, %.12g sparse", name, z[0], z[1])
		}
	}
}
