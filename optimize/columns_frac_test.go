package optimize

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// fracLP solves the linear relaxation that fracDual bounds, written out as
// a primal LP for gonum's simplex (small instances only):
//
//	max Σ_j π_j (xP_j + xH_j + xE_j)
//	s.t. xP_j + xH_j + xE_j ≤ 1,  Σ wP·xP + k·O ≤ N,  Σ wH·xH − k·O ≤ 0,
//	     Σ wE·xE − ⌊k/r⌋·O ≤ 0,  O ≤ P,  all ≥ 0,
//
// a role closed to a job (w = 0) having no variable. Slacks make it the
// equality form lp.Simplex takes.
func fracLP(t *testing.T, jobs []fracJob, k, e, hosts int) float64 {
	t.Helper()
	type v struct{ job, role int }
	var vars []v
	for j, f := range jobs {
		for role, w := range [3]float64{f.wP, f.wH, f.wE} {
			if w > 0 {
				vars = append(vars, v{j, role})
			}
		}
	}
	nx := len(vars) + 1 // + O
	rows := len(jobs) + 4
	cols := nx + rows // a slack per row
	a := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	o := len(vars)
	for i, x := range vars {
		f := jobs[x.job]
		c[i] = -f.pi
		a.Set(x.job, i, 1)
		a.Set(len(jobs)+x.role, i, [3]float64{f.wP, f.wH, f.wE}[x.role])
	}
	for j := range jobs {
		b[j] = 1
	}
	r := len(jobs)
	a.Set(r, o, float64(k))
	b[r] = float64(k * hosts)
	a.Set(r+1, o, -float64(k))
	a.Set(r+2, o, -float64(e))
	a.Set(r+3, o, 1)
	b[r+3] = float64(hosts)
	for i := range rows {
		a.Set(i, nx+i, 1)
	}
	opt, _, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		t.Fatalf("gonum lp: %v", err)
	}
	return -opt
}

// plainFracJobs reads fracDual's weights off the runtime model by a plain
// scan, not through phaseSolver: the fewest VMs (up to N, or P·⌊k/r⌋ for
// extras) with which each job of positive dual finishes within D, per role
// its class allows.
func plainFracJobs(p *model.Problem, pi []float64, D float64) []fracJob {
	c := p.Cluster
	least := func(j int, role model.Role, allowed bool, most int) float64 {
		for x := 1; allowed && x <= most; x++ {
			if p.Runtime(j, x, role) <= D {
				return float64(x)
			}
		}
		return 0
	}
	var jobs []fracJob
	for j, job := range p.Jobs {
		if pi[j] > 0 {
			jobs = append(jobs, fracJob{pi: pi[j],
				wP: least(j, model.Primary, true, c.PrimaryVMs()),
				wH: least(j, model.Host, job.CanHost(), c.PrimaryVMs()),
				wE: least(j, model.Extra, job.CanBeExtra(), c.MaxExtraVMs())})
		}
	}
	return jobs
}

// TestFracDualMatchesLP cross-checks fracDual with gonum's simplex on the
// same relaxation, its weights read off the runtimes independently: on random jobs, duals, clusters and durations its bound is
// never below the LP's optimum (weak duality: any μ bounds it, so a lower
// value is a wrong formula), and its search comes within 1 % of it. It also
// never falls below the exact pricing programme (scale 1), which the
// relaxation contains.
func TestFracDualMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	worst := 0.0
	for trial := range 150 {
		cl := model.PaperCluster()
		cl.Hosts = 2 + rng.IntN(8)
		cl.DisksPerHost = 1 + rng.IntN(4)
		cl.ExtraRatio = 1 + rng.IntN(cl.DisksPerHost)
		p, err := model.NewProblem(RandomWorkload(uint64(trial+1), 4+rng.IntN(12)), cl)
		if err != nil {
			t.Fatal(err)
		}
		cg := newColumnGen(p, 1<<30, 0)
		if cg.scale != 1 {
			t.Fatalf("scale %d, want 1", cg.scale)
		}
		cg.pi = make([]float64, len(p.Jobs))
		for j := range cg.pi {
			if rng.IntN(5) > 0 {
				cg.pi[j] = 100 * rng.Float64()
			}
		}
		D := cg.ps.cands[rng.IntN(len(cg.ps.cands))]
		got := cg.fracDual(D)
		want := fracLP(t, plainFracJobs(p, cg.pi, D), cl.DisksPerHost, cl.ExtrasPerHost(), cl.Hosts)
		exact, _, _ := cg.knapsack(D, 1, false, false)
		tol := 1e-9 * (1 + want)
		if got < want-tol {
			t.Fatalf("trial %d (D %v): fracDual %v below the LP optimum %v", trial, D, got, want)
		}
		if got < exact-tol {
			t.Fatalf("trial %d (D %v): fracDual %v below the exact programme %v", trial, D, got, exact)
		}
		if want > 0 {
			worst = max(worst, got/want-1)
		}
	}
	if worst > 0.01 {
		t.Errorf("fracDual's search ended up to %.2f %% above the LP optimum, want ≤ 1 %%", 100*worst)
	}
	t.Logf("fracDual above the LP optimum by at most %.4f %%", 100*worst)
}

// TestFracDualHandWorked: one host of two disks, r = 2 (N = 2, one extra VM),
// jobs whose runtime is 10 s on any number of VMs. Two I/O jobs of dual 3
// and one CPU job of dual 1. Where D allows the overcommit penalty
// (D = 10·α), the host overcommitted (O = 1) runs both I/O jobs as hosts
// and the CPU job on the extra VM: all three fit, 7, which no fraction
// passes. Where it does not (D = 10), only the two primaries remain: the
// two I/O jobs, 6.
func TestFracDualHandWorked(t *testing.T) {
	cl := model.PaperCluster()
	cl.Hosts, cl.DisksPerHost, cl.ExtraRatio = 1, 2, 2
	w := &model.Workload{Name: "hand", Jobs: []model.Job{
		{Name: "io-a", Model: model.PowerLaw{A: 10, B: 0}, IOIntensive: true},
		{Name: "io-b", Model: model.PowerLaw{A: 10, B: 0}, IOIntensive: true},
		{Name: "cpu", Model: model.PowerLaw{A: 10, B: 0}, CPUIntensive: true},
	}}
	p, err := model.NewProblem(w, cl)
	if err != nil {
		t.Fatal(err)
	}
	cg := newColumnGen(p, 0, 0)
	cg.pi = []float64{3, 3, 1}
	D := 10 * cl.Alpha // every role meets it on one VM
	if got := cg.fracDual(D); math.Abs(got-7) > 1e-6 {
		t.Errorf("fracDual = %v, want 7", got)
	}
	if got := cg.fracDual(10); math.Abs(got-6) > 1e-6 {
		t.Errorf("fracDual(10) = %v, want 6", got)
	}
}

// TestWeightedQuantile checks the selection against sorting on random
// breakpoints with ties.
func TestWeightedQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := rng.IntN(12)
		b, w := make([]float64, n), make([]float64, n)
		total := 0.0
		for i := range b {
			b[i] = float64(rng.IntN(6))
			w[i] = float64(1 + rng.IntN(4))
			total += w[i]
		}
		c := float64(rng.IntN(int(total) + 3))
		// Reference: the largest b whose weights at or above it reach c.
		want := 0.0
		for _, x := range b {
			var at float64
			for i, y := range b {
				if y >= x {
					at += w[i]
				}
			}
			if at >= c && x > want {
				want = x
			}
		}
		if got := weightedQuantile(append([]float64(nil), b...), append([]float64(nil), w...), c); got != want {
			t.Fatalf("trial %d: b %v w %v c %v: got %v, want %v", trial, b, w, c, got, want)
		}
	}
}

// TestAreaBoundScaled: on 100 hosts (N = 200, pricing in units of 2 VMs)
// Farley's bound at the area duals, with the fractional bound lowering the
// floored programme's values, comes within 2 % of the same bound priced
// exactly (units of 1 VM, four times the table), from the same grid. The
// floored programme alone makes one-VM jobs free at long durations and
// falls far short.
func TestAreaBoundScaled(t *testing.T) {
	c := model.PaperCluster()
	c.Hosts = 100
	for _, seed := range []uint64{1, 2} {
		p, err := model.NewProblem(RandomWorkload(seed, 150), c)
		if err != nil {
			t.Fatal(err)
		}
		scaled, exact := newColumnGen(p, 0, 60), newColumnGen(p, 201*201, 60)
		if scaled.scale != 2 || exact.scale != 1 {
			t.Fatalf("scales %d and %d, want 2 and 1", scaled.scale, exact.scale)
		}
		got, ok1 := scaled.areaBound()
		want, ok2 := exact.areaBound()
		if !ok1 || !ok2 {
			t.Fatal("areaBound stopped without a stop")
		}
		// Not ordered in general (the two refine between the grid points
		// along different paths), but close.
		if math.Abs(got/want-1) > 0.02 {
			t.Errorf("seed %d: area-dual bound %v with units of 2 VMs, %v exactly: want within 2 %%", seed, got, want)
		}
		t.Logf("seed %d: %.1f against %.1f exactly; area bound %.1f", seed, got, want, LowerBound(p))
	}
}

// TestNoteNamesTheBound: column generation's note credits the bound to the
// area and longest-job bound, to Farley's bound at the area duals, or to
// the LP's duals, by which of them the bound is (a bound below the area
// duals' is not theirs).
func TestNoteNamesTheBound(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(1, 20), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	set := &Settings{shared: &sharedTables{p: p, lb: 100, hasLB: true, areaDual: 120, hasAreaDual: true}}
	for _, c := range []struct {
		bound float64
		want  string
	}{
		{100, "the area and longest-job bound: the LP's did not pass it"},
		{110, "Farley's bound on the LP duals"}, // below the area duals' (a cut run's)
		{120, "Farley's bound on duals that charge each job its fewest VM-seconds"},
		{130, "Farley's bound on the LP duals"},
	} {
		cp := &checkpoints{makespan: 140, bound: c.bound, runs: 1, started: 1, last: &ColumnsResult{Ended: EndedStopped}}
		if note := cp.note(set, true); !strings.Contains(note, "("+c.want) {
			t.Errorf("bound %v: note %q, want it to name %q", c.bound, note, c.want)
		}
	}
}
