package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// The master LP oracle: coverLP, packer's own simplex for the restricted
// master problem of column generation,
//
//	min cᵀλ  s.t.  Σ_{c ∋ j} λ_c ≥ 1 for every job j,  λ ≥ 0,
//
// is checked against glpsol (GLPK, package glpk-utils, which make deps
// installs for the tests) solving the same LP with its own simplex, on
// random column sets (--exact, its rational simplex, agreed too but took five
// times as long). gonum's optimize/convex/lp.Simplex was the first choice; it
// did not return within a minute on the first random instance (28 jobs), so
// it cannot serve as an oracle here.
//
// packer's answer is checked by LP duality rather than by comparing duals,
// which a degenerate optimum leaves free: packer's λ covers every job, its y
// prices no column (or surplus) out, and cᵀλ = 1ᵀy = glpsol's optimum, whose
// own duals must sum to it too. Where packer's optimal basis is non-degenerate
// (every basic value clearly positive) the dual optimum is unique, and
// packer's y must equal glpsol's.

// oracleTol is the relative tolerance of the comparisons, times the LP's
// value (at least 1): both simplexes are exact to round-off on these sizes.
const oracleTol = 1e-9

// masterOracle is the oracle's answer for one column set.
type masterOracle struct {
	value     float64   // the primal optimum
	dualValue float64   // the dual optimum
	dual      []float64 // an optimal y
}

// solveOracle solves lpm's column set with glpsol, through a CPLEX-LP file
// in dir.
func solveOracle(dir string, lpm *coverLP) (masterOracle, error) {
	var b strings.Builder
	b.WriteString("Minimize\n obj:")
	for k, c := range lpm.cost {
		fmt.Fprintf(&b, " + %.17g x%d", c, k)
	}
	b.WriteString("\nSubject To\n")
	rows := make([][]int, lpm.m)
	for k, jobs := range lpm.cols {
		for _, j := range jobs {
			rows[j] = append(rows[j], k)
		}
	}
	signed := make([][]string, lpm.m) // transfers: + t in row i, − t in row j
	for k, tr := range lpm.trans {
		signed[tr[0]] = append(signed[tr[0]], fmt.Sprintf(" + t%d", k))
		signed[tr[1]] = append(signed[tr[1]], fmt.Sprintf(" - t%d", k))
	}
	for j, ks := range rows {
		fmt.Fprintf(&b, " r%d:", j)
		for _, k := range ks {
			fmt.Fprintf(&b, " + x%d", k)
		}
		for _, t := range signed[j] {
			b.WriteString(t)
		}
		b.WriteString(" >= 1\n")
	}
	b.WriteString("End\n")
	lpFile, solFile := filepath.Join(dir, "master.lp"), filepath.Join(dir, "master.sol")
	if err := os.WriteFile(lpFile, []byte(b.String()), 0o644); err != nil {
		return masterOracle{}, err
	}
	if out, err := exec.Command("glpsol", "--lp", lpFile, "-w", solFile).CombinedOutput(); err != nil {
		return masterOracle{}, fmt.Errorf("glpsol: %v\n%s", err, out)
	}
	return parseGlpsolSolution(solFile, lpm.m)
}

// parseGlpsolSolution reads glpsol's plain-text basic solution (-w): the
// line "s bas ROWS COLS PRIMAL DUAL OBJ" and "i ROW STATUS PRIMAL DUAL" per
// row, whose dual is the row's y.
func parseGlpsolSolution(file string, m int) (masterOracle, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return masterOracle{}, err
	}
	or := masterOracle{dual: make([]float64, m)}
	seen, status := 0, false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 7 && f[0] == "s" && f[1] == "bas":
			if f[4] != "f" || f[5] != "f" {
				return or, fmt.Errorf("glpsol: solution status %q %q, want feasible", f[4], f[5])
			}
			if or.value, err = strconv.ParseFloat(f[6], 64); err != nil {
				return or, fmt.Errorf("glpsol objective %q: %w", f[6], err)
			}
			status = true
		case len(f) == 5 && f[0] == "i":
			r, err1 := strconv.Atoi(f[1])
			y, err2 := strconv.ParseFloat(f[4], 64)
			if err1 != nil || err2 != nil || r < 1 || r > m {
				return or, fmt.Errorf("glpsol row line %q", line)
			}
			or.dual[r-1] = y
			seen++
		}
	}
	if !status || seen != m {
		return or, fmt.Errorf("glpsol solution %s: status line %v, %d of %d rows", file, status, seen, m)
	}
	for _, y := range or.dual {
		or.dualValue += y
	}
	return or, nil
}

// transferValues is the value of each of lpm's transfers (0 if non-basic).
func transferValues(lpm *coverLP) []float64 {
	v := make([]float64, len(lpm.trans))
	x := lpm.primal()
	for k, b := range lpm.basis {
		if t := lpm.transfer(b); t >= 0 {
			v[t] = max(x[k], 0)
		}
	}
	return v
}

// checkMaster checks packer's solution of lpm (value z, primal λ and its
// transfers' values tau, duals y) against the oracle's; nondegenerate
// reports that packer's basis was, so that y was compared with the
// oracle's duals.
func checkMaster(lpm *coverLP, z float64, lambda, tau, y []float64, or masterOracle) (nondegenerate bool, err error) {
	scale := max(1, math.Abs(or.value))
	tol := oracleTol * scale
	if math.Abs(or.value-or.dualValue) > tol {
		return false, fmt.Errorf("oracle disagrees with itself: primal %v, dual %v", or.value, or.dualValue)
	}
	if math.Abs(z-or.value) > tol {
		return false, fmt.Errorf("value %.12g, oracle %.12g (differ by %.3g)", z, or.value, z-or.value)
	}
	// Primal feasibility and value.
	cover := make([]float64, lpm.m)
	var cl float64
	for k, l := range lambda {
		if l < -1e-9 {
			return false, fmt.Errorf("λ[%d] = %v < 0", k, l)
		}
		cl += lpm.cost[k] * l
		for _, j := range lpm.cols[k] {
			cover[j] += l
		}
	}
	for t, v := range tau {
		if v < -1e-9 {
			return false, fmt.Errorf("transfer %d = %v < 0", t, v)
		}
		cover[lpm.trans[t][0]] += v
		cover[lpm.trans[t][1]] -= v
	}
	for j, v := range cover {
		if v < 1-1e-9 {
			return false, fmt.Errorf("job %d covered %v < 1", j, v)
		}
	}
	if math.Abs(cl-z) > tol {
		return false, fmt.Errorf("cᵀλ = %.12g, value %.12g", cl, z)
	}
	// Dual feasibility (no surplus or column prices out) and value.
	var sy float64
	for j, v := range y {
		if v < -tol {
			return false, fmt.Errorf("dual y[%d] = %v < 0", j, v)
		}
		sy += v
	}
	for k, jobs := range lpm.cols {
		rc := lpm.cost[k]
		for _, j := range jobs {
			rc -= y[j]
		}
		if rc < -tol {
			return false, fmt.Errorf("column %d %v (cost %v) has reduced cost %v < 0 under the duals", k, jobs, lpm.cost[k], rc)
		}
	}
	for t, tr := range lpm.trans {
		if y[tr[0]] > y[tr[1]]+tol {
			return false, fmt.Errorf("transfer %d %v prices out: y = %v > %v", t, tr, y[tr[0]], y[tr[1]])
		}
	}
	if math.Abs(sy-z) > tol {
		return false, fmt.Errorf("1ᵀy = %.12g, value %.12g (differ by %.3g)", sy, z, sy-z)
	}
	// A non-degenerate optimal basis has the unique dual optimum.
	for _, x := range lpm.primal() {
		if x < 1e-6 {
			return false, nil
		}
	}
	for j := range y {
		if math.Abs(y[j]-or.dual[j]) > 1e-7*scale {
			return true, fmt.Errorf("non-degenerate optimum: y[%d] = %.12g, oracle %.12g", j, y[j], or.dual[j])
		}
	}
	return true, nil
}

// describeMaster prints a column set as a Go literal for a reproducer.
func describeMaster(lpm *coverLP) string {
	var b strings.Builder
	fmt.Fprintf(&b, "m = %d; columns (jobs: cost):\n", lpm.m)
	for k, jobs := range lpm.cols {
		fmt.Fprintf(&b, "  %v: %v\n", jobs, lpm.cost[k])
	}
	fmt.Fprintf(&b, "transfers (+i, −j): %v\n", lpm.trans)
	return b.String()
}

// oracleStats counts what the oracle test compared.
type oracleStats struct {
	instances, solves, checked, nondegenerate, pivotsMax int
	transferred                                          int    // checked optima with a transfer above 0
	dir                                                  string // for glpsol's files
}

// newOracleStats fails the test, not skips it, when glpsol is missing.
func newOracleStats(t *testing.T) *oracleStats {
	t.Helper()
	if _, err := exec.LookPath("glpsol"); err != nil {
		t.Fatalf("the master LP oracle needs glpsol: apt-get install glpk-utils (make deps does): %v", err)
	}
	return &oracleStats{dir: t.TempDir()}
}

// solveAndCheck solves lpm warm (from its last basis), as column generation
// does, and, if check, checks it against the oracle.
func solveAndCheck(t *testing.T, name string, lpm *coverLP, st *oracleStats, check bool) {
	t.Helper()
	before := lpm.pivots
	z := lpm.solve(1000*lpm.m, nil)
	if !lpm.optimal {
		t.Fatalf("%s: packer's simplex did not reach optimality in %d pivots\n%s", name, 1000*lpm.m, describeMaster(lpm))
	}
	st.pivotsMax = max(st.pivotsMax, lpm.pivots-before)
	st.solves++
	if !check {
		return
	}
	or, err := solveOracle(st.dir, lpm)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, describeMaster(lpm))
	}
	nd, err := checkMaster(lpm, z, lpm.values(), transferValues(lpm), lpm.duals(), or)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, describeMaster(lpm))
	}
	st.checked++
	if slices.ContainsFunc(transferValues(lpm), func(v float64) bool { return v > 1e-9 }) {
		st.transferred++
	}
	if nd {
		st.nondegenerate++
	}
}

// randomMaster is a covering LP over m jobs: singletons of cost 1–1,000 s,
// then columns added in batches; costs are continuous, small integers (ties:
// degenerate optima), or phase-like (the longest job's singleton cost
// times 0.6–1.4, so that sharing pays); some columns repeat.
func randomMaster(rng *rand.Rand, m int) (*coverLP, [][]int, []float64) {
	kind := rng.IntN(3)
	single := make([]float64, m)
	for j := range single {
		single[j] = 1 + 999*rng.Float64()
		if kind == 1 {
			single[j] = float64(1 + rng.IntN(10))
		}
	}
	n := rng.IntN(4*m + 1)
	cols, costs := make([][]int, 0, n), make([]float64, 0, n)
	for range n {
		if len(cols) > 0 && rng.IntN(10) == 0 {
			k := rng.IntN(len(cols))
			cols, costs = append(cols, cols[k]), append(costs, costs[k])
			continue
		}
		jobs := rng.Perm(m)[:1+rng.IntN(min(6, m))]
		var cost float64
		switch kind {
		case 0:
			cost = 1 + 999*rng.Float64()*float64(len(jobs))/3
		case 1:
			cost = float64(1 + rng.IntN(3*len(jobs)+3))
		default:
			for _, j := range jobs {
				cost = max(cost, single[j])
			}
			cost *= 0.6 + 0.8*rng.Float64()
		}
		cols, costs = append(cols, jobs), append(costs, cost)
	}
	lpm := newCoverLP(single)
	if rng.IntN(2) == 0 {
		order, seen := rng.Perm(m), map[[2]int]bool{}
		for range rng.IntN(m + 1) {
			a, b := rng.IntN(m), rng.IntN(m)
			if a == b {
				continue
			}
			tr := [2]int{order[min(a, b)], order[max(a, b)]}
			if !seen[tr] {
				seen[tr] = true
				lpm.trans = append(lpm.trans, tr)
			}
		}
	}
	return lpm, cols, costs
}

// TestMasterLPAgainstOracle: on 300 random column sets (2–40 jobs, up to
// 4·M further columns added in 1–4 batches, each batch solved warm from the
// last basis as column generation does) packer's master LP value equals
// glpsol's, its duals are dual feasible with 1ᵀy equal to it, and equal to
// glpsol's where the optimum is non-degenerate. Every batch's solve is
// checked in a third of the instances, the last one in all.
func TestMasterLPAgainstOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	st := newOracleStats(t)
	for inst := range 300 {
		m := 2 + rng.IntN(39)
		lpm, cols, costs := randomMaster(rng, m)
		name := fmt.Sprintf("instance %d", inst)
		every := inst%3 == 0
		solveAndCheck(t, name, lpm, st, every)
		batches := 1 + rng.IntN(4)
		for bt := range batches {
			lo, hi := bt*len(cols)/batches, (bt+1)*len(cols)/batches
			for k := lo; k < hi; k++ {
				lpm.add(cols[k], costs[k])
			}
			solveAndCheck(t, fmt.Sprintf("%s, batch %d", name, bt), lpm, st, every || bt == batches-1)
		}
		st.instances++
	}
	t.Logf("%d instances, %d solves, %d checked, %d with a non-degenerate optimum (duals compared), %d using a transfer, at most %d pivots a solve",
		st.instances, st.solves, st.checked, st.nondegenerate, st.transferred, st.pivotsMax)
	if st.transferred < st.checked/10 {
		t.Errorf("only %d of %d optima use a transfer: the transfers were hardly tested", st.transferred, st.checked)
	}
	if st.nondegenerate < st.checked/10 {
		t.Errorf("only %d of %d optima non-degenerate: the duals were hardly compared", st.nondegenerate, st.checked)
	}
}

// TestMasterLPAgainstOracleOnPhases: the column sets column generation
// itself builds, phases priced for random workloads of 3–12 jobs on random
// small clusters, checked after every other round and the last.
func TestMasterLPAgainstOracleOnPhases(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 2))
	st := newOracleStats(t)
	for inst := range 60 {
		m := 3 + rng.IntN(10)
		p, err := model.NewProblem(RandomWorkload(uint64(3600+inst), m), randomSmallCluster(rng))
		if err != nil {
			t.Fatal(err)
		}
		cg := newColumnGen(p, 0, 0)
		cg.incumbent = math.Inf(1)
		for round := 1; round <= 8; round++ {
			name := fmt.Sprintf("workload %d, round %d", inst, round)
			cg.lp.solve(1000*m, nil)
			added, _, _ := cg.price(round)
			solveAndCheck(t, name, cg.lp, st, round%2 == 1 || added == 0 || round == 8)
			if added == 0 {
				break
			}
		}
		st.instances++
	}
	t.Logf("%d workloads, %d solves, %d checked, %d with a non-degenerate optimum, %d using a transfer, at most %d pivots a solve",
		st.instances, st.solves, st.checked, st.nondegenerate, st.transferred, st.pivotsMax)
	if st.solves < 3*st.instances {
		t.Errorf("%d solves on %d workloads: pricing added too few columns to test", st.solves, st.instances)
	}
}

// TestMasterOracleCatchesWrongAnswers: the check rejects packer's answer
// with one dual nudged, a column's λ dropped, the value misreported, or the
// duals of a transfer's two jobs swapped, so the oracle test above can fail.
func TestMasterOracleCatchesWrongAnswers(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 3))
	st := newOracleStats(t)
	caught := map[string]int{}
	tried, swapped := 0, 0
	for inst := range 40 {
		m := 3 + rng.IntN(20)
		lpm, cols, costs := randomMaster(rng, m)
		for k := range cols {
			lpm.add(cols[k], costs[k])
		}
		z := lpm.solve(1000*m, nil)
		or, err := solveOracle(st.dir, lpm)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := checkMaster(lpm, z, lpm.values(), transferValues(lpm), lpm.duals(), or); err != nil {
			t.Fatalf("instance %d: %v", inst, err)
		}
		tried++
		y := lpm.duals()
		y[rng.IntN(m)] += 1e-6 * max(1, z)
		if _, err := checkMaster(lpm, z, lpm.values(), transferValues(lpm), y, or); err != nil {
			caught["dual"]++
		}
		lambda := lpm.values()
		for k := range lambda {
			if lambda[k] > 1e-3 {
				lambda[k] = 0
				break
			}
		}
		if _, err := checkMaster(lpm, z, lambda, transferValues(lpm), lpm.duals(), or); err != nil {
			caught["lambda"]++
		}
		if _, err := checkMaster(lpm, z*(1+1e-7), lpm.values(), transferValues(lpm), lpm.duals(), or); err != nil {
			caught["value"]++
		}
		// Duals swapped across a transfer whose jobs they price apart:
		// the transfer then prices out.
		y = lpm.duals()
		for _, tr := range lpm.trans {
			if y[tr[1]]-y[tr[0]] > 1e-6*max(1, z) {
				y[tr[0]], y[tr[1]] = y[tr[1]], y[tr[0]]
				swapped++
				if _, err := checkMaster(lpm, z, lpm.values(), transferValues(lpm), y, or); err != nil {
					caught["swap"]++
				}
				break
			}
		}
	}
	for _, what := range []string{"dual", "lambda", "value"} {
		if caught[what] != tried {
			t.Errorf("a wrong %s passed the check in %d of %d instances", what, tried-caught[what], tried)
		}
	}
	if swapped < 5 || caught["swap"] != swapped {
		t.Errorf("duals swapped across a transfer passed the check in %d of %d instances", swapped-caught["swap"], swapped)
	}
}
