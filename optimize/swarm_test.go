package optimize

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/pso"
	"github.com/packer-sched/packer/workloads"
)

func paperProblem(t testing.TB, name string, hosts int) *Problem {
	t.Helper()
	w, err := workloads.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProblem(w, model.Cluster{Hosts: hosts}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSwarmPaperWorkloads: with the paper's settings (1500 particles, 200
// iterations) the swarm reaches the exact optimum on W1–W6.
func TestSwarmPaperWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("paper settings take a few seconds; the random test below covers -short")
	}
	for _, name := range workloads.Names() {
		p := paperProblem(t, name, 9)
		ex, err := Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := Swarm(p, &pso.Settings{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbsOrRel(sr.Makespan, ex.Makespan, 1e-9, 1e-12) {
			t.Errorf("%s: swarm %v, optimum %v (gap %.3f %%)", name, sr.Makespan, ex.Makespan, 100*(sr.Makespan/ex.Makespan-1))
		}
	}
}

// TestSwarmRandomGaps is the smaller, always-run version of the acceptance
// statistics (`packer bench` runs the paper's settings on 50 workloads): on
// 20 random 8-job workloads, 400 particles × 100 iterations reach the optimum
// on most, with median gap ≤ 0.5 % and worst ≤ 4 %. Measured when written:
// optimal on 15 of 20, median 0, worst 3.4 %.
func TestSwarmRandomGaps(t *testing.T) {
	n := 20
	if testing.Short() {
		n = 6
	}
	var gaps []float64
	for seed := 1; seed <= n; seed++ {
		p, err := NewProblem(RandomWorkload(uint64(seed), 8), model.PaperCluster())
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := Swarm(p, &pso.Settings{Particles: 400, Iterations: 100, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if sr.Makespan < ex.Makespan*(1-1e-12) {
			t.Fatalf("seed %d: swarm %v beats the proven optimum %v", seed, sr.Makespan, ex.Makespan)
		}
		if sr.Makespan > sr.PairMakespan {
			t.Fatalf("seed %d: swarm %v worse than its starting pair plan %v", seed, sr.Makespan, sr.PairMakespan)
		}
		gaps = append(gaps, 100*(sr.Makespan/ex.Makespan-1))
	}
	sort.Float64s(gaps)
	optimal := sort.SearchFloat64s(gaps, 1e-9)
	t.Logf("gaps %% (sorted): %.3f", gaps)
	if med, worst := gaps[len(gaps)/2], gaps[len(gaps)-1]; med > 0.5 || worst > 4 || optimal < len(gaps)/2 {
		t.Errorf("median gap %.3f %%, worst %.3f %%, optimal on %d of %d", med, worst, optimal, len(gaps))
	}
}

// TestSwarmSameSeedSamePlan: the same seed gives the same plan document with
// GOMAXPROCS 1 and 2; another seed is allowed to differ.
func TestSwarmSameSeedSamePlan(t *testing.T) {
	p, err := NewProblem(RandomWorkload(11, 12), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	plan := func(procs int) []byte {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		sr, err := Swarm(p, &pso.Settings{Particles: 200, Iterations: 40, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		pl, err := NewPlan(p, sr.Schedule, "random", "pso")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := pl.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	one, two := plan(1), plan(2)
	if !bytes.Equal(one, two) {
		t.Fatalf("GOMAXPROCS 1 and 2 give different plans:\n%s\n---\n%s", one, two)
	}
}

// TestSwarmLargeNeverWorseThanPair: for M beyond the exact solver, the swarm
// returns a feasible schedule no worse than the pair scheduler's and above
// the lower bound, including when jobs outnumber the N VMs (M = 30 > 18).
func TestSwarmLargeNeverWorseThanPair(t *testing.T) {
	for _, m := range []int{19, 30} {
		p, err := NewProblem(RandomWorkload(uint64(m), m), model.PaperCluster())
		if err != nil {
			t.Fatal(err)
		}
		sr, err := Swarm(p, &pso.Settings{Particles: 60, Iterations: 20, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Check(sr.Schedule); err != nil {
			t.Fatal(err)
		}
		lb := LowerBound(p)
		if sr.Makespan > sr.PairMakespan || sr.Makespan < lb {
			t.Errorf("M = %d: swarm %v, pair %v, lower bound %v", m, sr.Makespan, sr.PairMakespan, lb)
		}
	}
}

// TestLowerBound: below the optimum on random workloads, and exact by hand.
//
// Two jobs with F(x) = 100/x (b = −1, neither class) on 1 host × 2 disks:
// every x gives x·F(x) = 100 VM-seconds, so the area bound is 200/2 = 100;
// the longest-job bound is F(2) = 50. The optimum is 100 too: both on one VM
// at once (max(100, 100)), or one after the other on two (50 + 50).
func TestLowerBound(t *testing.T) {
	w := &model.Workload{Name: "hand", Jobs: []model.Job{
		{Name: "a", Model: model.PowerLaw{A: 100, B: -1}}, {Name: "b", Model: model.PowerLaw{A: 100, B: -1}}}}
	p, err := NewProblem(w, model.Cluster{Hosts: 1}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if lb := LowerBound(p); !scalar.EqualWithinAbsOrRel(lb, 100, 1e-9, 1e-9) {
		t.Errorf("hand case: bound %v, want 100", lb)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 100 {
		p, err := NewProblem(RandomWorkload(uint64(100+i), 1+i%9), randomSmallCluster(rng))
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		if lb := LowerBound(p); lb > ex.Makespan*(1+1e-9) || lb <= 0 {
			t.Errorf("case %d: bound %v above the optimum %v", i, lb, ex.Makespan)
		}
	}
}

// TestOrderForCompletion: Smith's rule gives the least mean completion of all
// phase orders (checked by trying every order), and the same makespan.
func TestOrderForCompletion(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	tried := 0
	for i := range 60 {
		p, err := NewProblem(RandomWorkload(uint64(200+i), 4+i%5), randomSmallCluster(rng))
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		s := ex.Schedule
		if len(s.Phases) < 2 {
			continue
		}
		tried++
		got := OrderForCompletion(p, s)
		if !scalar.EqualWithinAbsOrRel(p.Makespan(got), p.Makespan(s), 1e-9, 1e-12) {
			t.Fatalf("case %d: makespan changed %v → %v", i, p.Makespan(s), p.Makespan(got))
		}
		best := math.Inf(1)
		perm := make([]int, len(s.Phases))
		for k := range perm {
			perm[k] = k
		}
		for {
			var o Schedule
			for _, k := range perm {
				o.Phases = append(o.Phases, s.Phases[k])
			}
			best = min(best, p.MeanCompletion(o))
			if !nextPermutation(perm) {
				break
			}
		}
		if mc := p.MeanCompletion(got); !scalar.EqualWithinAbsOrRel(mc, best, 1e-9, 1e-12) {
			t.Errorf("case %d: mean completion %v, best order gives %v", i, mc, best)
		}
	}
	if tried < 20 {
		t.Errorf("only %d schedules with several phases", tried)
	}
}

func nextPermutation(a []int) bool {
	i := len(a) - 2
	for i >= 0 && a[i] >= a[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(a) - 1
	for a[j] <= a[i] {
		j--
	}
	a[i], a[j] = a[j], a[i]
	slices.Reverse(a[i+1:])
	return true
}

// TestPlanBound: a plan's optimum, lower bound and gap survive Verify, and
// Verify catches a wrong gap or an optimum above the makespan.
func TestPlanBound(t *testing.T) {
	p := paperProblem(t, "W1", 9)
	pr, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Exact(p)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewPlan(p, pr.Schedule, "W1", "pair")
	if err != nil {
		t.Fatal(err)
	}
	pl.SetOptimum(ex.Makespan)
	// W1: pair 896.44 s, optimum 779.76 s: gap 100·(896.44 − 779.76)/779.76 ≈ 14.96 %.
	if g := *pl.GapPercent; math.Abs(g-14.96) > 0.01 {
		t.Errorf("gap %v, want about 14.96", g)
	}
	if err := pl.Verify(); err != nil {
		t.Fatal(err)
	}
	doc, _ := pl.MarshalIndent()
	back, err := ParsePlan(doc, "plan.json")
	if err != nil || !reflect.DeepEqual(back.Optimum, pl.Optimum) {
		t.Fatalf("round trip: %v", err)
	}
	bad := *pl
	g := 1.0
	bad.GapPercent = &g
	if err := bad.Verify(); !errors.Is(err, ErrBadPlan) {
		t.Errorf("wrong gap: %v", err)
	}
	bad = *pl
	high := pl.Makespan * 2
	bad.Optimum = &high
	if err := bad.Verify(); !errors.Is(err, ErrBadPlan) {
		t.Errorf("optimum above makespan: %v", err)
	}
}

// ExampleExact plans W1 on the paper's cluster optimally: all five jobs share
// one phase on the 18 primary VMs (overcommitting does not pay here), and the
// VMs the slowest job does not need go to the others so they finish early.
func ExampleExact() {
	w, _ := workloads.Get("W1")
	p, _ := NewProblem(w, model.PaperCluster())
	ex, _ := Exact(p)
	for i, ph := range ex.Schedule.Phases {
		fmt.Printf("phase %d, %.1f s:\n", i+1, p.PhaseDuration(ph))
		for _, a := range ph.Jobs {
			fmt.Printf("  %-8s %2d VMs %-7s %.1f s\n", p.Jobs[a.Job].Name, a.VMs, a.Role, p.Runtime(a.Job, a.VMs, a.Role))
		}
	}
	fmt.Printf("makespan %.1f s, saving %.1f %% against sequential\n", ex.Makespan, 100*(1-ex.Makespan/p.SequentialMakespan()))
	// Output:
	// phase 1, 779.8 s:
	//   s-srt-1   5 VMs primary 687.9 s
	//   s-srt-2   5 VMs primary 687.9 s
	//   s-kmns-1  4 VMs primary 637.5 s
	//   s-kmns-2  3 VMs primary 779.8 s
	//   s-inv-1   1 VMs primary 391.9 s
	// makespan 779.8 s, saving 26.7 % against sequential
}

func BenchmarkExact(b *testing.B) {
	for _, m := range []int{6, 10, 14} {
		p, err := NewProblem(RandomWorkload(1, m), model.PaperCluster())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("M=%d", m), func(b *testing.B) {
			for b.Loop() {
				if _, err := Exact(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSwarm(b *testing.B) {
	for _, m := range []int{8, 30} {
		p, err := NewProblem(RandomWorkload(1, m), model.PaperCluster())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("M=%d/particles=300/iterations=50", m), func(b *testing.B) {
			for b.Loop() {
				if _, err := Swarm(p, &pso.Settings{Particles: 300, Iterations: 50}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
