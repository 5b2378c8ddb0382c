package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestDominancePairsByHand: five jobs on 2 hosts. A = 100/n and E (the same
// curve) and B = 200/n and C = 150/√n are CPU-only, D = 50/n is I/O-only.
// A replaces B and C, E too, and A and E each other (the lower index, A,
// first); D, of another class, takes part in none. Left after the implied
// ones go: A→E, E→B, E→C (A→B and A→C pass through E).
func TestDominancePairsByHand(t *testing.T) {
	job := func(name string, a, b float64, cpu bool) model.Job {
		return model.Job{Name: name, Model: model.PowerLaw{A: a, B: b}, CPUIntensive: cpu, IOIntensive: !cpu}
	}
	cl := model.PaperCluster()
	cl.Hosts = 2
	p, err := model.NewProblem(&model.Workload{Name: "hand", Jobs: []model.Job{
		job("A", 100, -1, true), job("B", 200, -1, true), job("C", 150, -0.5, true),
		job("D", 50, -1, false), job("E", 100, -1, true)}}, cl)
	if err != nil {
		t.Fatal(err)
	}
	got := newPhaseSolver(p).dominancePairs()
	want := [][2]int{{0, 4}, {4, 1}, {4, 2}}
	if !slices.Equal(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
}

// replacesByRuntime is the dominance relation from Problem.Runtime and the
// jobs' classes, apart from phaseSolver's tables: the same class, and no
// longer in every role the job may take at every VM count that role allows.
func replacesByRuntime(p *model.Problem, i, j int) bool {
	a, b := p.Jobs[i], p.Jobs[j]
	if a.CPUIntensive != b.CPUIntensive || a.IOIntensive != b.IOIntensive {
		return false
	}
	c := p.Cluster
	roles := []struct {
		role model.Role
		ok   bool
		n    int
	}{{model.Primary, true, c.PrimaryVMs()}, {model.Host, a.CanHost(), c.PrimaryVMs()}, {model.Extra, a.CanBeExtra(), c.MaxExtraVMs()}}
	for _, r := range roles {
		for n := 1; r.ok && n <= r.n; n++ {
			if p.Runtime(i, n, r.role) > p.Runtime(j, n, r.role) {
				return false
			}
		}
	}
	return true
}

// replacesFirst is replacesByRuntime with ties kept in index order: of two
// jobs that can each replace the other, only the lower index replaces.
func replacesFirst(p *model.Problem, i, j int) bool {
	return i != j && replacesByRuntime(p, i, j) && (i < j || !replacesByRuntime(p, j, i))
}

// dominanceProblem is a random workload on a random small cluster with a
// few jobs copied (ties) and a few made a little faster than another of
// their class (dominance even among few jobs).
func dominanceProblem(t *testing.T, rng *rand.Rand, seed uint64) *model.Problem {
	t.Helper()
	w := RandomWorkload(seed, 4+rng.IntN(9))
	for range 1 + rng.IntN(3) {
		src := w.Jobs[rng.IntN(len(w.Jobs))]
		cp := src
		cp.Name = fmt.Sprintf("%s-copy%d", src.Name, len(w.Jobs))
		if pl, ok := src.Model.(model.PowerLaw); ok && rng.IntN(2) == 0 {
			pl.A *= 0.5 + rng.Float64()
			cp.Model = pl
		}
		w.Jobs = append(w.Jobs, cp)
	}
	p, err := model.NewProblem(w, randomSmallCluster(rng))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDominancePairsAreSwaps: on random problems, the pairs' closure is
// exactly the relation replacesByRuntime gives (ties broken by index), none
// of the pairs is implied by two others, and putting i in the place of j in
// any phase column generation built that holds j and not i gives a phase
// that Problem.Check accepts and that is no longer: the property that makes
// π_i ≤ π_j a dual-optimal inequality.
func TestDominancePairsAreSwaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 9))
	pairs, swaps := 0, 0
	for inst := range 80 {
		p := dominanceProblem(t, rng, uint64(9000+inst))
		m := len(p.Jobs)
		got := newPhaseSolver(p).dominancePairs()
		pairs += len(got)
		reach := make([][]bool, m)
		for i := range reach {
			reach[i] = make([]bool, m)
		}
		for _, pr := range got {
			reach[pr[0]][pr[1]] = true
		}
		for k := range m { // transitive closure (Floyd–Warshall)
			for i := range m {
				for j := range m {
					reach[i][j] = reach[i][j] || reach[i][k] && reach[k][j]
				}
			}
		}
		for i := range m {
			for j := range m {
				want := replacesFirst(p, i, j)
				if reach[i][j] != want {
					t.Fatalf("instance %d: %s replaces %s: closure of the pairs says %v, the runtimes %v (pairs %v)",
						inst, p.Jobs[i].Name, p.Jobs[j].Name, reach[i][j], want, got)
				}
			}
		}
		for _, pr := range got {
			for k := range m {
				if replacesFirst(p, pr[0], k) && replacesFirst(p, k, pr[1]) {
					t.Fatalf("instance %d: pair %v is implied by job %d", inst, pr, k)
				}
			}
		}
		res, err := Columns(p, []model.Schedule{model.Sequential(p)}, ColumnsOptions{Rounds: 6})
		if err != nil {
			t.Fatal(err)
		}
		for _, ph := range res.phases {
			for _, pr := range got {
				swaps += checkSwap(t, p, ph, pr[0], pr[1])
			}
		}
	}
	t.Logf("%d pairs, %d swaps checked", pairs, swaps)
	if pairs < 80 || swaps < 200 {
		t.Errorf("%d pairs and %d swaps: too few to test", pairs, swaps)
	}
}

// checkSwap puts job i in j's place in ph, if ph holds j and not i, and
// fails unless the schedule of that phase and every other job alone on one
// VM passes Problem.Check and the phase is no longer; it returns 1 if it
// swapped.
func checkSwap(t *testing.T, p *model.Problem, ph model.Phase, i, j int) int {
	t.Helper()
	at := slices.IndexFunc(ph.Jobs, func(a model.Assignment) bool { return a.Job == j })
	if at < 0 || slices.ContainsFunc(ph.Jobs, func(a model.Assignment) bool { return a.Job == i }) {
		return 0
	}
	sw := model.Phase{Jobs: slices.Clone(ph.Jobs)}
	sw.Jobs[at].Job = i
	s := model.Schedule{Phases: []model.Phase{sw}}
	for x := range p.Jobs {
		if !slices.ContainsFunc(sw.Jobs, func(a model.Assignment) bool { return a.Job == x }) {
			s.Phases = append(s.Phases, model.Phase{Jobs: []model.Assignment{{Job: x, VMs: 1, Role: model.Primary}}})
		}
	}
	if err := p.Check(s); err != nil {
		t.Fatalf("%s in %s's place in %v: %v", p.Jobs[i].Name, p.Jobs[j].Name, ph, err)
	}
	if d, d0 := p.PhaseDuration(sw), p.PhaseDuration(ph); d > d0*(1+1e-12) || math.IsNaN(d) {
		t.Fatalf("%s in %s's place in %v: the phase takes %v, was %v", p.Jobs[i].Name, p.Jobs[j].Name, ph, d, d0)
	}
	return 1
}

// TestTransfersKeepLPOptimum: with exact pricing run to convergence, the
// master LP's optimum is the same with the dominance transfers as without
// them (they are dual-optimal inequalities: they cut off no optimal dual of
// the LP over all phases), on random problems where there are transfers.
func TestTransfersKeepLPOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 10))
	compared := 0
	for inst := range 40 {
		p := dominanceProblem(t, rng, uint64(9100+inst))
		if len(newPhaseSolver(p).dominancePairs()) == 0 {
			continue
		}
		seeds := []model.Schedule{model.Sequential(p)}
		var lp [2]float64
		for k, off := range []bool{false, true} {
			res, err := Columns(p, seeds, ColumnsOptions{Tolerance: -1, noTransfers: off, noFinalBound: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("instance %d (transfers off: %v): ended %q, not converged", inst, off, res.Ended)
			}
			lp[k] = res.LPValue
		}
		if math.Abs(lp[0]-lp[1]) > 1e-7*lp[1] {
			t.Errorf("instance %d: LP optimum %.9g with transfers, %.9g without", inst, lp[0], lp[1])
		}
		compared++
	}
	if compared < 20 {
		t.Errorf("only %d of 40 instances had transfers", compared)
	}
}
