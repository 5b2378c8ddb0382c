package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// issue6Policies are the policies of the Dynamic Proportional Share, HybS and Tyrex papers, fresh.
func issue6Policies() []Policy {
	return []Policy{
		&DP{Every: 7, DefaultBudget: 50, Spending: map[string]float64{"u0": 2}, WorkConserving: true},
		&DP{Every: 5, DefaultBudget: 1e9, Preempt: true},
		&DP{Every: 5, DefaultBudget: 1e9, Preempt: true, WorkConserving: true},
		&HybS{Alpha: 1, Beta: -1, Gamma: -1},
		&HybS{Alpha: 1, Beta: -1, Gamma: -1, Window: 2, ServiceLevel: 0.5, Online: true, NonLocalPerOffer: 1},
		&Tyrex{Timers: []float64{15}},
		&Tyrex{Dynamic: true},
		&TaskFair{},
	}
}

// TestIssue6PoliciesInvariants runs every new policy on random workloads
// (users, reduces, input blocks, heartbeats) under the simulator's trace
// invariants: no slot overcommitted, every task ends once at its duration,
// reduces after maps and shuffle, every task runs.
func TestIssue6PoliciesInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(66, 66))
	kills := 0
	for i := range 80 {
		w := randomWorkload(rng, true, i%2 == 0)
		if w.Cluster.Nodes < 2 {
			w.Cluster.Nodes, w.Cluster.Racks = 2, 1
		}
		for j := range w.Jobs {
			w.Jobs[j].User = fmt.Sprintf("u%d", rng.IntN(3))
		}
		set := Settings{Seed: uint64(i), RackFactor: 1.25, RemoteFactor: 2}
		if i%3 == 0 {
			set.Heartbeat = 0.5 + rng.Float64()*3
		}
		for _, p := range issue6Policies() {
			v := newInvariants(t, w, set)
			set.Trace = v
			mustRun(t, w, p, &set)
			kills += v.kills
			if len(v.ended) != w.Tasks() {
				t.Fatalf("case %d, %s: %d of %d tasks ran", i, p.Name(), len(v.ended), w.Tasks())
			}
		}
	}
	if kills == 0 {
		t.Error("DP with preemption killed no task on 80 workloads")
	}
	t.Logf("%d tasks killed by DP preemption", kills)
}

// TestIssue6PoliciesDeterministic: one policy value serves runs in turn and
// gives byte-identical results (Start resets everything).
func TestIssue6PoliciesDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	w := randomWorkload(rng, true, true)
	for j := range w.Jobs {
		w.Jobs[j].User = fmt.Sprintf("u%d", j%2)
	}
	for _, p := range issue6Policies() {
		a, _ := json.Marshal(mustRun(t, w, p, &Settings{Seed: 3}))
		b, _ := json.Marshal(mustRun(t, w, p, &Settings{Seed: 3}))
		if string(a) != string(b) {
			t.Errorf("%s: a second run differs", p.Name())
		}
	}
}

// TestSlowstartRandom: with early reduces every task still runs, every job
// finishes, and no reduce ends before its job's maps end plus the shuffle
// plus its own duration.
func TestSlowstartRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 100 {
		w := randomWorkload(rng, true, false)
		set := &Settings{Seed: uint64(i), ReduceSlowstart: 0.05 + 0.9*rng.Float64()}
		for _, p := range []Policy{&FIFO{}, &Fair{}, &TaskFair{}, &Tyrex{Timers: []float64{10}}} {
			ends := map[int]float64{}
			lastMap := map[int]float64{}
			tr := &endTracer{ends: ends, lastMap: lastMap, w: w}
			set.Trace = tr
			r := mustRun(t, w, p, set)
			if tr.n != w.Tasks() {
				t.Fatalf("case %d, %s: %d of %d tasks ended", i, p.Name(), tr.n, w.Tasks())
			}
			for j, job := range w.Jobs {
				if job.Reduces.N() > 0 && r.Jobs[j].Finish < lastMap[j]+job.Shuffle+job.Reduces.Mean-1e-9 {
					t.Errorf("case %d, %s: job %d finishes at %v, maps end at %v + shuffle %v + reduce %v",
						i, p.Name(), j, r.Jobs[j].Finish, lastMap[j], job.Shuffle, job.Reduces.Mean)
				}
			}
		}
	}
}

type endTracer struct {
	w       *Workload
	ends    map[int]float64
	lastMap map[int]float64
	n       int
}

func (e *endTracer) Event(ev TraceEvent) {
	if ev.Kind != TraceEnd {
		return
	}
	e.n++
	// Tasks are numbered job by job, maps first.
	first := 0
	for j := range ev.Job {
		first += e.w.Jobs[j].Maps.N() + e.w.Jobs[j].Reduces.N()
	}
	if ev.Task-first < e.w.Jobs[ev.Job].Maps.N() {
		e.lastMap[ev.Job] = max(e.lastMap[ev.Job], ev.Time)
	}
}
