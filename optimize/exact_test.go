package optimize

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/model"
)

// bruteForce is the reference the exact solver is checked against: it tries
// every set partition of the jobs and, for every phase, every role and every
// VM count of every job (bruteForcePhase). It shares no code with Exact.
func bruteForce(p *model.Problem) float64 {
	m := len(p.Jobs)
	memo := map[uint32]float64{}
	phaseBest := func(s uint32) float64 {
		if v, ok := memo[s]; ok {
			return v
		}
		v := bruteForcePhase(p, s)
		memo[s] = v
		return v
	}
	// Set partitions by recursion: job k joins an existing block or opens one.
	best := math.Inf(1)
	var blocks []uint32
	var part func(k int)
	part = func(k int) {
		if k == m {
			var t float64
			for _, b := range blocks {
				t += phaseBest(b)
			}
			best = min(best, t)
			return
		}
		for i := range blocks {
			blocks[i] |= 1 << k
			part(k + 1)
			blocks[i] &^= 1 << k
		}
		blocks = append(blocks, 1<<k)
		part(k + 1)
		blocks = blocks[:len(blocks)-1]
	}
	part(0)
	return best
}

// bruteForcePhase is the shortest phase of the jobs in the bit set s (+Inf
// if none is feasible): it enumerates every role and VM count of each job,
// with nothing but the constraints of the packing paper's section 5.2 as
// written in model.Problem.Check.
func bruteForcePhase(p *model.Problem, s uint32) float64 {
	c := p.Cluster
	n := c.PrimaryVMs()
	var jobs []int
	for r := s; r != 0; r &= r - 1 {
		jobs = append(jobs, bits.TrailingZeros32(r))
	}
	best := math.Inf(1)
	var rec func(k, prim, host, extra int, dur float64)
	rec = func(k, prim, host, extra int, dur float64) {
		if prim+host > n || dur >= best {
			return
		}
		if k == len(jobs) {
			if overcommitOK(c, prim, host, extra) {
				best = dur
			}
			return
		}
		j := jobs[k]
		for x := 1; x <= n; x++ {
			rec(k+1, prim+x, host, extra, max(dur, p.Runtime(j, x, model.Primary)))
			if p.Jobs[j].CanHost() {
				rec(k+1, prim, host+x, extra, max(dur, p.Runtime(j, x, model.Host)))
			}
			if p.Jobs[j].CanBeExtra() && x <= c.MaxExtraVMs() {
				rec(k+1, prim, host, extra+x, max(dur, p.Runtime(j, x, model.Extra)))
			}
		}
	}
	rec(0, 0, 0, 0, 0)
	return best
}

// overcommitOK is the per-phase rule on overcommitting, written out from the
// packing paper for bruteForce: extras need r host VMs each on their own
// machine, at most ⌊k/r⌋ per machine; a machine with host VMs carries an
// extra; primary VMs use only machines without extras.
func overcommitOK(c model.Cluster, prim, host, extra int) bool {
	k, e := c.DisksPerHost, c.DisksPerHost/c.ExtraRatio
	if extra == 0 {
		return host == 0
	}
	machines := max((extra+e-1)/e, (host+k-1)/k)
	return c.ExtraRatio*extra <= host && host <= k*extra && machines <= c.Hosts && prim <= k*(c.Hosts-machines)
}

// randomSmallCluster draws a cluster small enough for bruteForce: P ≤ 3, k ≤ 3,
// 1 ≤ r ≤ k, 1 ≤ α ≤ 2.
func randomSmallCluster(rng *rand.Rand) model.Cluster {
	k := 1 + rng.IntN(3)
	c := model.Cluster{Hosts: 1 + rng.IntN(3), DisksPerHost: k, ExtraRatio: 1 + rng.IntN(k), Alpha: 1 + rng.Float64()}
	return c.WithDefaults()
}

// randomExact builds the problem of RandomWorkload(seed, m) on cluster c and
// solves it exactly.
func randomExact(t testing.TB, seed uint64, m int, c model.Cluster) (*model.Problem, ExactResult) {
	t.Helper()
	p, err := model.NewProblem(RandomWorkload(seed, m), c)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Exact(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, ex
}

// TestExactEqualsBruteForce is the property test of the acceptance list: on
// random workloads of 1 to 6 jobs on random small clusters, the exact solver's
// makespan equals brute force's.
func TestExactEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	overcommitted := 0
	for i := range cases {
		m := 1 + i%6
		w := RandomWorkload(uint64(i), m)
		if i%5 == 0 {
			// A job that slows down with more VMs (b > 0, allowed by the
			// model) exercises the other branch of the interval logic.
			w.Jobs[0].Model = model.PowerLaw{A: w.Jobs[0].Model.(model.PowerLaw).A, B: 0.3}
		}
		c := randomSmallCluster(rng)
		p, err := model.NewProblem(w, c)
		if err != nil {
			t.Fatal(err)
		}
		if m > c.PrimaryVMs()+c.MaxExtraVMs() && i%2 == 0 {
			// keep some overfull cases, but not half the suite
			continue
		}
		ex, err := Exact(p)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := bruteForce(p)
		if !scalar.EqualWithinAbsOrRel(ex.Makespan, want, 1e-9, 1e-12) {
			t.Errorf("case %d (M=%d, %+v): exact %v, brute force %v", i, m, c, ex.Makespan, want)
		}
		for _, ph := range ex.Schedule.Phases {
			for _, a := range ph.Jobs {
				if a.Role.Overcommitted() {
					overcommitted++
					break
				}
			}
		}
	}
	// The property is only meaningful if overcommitting was chosen sometimes.
	if overcommitted < cases/20 {
		t.Errorf("only %d optimal phases overcommit in %d cases: the test does not exercise extras", overcommitted, cases)
	}
}

// TestExactHandWorked checks one phase by hand. Two jobs on P = 1, k = 2,
// r = 2, α = 1.5 (N = 2, one extra VM at most):
//
//	io  F(x) = 100/x (I/O only),  cpu F(x) = 60/x (CPU only).
//
// Sequential: 100/2 + 60/2 = 80. Concurrent: max(100/1, 60/1) = 100.
// Overcommitted: io hosts on 2 VMs, cpu on 1 extra: max(1.5·50, 1.5·60) = 90.
// Best: sequential, 80. With α = 1.1: max(55, 66) = 66 < 80: overcommit.
func TestExactHandWorked(t *testing.T) {
	w := &model.Workload{Name: "hand", Jobs: []model.Job{
		{Name: "io", Model: model.PowerLaw{A: 100, B: -1}, IOIntensive: true},
		{Name: "cpu", Model: model.PowerLaw{A: 60, B: -1}, CPUIntensive: true},
	}}
	for _, tc := range []struct {
		alpha, want float64
		phases      int
	}{{1.5, 80, 2}, {1.1, 66, 1}} {
		p, err := model.NewProblem(w, model.Cluster{Hosts: 1, Alpha: tc.alpha}.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbsOrRel(ex.Makespan, tc.want, 1e-9, 1e-12) || len(ex.Schedule.Phases) != tc.phases {
			t.Errorf("α = %v: makespan %v in %d phases, want %v in %d", tc.alpha, ex.Makespan, len(ex.Schedule.Phases), tc.want, tc.phases)
		}
	}
}

// TestExactLimit: past MaxExactJobs the solver refuses at once.
func TestExactLimit(t *testing.T) {
	p, err := model.NewProblem(RandomWorkload(1, MaxExactJobs+1), model.PaperCluster())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Exact(p); !errors.Is(err, ErrTooManyJobs) {
		t.Fatalf("got %v, want ErrTooManyJobs", err)
	}
}
