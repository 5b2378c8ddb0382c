package optimize

import (
	"fmt"
	"math"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestSparseLPAgainstDense: the master LP with B⁻¹ kept as sparse factors
// and etas (what coverLP does from luJobs jobs on) reaches the optimum the
// dense inverse (the plain reference) reaches over the same columns, with
// its factors computed afresh along the way (stale) on the larger cases;
// at its optimum row(r)·B is row r of the identity, and the duals it
// reports leave no column, surplus or transfer pricing out.
func TestSparseLPAgainstDense(t *testing.T) {
	refreshed := 0
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
			lp := freshLP(cg)
			lp.represent(sparse)
			lp.restart()
			z[k] = lp.solve(1000*c.m, nil)
			if !lp.optimal {
				t.Fatalf("%s (sparse %v): not optimal after %d pivots", name, sparse, lp.work)
			}
			if sparse {
				refreshed += lp.factorised - 1 // restart's
				checkSparseBasis(t, name, lp)
			}
		}
		if math.Abs(z[0]-z[1]) > 1e-9*(1+z[0]) {
			t.Errorf("%s: LP optimum %.12g dense, %.12g sparse", name, z[0], z[1])
		}
	}
	if refreshed == 0 {
		t.Error("no solve factorised its basis again: stale never said so")
	}
}

// checkSparseBasis checks lp's sparse B⁻¹ at its basis: row(r)·B = e_r for
// every r, and no variable pricing out at duals().
func checkSparseBasis(t *testing.T, name string, lp *coverLP) {
	t.Helper()
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

// TestBasisLUClone: pivots on a copy of the LP (forDive, a dive's) leave
// the original's B⁻¹ as it was, and the original's later pivots leave the
// copy's: each is B's inverse at its own basis.
func TestBasisLUClone(t *testing.T) {
	p := randomOnHosts(t, 8, 40, 12)
	cg := newColumnGen(p, 0, 0)
	priceRounds(cg, 10, 2000)
	lp := freshLP(cg)
	lp.represent(true)
	lp.restart()
	lp.solve(30, nil) // a few etas, so that the clone shares a non-empty eta file
	before := make([][]float64, lp.m)
	for r := range before {
		before[r] = append([]float64(nil), lp.row(r)...)
	}
	d := lp.forDive()
	d.solve(1000*lp.m, nil)
	if d.work == lp.work {
		t.Fatal("the copy made no pivot")
	}
	for r := range before {
		for j, v := range lp.row(r) {
			if v != before[r][j] {
				t.Fatalf("B⁻¹[%d][%d] of the original moved from %v to %v after its copy pivoted", r, j, before[r][j], v)
			}
		}
	}
	lp.solve(1000*lp.m, nil) // the original's own etas, after the copy's
	checkSparseBasis(t, "original", lp)
	checkSparseBasis(t, "copy", d)
}
