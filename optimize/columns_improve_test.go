package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestImproveMergesPhases: two jobs F(x) = 100·x^−0.5 on 2 hosts × 2 disks
// (N = 4), neither class, so primary only. Alone on all 4 VMs each takes
// 100/√4 = 50 s: 100 s in two phases. Together on 2 VMs each they take
// 100/√2 = 70.71 s, so moving one job into the other's phase (which empties
// its own) saves 29.29 s.
func TestImproveMergesPhases(t *testing.T) {
	job := func(name string) model.Job { return model.Job{Name: name, Model: model.PowerLaw{A: 100, B: -0.5}} }
	p, err := model.NewProblem(&model.Workload{Name: "two", Jobs: []model.Job{job("a"), job("b")}}, model.Cluster{Hosts: 2}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	seq := model.Sequential(p)
	if ms := p.Makespan(seq); math.Abs(ms-100) > 1e-9 {
		t.Fatalf("sequential makespan %v, want 100", ms)
	}
	s := newPhaseSolver(p).improve(seq, 1, nil)
	if err := p.Check(s); err != nil {
		t.Fatal(err)
	}
	if len(s.Phases) != 1 || math.Abs(p.Makespan(s)-100/math.Sqrt2) > 1e-9 {
		t.Errorf("improved: %d phases, makespan %v; want 1 phase of %v", len(s.Phases), p.Makespan(s), 100/math.Sqrt2)
	}
}

// TestImproveProperty: on random workloads and clusters (k ∈ 1..3, r ≤ k),
// improving the pair plan and the sequential plan gives a schedule the model
// accepts (every job once, capacities, roles), never longer than where it
// started and never below the exact optimum; with a stop that is already
// true it still returns a valid schedule no longer than its input.
func TestImproveProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	gained := 0
	for i := range 40 {
		p, ex, pair := pairCase(t, rng, uint64(700+i), 3+i%10, i%2 == 1)
		ps := newPhaseSolver(p)
		for _, start := range []model.Schedule{pair, model.Sequential(p)} {
			for _, stop := range []func() bool{nil, func() bool { return true }} {
				s := ps.improve(start, 1, stop)
				if err := p.Check(s); err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				got, was := p.Makespan(s), p.Makespan(start)
				if got > was*(1+1e-12) || got < ex.Makespan*(1-1e-9) {
					t.Errorf("case %d: improved %v from %v, optimum %v", i, got, was, ex.Makespan)
				}
				if stop == nil && got < was*(1-1e-9) {
					gained++
				}
			}
		}
	}
	// Both starting plans are far from optimal on most of these (the
	// sequential one always unless one job fills the cluster alone).
	if gained < 40 {
		t.Errorf("improve shortened %d of 80 plans, want at least 40", gained)
	}
}

// TestColumnsFinalBound: column generation cut off by the round limit ends
// with a final bound round on the last LP's duals; that bound (before the
// cap at the plan) never exceeds the exact optimum.
func TestColumnsFinalBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	raised, capped := 0, 0
	for i := range 30 {
		m := 4 + i%9
		p, ex, pair := pairCase(t, rng, uint64(800+i), m, i%3 == 2)
		opt := ColumnsOptions{Rounds: 1 + i%4}
		res, err := Columns(p, []model.Schedule{pair}, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.noFinalBound = true
		without, err := Columns(p, []model.Schedule{pair}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Ended != EndedRounds && res.Ended != EndedConverged && res.Ended != EndedTolerance {
			t.Errorf("case %d: ended %q", i, res.Ended)
		}
		if res.proven > ex.Makespan*(1+1e-9) {
			t.Errorf("case %d (M = %d, %d rounds): bound %v above the optimum %v", i, m, res.Rounds, res.proven, ex.Makespan)
		}
		if res.proven > without.proven*(1+1e-9) {
			raised++
		}
		if res.Ended == EndedRounds {
			capped++
		}
	}
	// Cut at 1 to 4 rounds, most runs have had no full round: the final one
	// is then their only bound beyond LowerBound's.
	if raised < capped/2 {
		t.Errorf("the final bound round raised the bound in %d of the %d runs the round cap ended", raised, capped)
	}
	t.Logf("raised %d of %d capped", raised, capped)
}

// pairCase is RandomWorkload(seed, m) on the paper's cluster, or on a random
// small one when small, with its exact optimum and its pair plan.
func pairCase(t *testing.T, rng *rand.Rand, seed uint64, m int, small bool) (*model.Problem, ExactResult, model.Schedule) {
	t.Helper()
	c := model.PaperCluster()
	if small {
		c = randomSmallCluster(rng)
	}
	p, ex := randomExact(t, seed, m, c)
	pr, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, ex, pr.Schedule
}

// TestMoveOrSwapAsksStop: two packed phases of 30 jobs each offer more swaps
// than swapTick, so moveOrSwap asks stop while it prices them; with a stop
// that says no it makes the same change as without one, and with one that
// says yes it leaves both phases as they were.
func TestMoveOrSwapAsksStop(t *testing.T) {
	p := randomOnHosts(t, 3, 60, 20)
	ps := newPhaseSolver(p)
	start := func() []loosePhase {
		var out []loosePhase
		for h := range 2 {
			var jobs []looseJob
			for j := h; j < 60; j += 2 {
				jobs = append(jobs, looseJob{j, rolePrimary})
			}
			out = append(out, ps.newLoosePhase(jobs))
		}
		return out
	}
	free, asked := start(), start()
	calls := 0
	changed, _ := ps.moveOrSwap(free, 0, 1, 1, nil)
	got, stopped := ps.moveOrSwap(asked, 0, 1, 1, func() bool { calls++; return false })
	if got != changed || stopped || !sameLoose(asked, free) {
		t.Errorf("with a stop that says no: changed %v, stopped %v, phases %v; without one: %v, %v", got, stopped, asked, changed, free)
	}
	if calls == 0 {
		t.Errorf("stop never asked over two phases of 30 jobs")
	}
	cut, was := start(), start()
	ids := []uint64{cut[0].id, cut[1].id}
	if got, stopped := ps.moveOrSwap(cut, 0, 1, 1, func() bool { return true }); got || !stopped || !sameLoose(cut, was) || cut[0].id != ids[0] || cut[1].id != ids[1] {
		t.Errorf("a stop that says yes: changed %v, stopped %v; the phases changed: %v", got, stopped, !sameLoose(cut, was))
	}
	t.Logf("stop asked %d times, a change made: %v", calls, changed)
}

// TestMoveOrSwapShared: on random pairs of phases, from one job against
// sixty to 45 against 45, with the roles each job's class allows,
// on 9 and 50 hosts, moveOrSwap makes the change a plain search makes
// (bestChange: every move and swap priced in full, in order, the first of
// the best gains kept; the best move first on pairs of movesFirst places
// or more, such as 40 against 30), on one goroutine and on 2, 3 and 8; it
// asks stop as many times on each, and with a stop that says yes at its
// k-th question it asks k times on each and leaves both phases as they
// were. Some of the moves taken first must differ from the best of moves
// and swaps together, or the test would not tell the two apart.
func TestMoveOrSwapShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 77))
	sizes := []struct{ hosts, a, b int }{{50, 1, 60}, {50, 60, 1}, {50, 30, 30}, {50, 45, 45}, {50, 20, 5}, {9, 6, 6}, {9, 1, 12}, {9, 12, 2}, {50, 40, 30}, {50, 30, 40}}
	shared, changes, asked, movedFirst, differs := 0, 0, 0, 0, 0
	for trial := range 100 {
		c := sizes[trial%len(sizes)]
		p := randomOnHosts(t, uint64(trial), c.a+c.b, c.hosts)
		ps := newPhaseSolver(p)
		perm := rng.Perm(c.a + c.b)
		phase := func(jobs []int) loosePhase {
			var out []looseJob
			for _, j := range jobs {
				roles := ps.roles(j)
				out = append(out, looseJob{j, roles[rng.IntN(len(roles))]})
			}
			return ps.newLoosePhase(out)
		}
		start := []loosePhase{phase(perm[:c.a]), phase(perm[c.a:])}
		if math.IsInf(start[0].T, 1) || math.IsInf(start[1].T, 1) {
			continue // a phase that does not fit is not a plan's
		}
		a := trial / len(sizes) % 2 // swaps only where a precedes b: every size both ways
		b := 1 - a
		wantA, wantB := bestChange(ps, start[a], start[b], a < b)
		if wantA != nil {
			changes++
		}
		if a < b && places(start[a], start[b], true) >= movesFirst {
			if na, _ := bestChangeOf(ps, start[a], start[b], false); na != nil {
				movedFirst++
				if oa, ob := bestChangeOf(ps, start[a], start[b], true); !slices.Equal(oa, wantA) || !slices.Equal(ob, wantB) {
					differs++
				}
			}
		}
		if places(start[a], start[b], a < b) >= parallelSwaps {
			shared++
		}
		asks := -1
		for _, workers := range []int{1, 2, 3, 8} {
			got := slices.Clone(start)
			n := 0
			changed, stopped := ps.moveOrSwap(got, a, b, workers, func() bool { n++; return false })
			want := slices.Clone(start)
			if wantA != nil {
				want[a], want[b] = ps.newLoosePhase(wantA), ps.newLoosePhase(wantB)
			}
			if stopped || changed != (wantA != nil) || !sameLoose(got, want) {
				t.Fatalf("trial %d (%d and %d jobs on %d hosts), %d workers: changed %v, stopped %v, phases %v; the plain search: %v",
					trial, c.a, c.b, c.hosts, workers, changed, stopped, got, want)
			}
			if asks < 0 {
				if asks = n; n >= 2 {
					asked++
				}
			} else if n != asks {
				t.Errorf("trial %d, %d workers: stop asked %d times, %d on one goroutine", trial, workers, n, asks)
			}
			for _, k := range []int{1, 2, asks} {
				if k < 1 || k > asks {
					continue
				}
				cut, m := slices.Clone(start), 0
				changed, stopped := ps.moveOrSwap(cut, a, b, workers, func() bool { m++; return m == k })
				if changed || !stopped || m != k || !sameLoose(cut, start) {
					t.Errorf("trial %d, %d workers, stop says yes at question %d: changed %v, stopped %v, asked %d times, phases kept %v",
						trial, workers, k, changed, stopped, m, sameLoose(cut, start))
				}
			}
		}
	}
	t.Logf("%d pairs with enough places to be shared out, %d changes made, %d of them moves taken before swaps (%d not the best of moves and swaps), %d pairs asking stop twice or more",
		shared, changes, movedFirst, differs, asked)
	if shared < 30 || changes < 20 || movedFirst < 5 || differs < 3 || asked < 8 {
		t.Errorf("only %d pairs searched on several goroutines, %d changes made, %d moves taken before swaps (%d not the best of all) and %d pairs asking stop twice: the test is too weak",
			shared, changes, movedFirst, differs, asked)
	}
}

// bestChange is the change moveOrSwap looks for, by brute force: every move
// to pb of a job of pa whose absence shortens pa and (if swaps) every swap
// of a job of pa with one of pb where one of the two is such a job (the
// changes moveOrSwap looks at), in every role, priced without limits, in
// moveOrSwap's order; the first whose gain is the largest, if it is above
// 1e-9 of the pair's length. Where the pair has movesFirst places or more,
// the best move if one gains, else the best change.
func bestChange(ps *phaseSolver, pa, pb loosePhase, swaps bool) (na, nb []looseJob) {
	if swaps && len(pa.jobs)*(len(pb.jobs)+1) >= movesFirst {
		if na, nb := bestChangeOf(ps, pa, pb, false); na != nil {
			return na, nb
		}
	}
	return bestChangeOf(ps, pa, pb, swaps)
}

// bestChangeOf is bestChange's search, over moves and, if swaps, swaps.
func bestChangeOf(ps *phaseSolver, pa, pb loosePhase, swaps bool) (na, nb []looseJob) {
	was := pa.T + pb.T
	best := 1e-9 * was
	try := func(a, b []looseJob) {
		_, ta := ps.price(a, math.Inf(1))
		_, tb := ps.price(b, math.Inf(1))
		if g := was - ta - tb; g > best {
			best, na, nb = g, a, b
		}
	}
	shortens := func(ph loosePhase, i int) bool {
		_, t := ps.price(slices.Delete(slices.Clone(ph.jobs), i, i+1), math.Inf(1))
		return t < ph.T
	}
	for i, x := range pa.jobs {
		rest := slices.Delete(slices.Clone(pa.jobs), i, i+1)
		critical := shortens(pa, i)
		for _, r := range ps.roles(x.job) {
			if critical {
				try(rest, append(slices.Clone(pb.jobs), looseJob{x.job, r}))
			}
		}
		if !swaps {
			continue
		}
		for k, z := range pb.jobs {
			if !critical && !shortens(pb, k) {
				continue
			}
			for _, rx := range ps.roles(x.job) {
				for _, rz := range ps.roles(z.job) {
					b := slices.Clone(pb.jobs)
					b[k] = looseJob{x.job, rx}
					try(append(slices.Clone(rest), looseJob{z.job, rz}), b)
				}
			}
		}
	}
	return na, nb
}

// TestPriceChangeAgreesWithPrice: a change priced against a phase's
// memo of sums (change.price) lasts what price finds for its jobs, to the
// bit, on random phases (roles each job's class allows, hosts without
// extras and the reverse included) on small, 20-host and 50-host clusters,
// for a job taken out, put in, both, and swapped in place, with limits from
// below the shortest candidate to above the longest; the memo is reused
// across the changes of a phase, as a pair's search reuses it. Half the
// phases have at least memoJobs jobs, whose changes the memo prices; the
// others go to price itself. The sums a change reads, every field, are
// those of its jobs added up afresh (the VM bounds of hosts and extras
// rarely decide a duration, so a slip there would hide from the prices).
func TestPriceChangeAgreesWithPrice(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 51))
	var finite, inf [2]int // by whether the memo priced the change
	for i := range 400 {
		m := 3 + rng.IntN(12)
		c := randomSmallCluster(rng)
		if i%3 == 0 {
			c = model.Cluster{Hosts: 50}.WithDefaults()
		}
		large := i%2 == 1
		if large {
			m = memoJobs + 2 + rng.IntN(40)
			c = model.Cluster{Hosts: []int{20, 50}[rng.IntN(2)]}.WithDefaults()
		}
		p, err := model.NewProblem(RandomWorkload(uint64(5100+i), m), c)
		if err != nil {
			t.Fatal(err)
		}
		ps := newPhaseSolver(p)
		pick := func(j int) looseJob {
			r := ps.roles(j)
			return looseJob{j, r[rng.IntN(len(r))]}
		}
		perm := rng.Perm(m)
		n := 1 + rng.IntN(m-1)
		if large {
			n = memoJobs + rng.IntN(m-memoJobs)
		}
		var jobs []looseJob
		for _, j := range perm[:n] {
			jobs = append(jobs, pick(j))
		}
		memo := newSumsMemo(jobs)
		_, T0 := ps.price(jobs, math.Inf(1))
		cands := ps.cands
		for range 16 {
			ch := change{base: memo, out: -1, in: noJob}
			switch rng.IntN(4) {
			case 0:
				ch.out = rng.IntN(n)
			case 1:
				ch.in = pick(perm[n])
			default:
				ch.out, ch.in, ch.swap = rng.IntN(n), pick(perm[n]), rng.IntN(2) == 0
			}
			limit := cands[0] * (0.5 + rng.Float64())
			switch {
			case large && rng.IntN(4) > 0 && !math.IsInf(T0, 1):
				// Around the phase's own duration: a random candidate
				// lies below what dozens of jobs need.
				limit = T0 * (0.8 + 0.4*rng.Float64())
			case rng.IntN(4) > 0:
				limit = cands[rng.IntN(len(cands))] * (1 + 1e-3*(rng.Float64()-0.5))
			}
			want := append([]looseJob(nil), jobs...)
			switch {
			case ch.swap:
				want[ch.out] = ch.in
			case ch.out >= 0:
				want = slices.Delete(want, ch.out, ch.out+1)
				if ch.in.job >= 0 {
					want = append(want, ch.in)
				}
			default:
				want = append(want, ch.in)
			}
			if got := ch.jobs(); !slices.Equal(got, want) {
				t.Fatalf("case %d: jobs %v, change out %d in %v swap %v: %v, want %v", i, jobs, ch.out, ch.in, ch.swap, got, want)
			}
			for range 2 {
				// The memo's sums with the change's job taken out and
				// its job put in are its jobs' sums added up afresh,
				// every field.
				k := rng.IntN(len(cands))
				got, fresh := memo.sums(ps, k), candSums{}
				if ch.out >= 0 {
					got.add(ps, jobs[ch.out], cands[k], -1)
				}
				if ch.in.job >= 0 {
					got.add(ps, ch.in, cands[k], 1)
				}
				for _, x := range want {
					fresh.add(ps, x, cands[k], 1)
				}
				if got != fresh {
					t.Fatalf("case %d: %v at %v: sums by change %+v, added up %+v", i, want, cands[k], got, fresh)
				}
			}
			_, T := ps.price(want, limit)
			if got := ch.price(ps, limit); got != T {
				t.Fatalf("case %d: %v at limit %v: change.price %v, price %v", i, want, limit, got, T)
			}
			path := 0
			if n >= memoJobs {
				path = 1
			}
			if math.IsInf(T, 1) {
				inf[path]++
			} else {
				finite[path]++
			}
		}
	}
	t.Logf("price: %d finite, %d not; the memo: %d finite, %d not", finite[0], inf[0], finite[1], inf[1])
	for path, name := range []string{"price", "the memo"} {
		if finite[path] < 300 || inf[path] < 300 {
			t.Errorf("the cases %s priced are lopsided: %d finite, %d not", name, finite[path], inf[path])
		}
	}
}

// sameLoose reports whether two lists of phases hold the same jobs in the
// same roles, durations and durations without each job: the same plan,
// whatever ids newLoosePhase gave them.
func sameLoose(a, b []loosePhase) bool {
	return slices.EqualFunc(a, b, func(x, y loosePhase) bool {
		return slices.Equal(x.jobs, y.jobs) && x.T == y.T && slices.Equal(x.without, y.without)
	})
}

// TestImproveSkipsCleanPairs: localSearch's record of the pairs of phases
// that moveOrSwap found nothing for (cleanPairs) changes nothing it finds,
// and saves work: from pair plans of 30 and 60 jobs on 9 hosts, and of 60
// on 20, it ends with the same phases as the plain search, which looks at
// every pair every pass, and asks stop less often (once a pair priced). On
// the smallest, improve, which keeps the record across its rounds of lns,
// gives the same plan with it as without.
func TestImproveSkipsCleanPairs(t *testing.T) {
	for _, c := range []struct {
		seed     uint64
		m, hosts int
	}{{1, 30, 9}, {2, 60, 9}, {3, 60, 20}} {
		cluster := model.PaperCluster()
		cluster.Hosts = c.hosts
		p, pr := randomPairPlan(t, c.seed, c.m, cluster)
		ps := newPhaseSolver(p)
		plain, clean := ps.loosePhases(pr.Schedule), ps.loosePhases(pr.Schedule)
		var plainAsks, cleanAsks int
		ps.localSearch(plain, nil, 1, func() bool { plainAsks++; return false })
		ps.localSearch(clean, cleanPairs{}, 1, func() bool { cleanAsks++; return false })
		if !sameLoose(plain, clean) {
			t.Errorf("%d jobs on %d hosts: skipping clean pairs gives %v, the plain search %v", c.m, c.hosts, clean, plain)
		}
		if cleanAsks >= plainAsks {
			t.Errorf("%d jobs on %d hosts: stop asked %d times skipping clean pairs, %d without", c.m, c.hosts, cleanAsks, plainAsks)
		}
		was, got := p.Makespan(pr.Schedule), p.Makespan(ps.looseSchedule(plain))
		if got >= was {
			t.Errorf("%d jobs on %d hosts: moves and swaps gained nothing on the pair plan (%v s), a case that tests nothing", c.m, c.hosts, was)
		}
		t.Logf("%d jobs on %d hosts: %.1f → %.1f s; stop asked %d times, %d plain", c.m, c.hosts, was, got, cleanAsks, plainAsks)
		if c.m > 30 {
			continue
		}
		if a, b := ps.improveWith(pr.Schedule, nil, 1, nil), ps.improve(pr.Schedule, 1, nil); !reflect.DeepEqual(a, b) {
			t.Errorf("%d jobs on %d hosts: improve gives %v, without the record of clean pairs %v", c.m, c.hosts, p.Makespan(b), p.Makespan(a))
		}
	}
}

// TestImproveShared: improve on 1, 2 and 8 goroutines, from the plans of
// 100 and 200 jobs on 50 hosts at 1,500 work units (phases of dozens of
// jobs), gives the same plan and asks stop as many times, with a stop that
// says yes from question 400 on, and from question 5,000 on.
func TestImproveShared(t *testing.T) {
	for _, m := range []int{100, 200} {
		p := randomOnHosts(t, 4, m, 50)
		res, err := Solve(p, MethodColumns, &Settings{WorkLimit: 1500})
		if err != nil {
			t.Fatal(err)
		}
		ps := newPhaseSolver(p)
		for _, budget := range []int{400, 5000} {
			var first model.Schedule
			firstAsks := 0
			for _, workers := range []int{1, 2, 8} {
				n := 0
				s := ps.improve(res.Schedule, workers, func() bool { n++; return n >= budget })
				if workers == 1 {
					first, firstAsks = s, n
					continue
				}
				if !reflect.DeepEqual(s, first) || n != firstAsks {
					t.Errorf("%d jobs, stop at %d: %d workers give %.1f s after %d questions, 1 gives %.1f s after %d",
						m, budget, workers, p.Makespan(s), n, p.Makespan(first), firstAsks)
				}
			}
			t.Logf("%d jobs, stop at %d: %.1f -> %.1f s, %d questions", m, budget, p.Makespan(res.Schedule), p.Makespan(first), firstAsks)
			if budget > 1000 && p.Makespan(first) >= p.Makespan(res.Schedule) {
				t.Errorf("%d jobs: improve found nothing to improve, so the test compares nothing", m)
			}
		}
	}
}

// BenchmarkImprove: improve from the plan Solve's column generation makes
// of 200 jobs on 50 hosts in 3,000 work units (three phases of about sixty
// jobs and a dozen of one to four), 3,000 questions to stop, on one
// goroutine and on two (TestImproveShared checks that such plans come out
// the same).
func BenchmarkImprove(b *testing.B) {
	p := randomOnHosts(b, 2, 200, 50)
	res, err := Solve(p, MethodColumns, &Settings{WorkLimit: 3000})
	if err != nil {
		b.Fatal(err)
	}
	ps := newPhaseSolver(p)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for range b.N {
				n := 0
				ps.improve(res.Schedule, workers, func() bool { n++; return n > 3000 })
			}
		})
	}
}

// TestImproverGoesOn: an improver cut by stop goes on where it stood when
// run again on the plan it returned. From the pair plan of 60 jobs on 9
// hosts, cut after 40 questions, then run to its end: each plan is valid
// and no longer than the one before, the improver holds the plan it
// returned and not the one it started from, and at its end its record of
// clean pairs covers every pair, so moves and swaps look at none again,
// where a search started afresh on that plan looks at them all.
func TestImproverGoesOn(t *testing.T) {
	p, pr := randomPairPlan(t, 2, 60, model.PaperCluster())
	ps := newPhaseSolver(p)
	im := ps.newImprover(pr.Schedule, cleanPairs{})
	n := 0
	cut := im.run(ps, 1, func() bool { n++; return n > 40 })
	end := im.run(ps, 1, nil)
	last := p.Makespan(pr.Schedule)
	for k, s := range []model.Schedule{cut, end} {
		if err := p.Check(s); err != nil {
			t.Fatalf("plan %d: %v", k, err)
		}
		if ms := p.Makespan(s); ms > last*(1+1e-12) {
			t.Errorf("plan %d is %v s, longer than the %v s before it", k, ms, last)
		} else {
			last = ms
		}
	}
	if p.Makespan(cut) >= p.Makespan(pr.Schedule) || p.Makespan(end) >= p.Makespan(cut) {
		t.Errorf("%v → %v → %v s: the cut and the rest should each gain, or the test compares nothing",
			p.Makespan(pr.Schedule), p.Makespan(cut), p.Makespan(end))
	}
	if !im.holds(model.Normalize(end)) || im.holds(pr.Schedule) {
		t.Errorf("holds: %v on the plan it returned (want true), %v on the pair plan (want false)", im.holds(end), im.holds(pr.Schedule))
	}
	asks := func(clean cleanPairs) (k int) {
		phases := slices.Clone(im.phases)
		ps.localSearch(phases, clean, 1, func() bool { k++; return false })
		return k
	}
	if kept, fresh := asks(im.clean), asks(cleanPairs{}); kept != 0 || fresh < len(end.Phases)*(len(end.Phases)-1) {
		t.Errorf("moves and swaps looked at %d pairs with the improver's record, %d afresh; want 0 and at least %d",
			kept, fresh, len(end.Phases)*(len(end.Phases)-1))
	}
}

// TestColumnsResumesImprover: a run of Columns that follows another as
// runCheckpoints' runs do (its columns, basis, pricing state and improver,
// its plan among the seeds) goes on with that run's improver (returns it)
// and ends no longer; a run from another plan starts an improver of its own.
func TestColumnsResumesImprover(t *testing.T) {
	p, pr := randomPairPlan(t, 4, 60, model.PaperCluster())
	first, err := Columns(p, []model.Schedule{pr.Schedule}, ColumnsOptions{Rounds: 2, noFinalBound: true})
	if err != nil {
		t.Fatal(err)
	}
	if first.improver == nil || !first.improver.holds(first.Schedule) {
		t.Fatalf("the first run's improver is %v; want one holding its plan", first.improver)
	}
	opt := ColumnsOptions{Rounds: 1, noFinalBound: true, columns: first.phases, basis: first.basis, lpValue: first.basisValue,
		pricing: &first.pricing, improver: first.improver}
	next, err := Columns(p, []model.Schedule{pr.Schedule, first.Schedule}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if next.improver != first.improver {
		t.Errorf("the second run started a new improver on the first run's plan")
	}
	if next.Makespan > first.Makespan {
		t.Errorf("the second run's plan %v s is longer than the first's %v s", next.Makespan, first.Makespan)
	}
	other := ColumnsOptions{Rounds: 2, noFinalBound: true, improver: first.improver}
	seq, err := Columns(p, []model.Schedule{model.Sequential(p)}, other)
	if err != nil {
		t.Fatal(err)
	}
	if seq.improver == first.improver {
		t.Errorf("a run from another plan went on with an improver that does not hold it")
	}
}
