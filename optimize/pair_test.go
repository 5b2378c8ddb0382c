package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/model/modeltest"
)

// The hand-worked fixtures are modeltest's (SmallCluster: 2 hosts × 2
// disks, r = 2, alpha = 1.2).
var (
	smallCluster  = modeltest.SmallCluster
	job           = modeltest.Job
	problem       = modeltest.Problem
	near          = modeltest.Near
	randomProblem = modeltest.RandomProblem
)

func TestPairOvercommitHandWorked(t *testing.T) {
	// A: I/O-only, F_A(n) = 240/n; B: CPU-only, F_B(n) = 120/n; N = 4.
	//   s = F_A(4) + F_B(4) = 60 + 30 = 90
	//   c = min over x of max(F_A(x), F_B(4−x)):
	//       x=1: max(240, 40) = 240; x=2: max(120, 60) = 120; x=3: max(80, 120) = 120 → 120
	//   o = α·max(F_A(4), F_B(2)) = 1.2·max(60, 60) = 72
	// so C_AB = 72, overcommitted: A on 4 host VMs, B on 2 extra VMs.
	p := problem(t, smallCluster(), job("A", 240, -1, false, true), job("B", 120, -1, true, false))
	got := PricePair(p, 0, 1)
	if got.Option != PairOvercommit || !near(got.Cost, 72) {
		t.Fatalf("C_AB = %v by %s, want 72 by overcommit", got.Cost, got.Option)
	}
	want := model.Phase{Jobs: []model.Assignment{{Job: 0, VMs: 4, Role: model.Host}, {Job: 1, VMs: 2, Role: model.Extra}}}
	if fmt.Sprint(got.Phases) != fmt.Sprint([]model.Phase{want}) {
		t.Errorf("phases %v, want %v", got.Phases, want)
	}
	// The order of the arguments does not matter.
	if g2 := PricePair(p, 1, 0); g2.Option != PairOvercommit || !near(g2.Cost, 72) {
		t.Errorf("C_BA = %v by %s", g2.Cost, g2.Option)
	}
}

func TestPairConcurrentHandWorked(t *testing.T) {
	// Two identical jobs of class neither, F(n) = 60·n^−½, N = 4.
	//   s = 2·F(4) = 2·30 = 60
	//   c: x=1: max(F(1), F(3)) = 60; x=2: F(2) = 60/√2 ≈ 42.43; x=3 as x=1 → 30√2
	//   o: not allowed (neither job is I/O- or CPU-only)
	p := problem(t, smallCluster(), job("A", 60, -0.5, false, false), job("B", 60, -0.5, false, false))
	got := PricePair(p, 0, 1)
	if got.Option != PairConcurrent || !near(got.Cost, 30*math.Sqrt2) {
		t.Fatalf("C_AB = %v by %s, want 30√2 concurrent", got.Cost, got.Option)
	}
	if a := got.Phases[0].Jobs; len(got.Phases) != 1 || a[0].VMs != 2 || a[1].VMs != 2 || a[0].Role != model.Primary {
		t.Errorf("phases %v, want A and B on 2 primary VMs each", got.Phases)
	}
}

func TestPairScheduleThreeJobsHandWorked(t *testing.T) {
	// A (I/O) 240/n, B (CPU) 120/n, C (neither) 48/n, N = 4, alpha 1.2.
	//   C_AB = 72 (overcommit, above). Alone: A 60, B 30, C 12.
	//   C_AC: s = 60 + 12 = 72; c: x=3: max(80, 48) = 80, x=2: max(120, 24) → 72.
	//   C_BC: s = 30 + 12 = 42; c: x=3: max(40, 48) = 48, x=2: max(60, 24) → 42.
	// Pairings (M = 3, one job alone):
	//   {AB}+C = 72 + 12 = 84;  {AC}+B = 72 + 30 = 102;  {BC}+A = 42 + 60 = 102.
	// Best: 84, against sequential 60 + 30 + 12 = 102, a saving of 1 − 84/102 ≈ 17.6 %.
	p := problem(t, smallCluster(), job("A", 240, -1, false, true), job("B", 120, -1, true, false), job("C", 48, -1, false, false))
	res, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exact {
		t.Error("3 jobs must be matched exactly")
	}
	if m := p.Makespan(res.Schedule); !near(m, 84) {
		t.Errorf("makespan %v, want 84", m)
	}
	if s := p.SequentialMakespan(); !near(s, 102) {
		t.Errorf("sequential %v, want 102", s)
	}
	// Mean completion: phase 1 (0–72) ends A and B at 72 each; phase 2 runs C
	// from 72 to 84: (72 + 72 + 84)/3 = 76.
	if mc := p.MeanCompletion(res.Schedule); !near(mc, 76) {
		t.Errorf("mean completion %v, want 76", mc)
	}
}

// bruteForcePairs enumerates every pairing of the jobs (M odd: one job alone)
// and, for every pair, every option the paper allows, with every split x, on
// its own, without PricePair: the oracle for PairSchedule.
func bruteForcePairs(p *model.Problem) float64 {
	c := p.Cluster
	n := c.PrimaryVMs()
	f := func(j, vms int) float64 { return p.Jobs[j].Model.Seconds(vms) }
	pairCost := func(i, j int) float64 {
		best := f(i, n) + f(j, n)
		for x := 1; x <= n-1; x++ {
			best = min(best, max(f(i, x), f(j, n-x)))
		}
		ji, jj := p.Jobs[i], p.Jobs[j]
		extras := c.Hosts * (c.DisksPerHost / c.ExtraRatio)
		if extras > 0 {
			if ji.IOIntensive && !ji.CPUIntensive && jj.CPUIntensive && !jj.IOIntensive {
				best = min(best, c.Alpha*max(f(i, n), f(j, extras)))
			}
			if jj.IOIntensive && !jj.CPUIntensive && ji.CPUIntensive && !ji.IOIntensive {
				best = min(best, c.Alpha*max(f(j, n), f(i, extras)))
			}
		}
		return best
	}
	var rec func(left []int) float64
	rec = func(left []int) float64 {
		if len(left) == 0 {
			return 0
		}
		i, rest := left[0], left[1:]
		best := math.Inf(1)
		if len(left)%2 == 1 {
			best = f(i, n) + rec(rest)
		}
		for k, j := range rest {
			others := append(append([]int{}, rest[:k]...), rest[k+1:]...)
			best = min(best, pairCost(i, j)+rec(others))
		}
		return best
	}
	all := make([]int, len(p.Jobs))
	for i := range all {
		all[i] = i
	}
	return rec(all)
}

// randomProblem draws a workload of m jobs with power-law models, random
// classes, on a random cluster.

func TestPairScheduleEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for trial := range 300 {
		m := 1 + trial%10
		p := randomProblem(t, rng, m)
		res, err := PairSchedule(p)
		if err != nil {
			t.Fatal(err)
		}
		got, want := p.Makespan(res.Schedule), bruteForcePairs(p)
		if !scalar.EqualWithinAbsOrRel(got, want, 1e-9, 1e-9) {
			t.Fatalf("trial %d (M = %d, cluster %+v): pair scheduler %v, brute force %v", trial, m, p.Cluster, got, want)
		}
		if seq := p.SequentialMakespan(); got > seq*(1+1e-12) {
			t.Fatalf("trial %d: pair plan %v slower than sequential %v", trial, got, seq)
		}
	}
}

func TestPairGreedyFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	// Below the limit the greedy matching can be compared with the exact one:
	// never better, and a valid pairing.
	for range 100 {
		p := randomProblem(t, rng, 2+rng.IntN(11))
		n := len(p.Jobs)
		cost := pairCosts(p)
		sum := func(cs []PairCost) (float64, int) {
			var s float64
			seen := 0
			for _, c := range cs {
				s += c.Cost
				seen++
				if c.J >= 0 {
					seen++
				}
			}
			return s, seen
		}
		g, gn := sum(matchGreedy(cost))
		e, en := sum(matchExact(cost))
		if gn != n || en != n {
			t.Fatalf("matchings cover %d and %d of %d jobs", gn, en, n)
		}
		if g < e-1e-9 {
			t.Fatalf("greedy %v beats exact %v: the exact matching is wrong", g, e)
		}
	}
	// Above the limit: a heuristic, valid plan, no worse than sequential.
	p := randomProblem(t, rng, MaxExactPairJobs+3)
	res, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Exact {
		t.Error("past the limit the result must not claim exactness")
	}
	if _, err := NewSolution(p, res.Schedule, "pair"); err != nil {
		t.Fatal(err)
	}
	if m, seq := p.Makespan(res.Schedule), p.SequentialMakespan(); m > seq*(1+1e-12) {
		t.Errorf("heuristic pairing %v slower than sequential %v", m, seq)
	}
}

func TestPairScheduleDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := randomProblem(t, rng, 12)
	a, _ := PairSchedule(p)
	for range 5 {
		b, _ := PairSchedule(p)
		if fmt.Sprint(a.Schedule) != fmt.Sprint(b.Schedule) {
			t.Fatal("same problem, different schedules")
		}
	}
}

func benchmarkPair(b *testing.B, m int) {
	rng := rand.New(rand.NewPCG(uint64(m), 9))
	var jobs []model.Job
	for i := range m {
		jobs = append(jobs, job(fmt.Sprintf("j%d", i), 100+rng.Float64()*5000, -1+rng.Float64()*0.9, rng.IntN(2) == 0, rng.IntN(2) == 0))
	}
	p := problem(b, model.PaperCluster(), jobs...)
	res, err := PairSchedule(p)
	if err != nil || !res.Exact || len(res.Pairs) != (m+1)/2 {
		b.Fatalf("M = %d: %v, exact %v", m, err, res.Exact)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := PairSchedule(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPairSchedule(b *testing.B) {
	for _, m := range []int{10, 20, MaxExactPairJobs} {
		b.Run(fmt.Sprintf("M=%d", m), func(b *testing.B) { benchmarkPair(b, m) })
	}
}
