package optimize_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/pso"
	"github.com/packer-sched/packer/workloads"
)

// exactAt is the proven optimum of w on the cluster c with the given hosts.
func exactAt(t *testing.T, w *model.Workload, c model.Cluster, hosts int) float64 {
	t.Helper()
	c.Hosts = hosts
	p, err := model.NewProblem(w, c.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.Exact(p)
	if err != nil {
		t.Fatal(err)
	}
	return res.Makespan
}

// checkSizeExact sizes w for the deadline OPT(at), the exact optimum on at
// hosts, and checks the answer P against the exact solver: OPT(P) ≤ D <
// OPT(P − 1), with Size calling it exact. With auto planning exactly up to
// 16 jobs, every answer must be exact. The optima are computed once per
// host count (at is often P).
func checkSizeExact(t *testing.T, w *model.Workload, c model.Cluster, at int) {
	t.Helper()
	opt := map[int]float64{}
	exact := func(hosts int) float64 {
		if _, ok := opt[hosts]; !ok {
			opt[hosts] = exactAt(t, w, c, hosts)
		}
		return opt[hosts]
	}
	d := exact(at)
	res, err := optimize.Size(w, c, d, &optimize.SizeSettings{MaxHosts: 24})
	if err != nil {
		t.Fatalf("%s, deadline OPT(%d) = %v: %v", w.Name, at, d, err)
	}
	if !res.Exact || res.Lo != res.Hosts {
		t.Errorf("%s, deadline OPT(%d): not exact: %s", w.Name, at, res)
	}
	if res.Hosts > at {
		t.Errorf("%s: answer %d hosts, but %d meet the deadline OPT(%d)", w.Name, res.Hosts, at, at)
	}
	if o := exact(res.Hosts); o > d*(1+1e-9) {
		t.Errorf("%s: OPT(%d) = %v > deadline %v", w.Name, res.Hosts, o, d)
	}
	if res.Hosts > 1 {
		if o := exact(res.Hosts - 1); o <= d*(1+1e-9) {
			t.Errorf("%s: OPT(%d) = %v ≤ deadline %v, yet the answer is %d hosts", w.Name, res.Hosts-1, o, d, res.Hosts)
		}
		if res.Proof <= d {
			t.Errorf("%s: proof %v at %d hosts is not above the deadline %v", w.Name, res.Proof, res.Hosts-1, d)
		}
	}
}

// TestSizeExactPaper: W1–W6 on the paper's cluster, deadlines OPT(P) for a
// few P, answered exactly.
func TestSizeExactPaper(t *testing.T) {
	for _, name := range []string{"W1", "W2", "W3", "W4", "W5", "W6"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, err := workloads.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range []int{3, 9} {
				checkSizeExact(t, w, model.Cluster{}, at)
			}
		})
	}
}

// TestSizeExactRandom: 20 random workloads of up to 16 jobs on random
// clusters (alpha 1–2, r ≤ k), deadlines OPT(P) for a random P. The even
// ones have 13–16 jobs, one or two disks per host and P ≤ 4k + 1: the exact
// solver takes up to about a second a count there, where one-disk hosts
// with an extra VM each take it to ten seconds and more from 6 hosts on.
// The odd ones have 4–12 jobs, one to four disks and P ≤ 12.
func TestSizeExactRandom(t *testing.T) {
	large := 0
	for i := range 20 {
		rng := rand.New(rand.NewPCG(uint64(i), 37))
		m, k, top := 4+rng.IntN(9), 1+rng.IntN(4), 12
		if i%2 == 0 {
			m, k = 13+(i/2)%4, 1+rng.IntN(2)
			top = 4*k + 1
			large++
		}
		w := optimize.RandomWorkload(uint64(3700+i), m)
		c := model.Cluster{DisksPerHost: k, ExtraRatio: 1 + rng.IntN(k), Alpha: 1 + rng.Float64()}
		at := 1 + rng.IntN(top)
		t.Run(fmt.Sprintf("%s-k%d-r%d-at%d", w.Name, k, c.ExtraRatio, at), func(t *testing.T) {
			t.Parallel()
			checkSizeExact(t, w, c, at)
		})
	}
	if large != 10 {
		t.Fatalf("%d workloads of 13–16 jobs, want 10", large)
	}
}

// TestSizeCurve: the curve is sorted, each plan's makespan is at least its
// bound, and bounds never rise with hosts.
func TestSizeCurve(t *testing.T) {
	w := optimize.RandomWorkload(5, 10)
	d := exactAt(t, w, model.Cluster{}, 4)
	var seen int
	res, err := optimize.Size(w, model.Cluster{}, d, &optimize.SizeSettings{Progress: func(optimize.SizePoint) { seen++ }})
	if err != nil {
		t.Fatal(err)
	}
	if seen < len(res.Curve) {
		t.Errorf("progress called %d times for %d points", seen, len(res.Curve))
	}
	for i, pt := range res.Curve {
		c := model.Cluster{Hosts: pt.Hosts}.WithDefaults()
		p, err := model.NewProblem(w, c)
		if err != nil {
			t.Fatal(err)
		}
		if pt.Area != optimize.LowerBound(p) || pt.Bound != max(pt.Area, pt.PlanBound) {
			t.Errorf("%d hosts: area %v (LowerBound %v), plan's bound %v, bound %v: want the area bound and the larger of the two",
				pt.Hosts, pt.Area, optimize.LowerBound(p), pt.PlanBound, pt.Bound)
		}
		if pt.Planned != (pt.PlanBound > 0) || pt.Optimal && math.Abs(pt.PlanBound-pt.Makespan) > 1e-9*pt.Makespan {
			t.Errorf("%d hosts: planned %v, optimal %v, makespan %v, plan's bound %v", pt.Hosts, pt.Planned, pt.Optimal, pt.Makespan, pt.PlanBound)
		}
		if pt.Planned && pt.Makespan < pt.Bound*(1-1e-9) {
			t.Errorf("%d hosts: makespan %v under bound %v", pt.Hosts, pt.Makespan, pt.Bound)
		}
		if i > 0 && res.Curve[i-1].Hosts >= pt.Hosts {
			t.Errorf("curve not sorted: %d then %d", res.Curve[i-1].Hosts, pt.Hosts)
		}
	}
	if res.Plan == nil || res.Cluster.Hosts != res.Hosts || res.Makespan > d*(1+1e-9) {
		t.Errorf("result at %d hosts: plan %v, cluster hosts %d, makespan %v > %v", res.Hosts, res.Plan != nil, res.Cluster.Hosts, res.Makespan, d)
	}
}

// TestSizeErrors: each bad input gets its typed error.
func TestSizeErrors(t *testing.T) {
	w := optimize.RandomWorkload(1, 6)
	// On one host of two disks, a deadline just above the longest job's
	// best time fits each job alone but not all six one after another.
	one, err := model.NewProblem(w, model.Cluster{Hosts: 1}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	longest := 0.0
	for j := range w.Jobs {
		longest = max(longest, min(one.Runtime(j, 1, model.Primary), one.Runtime(j, 2, model.Primary)))
	}
	long := &model.Workload{Name: "long", Jobs: []model.Job{{Name: "slow", Model: model.PowerLaw{A: 1e6, B: 0}}}}
	for _, tc := range []struct {
		name     string
		w        *model.Workload
		deadline float64
		set      *optimize.SizeSettings
		want     error
	}{
		{"zero deadline", w, 0, nil, optimize.ErrBadDeadline},
		{"negative deadline", w, -5, nil, optimize.ErrBadDeadline},
		{"NaN deadline", w, math.NaN(), nil, optimize.ErrBadDeadline},
		{"job longer than deadline", long, 3600, nil, optimize.ErrJobTooLong},
		{"unreachable at max hosts", w, longest * 1.01, &optimize.SizeSettings{MaxHosts: 1}, optimize.ErrUnreachable},
		{"negative max hosts", w, 3600, &optimize.SizeSettings{MaxHosts: -1}, optimize.ErrInvalidSetting},
		{"negative budget", w, 3600, &optimize.SizeSettings{Budget: -time.Second}, optimize.ErrInvalidSetting},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := optimize.Size(tc.w, model.Cluster{}, tc.deadline, tc.set)
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

// TestSizeResultBetween: the interval's wording names the unsettled counts
// and what rules out fewer.
func TestSizeResultBetween(t *testing.T) {
	r := &optimize.SizeResult{Deadline: 3600, Hosts: 9, Lo: 7, Proof: 4000}
	want := "between 7 and 9 hosts: 9 meet the deadline " + model.FormatSeconds(3600) +
		"; 7 to 8 not settled by the bounds; fewer than 7 are ruled out (lower bound at 6: " + model.FormatSeconds(4000) + " > deadline)"
	if got := r.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	r = &optimize.SizeResult{Deadline: 3600, Hosts: 2, Lo: 1}
	if got := r.String(); !strings.Contains(got, "between 1 and 2 hosts") || !strings.Contains(got, "; 1 not settled by the bounds") || strings.Contains(got, "ruled out") {
		t.Errorf("got %s", got)
	}
}

// TestSizeBudget: plans past the exact size share the budget, two sixths
// for the first, a sixth each for the next three, and of the last sixth a
// twelfth, then each half the one before, for any the upward search still
// needs, so that they never add up to more than the budget; exact plans
// take none of it. Size reads no clock, so the sums are exact.
func TestSizeBudget(t *testing.T) {
	w := optimize.RandomWorkload(7, 24)
	budget := 2 * time.Second
	res, err := optimize.Size(w, model.Cluster{}, 3*3600, &optimize.SizeSettings{Method: optimize.MethodSwarm, Budget: budget,
		Solve: &optimize.Settings{Swarm: &pso.Settings{Particles: 20, Iterations: 10, Seed: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var want time.Duration
	for i := range res.Plans {
		if i < 4 {
			want += budget * []time.Duration{2, 1, 1, 1}[i] / 6
		} else {
			want += budget / 12 >> (i - 4)
		}
	}
	if res.Plans == 0 || res.Spent != want || res.Spent > budget {
		t.Errorf("%d plans spent %v, want %v", res.Plans, res.Spent, want)
	}
	res, err = optimize.Size(optimize.RandomWorkload(7, 8), model.Cluster{}, 3600, &optimize.SizeSettings{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if res.Spent != 0 || res.Plans == 0 {
		t.Errorf("exact plans spent %v of the budget in %d plans", res.Spent, res.Plans)
	}
}

// TestSizeSeededPlansNeverRise: every plan starts its swarm at the plans
// for fewer hosts, so heuristic plans' makespans never rise with hosts,
// though each swarm alone (10 particles, 3 iterations) is far from the
// optimum.
func TestSizeSeededPlansNeverRise(t *testing.T) {
	// Without the seeds, the plans for this workload and deadline rise from
	// 9 to 10 hosts.
	w := optimize.RandomWorkload(1, 30)
	for _, method := range []optimize.Method{optimize.MethodSwarm, optimize.MethodAuto} {
		p, err := model.NewProblem(w, model.Cluster{Hosts: 6}.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		res, err := optimize.Size(w, model.Cluster{}, 1.3*optimize.LowerBound(p), &optimize.SizeSettings{Method: method, MaxHosts: 30,
			Solve: &optimize.Settings{Swarm: &pso.Settings{Particles: 10, Iterations: 3, Seed: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		planned, last := 0, math.Inf(1)
		for _, pt := range res.Curve {
			if !pt.Planned {
				continue
			}
			planned++
			if pt.Makespan > last*(1+1e-9) {
				t.Errorf("%s: plan on %d hosts %v, above %v for fewer hosts", method, pt.Hosts, pt.Makespan, last)
			}
			last = min(last, pt.Makespan)
		}
		if planned < 3 {
			t.Errorf("%s: %d plans; the test wants at least 3 to compare", method, planned)
		}
	}
}

// TestSizeSeedsFitTheSwarm: a swarm of two particles takes the pair plan
// and one earlier plan, never more starts than it has particles.
func TestSizeSeedsFitTheSwarm(t *testing.T) {
	w := optimize.RandomWorkload(1, 30)
	p, err := model.NewProblem(w, model.Cluster{Hosts: 6}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.Size(w, model.Cluster{}, 1.3*optimize.LowerBound(p), &optimize.SizeSettings{Method: optimize.MethodSwarm, MaxHosts: 30,
		Solve: &optimize.Settings{Swarm: &pso.Settings{Particles: 2, Iterations: 2, Seed: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Plans < 3 {
		t.Errorf("%d plans; the test wants at least 3, so that two earlier plans could seed the last", res.Plans)
	}
}
