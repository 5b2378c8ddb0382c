package sim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/packer-sched/packer/sim/internal/engine"
)

// variedJobs is a workload on one cluster of 24 nodes in 4 racks whose jobs
// differ in all a run's state depends on: one map or many waves of them,
// reduces or none, shuffles, and heavy tails, so that a job run in memory a
// bigger one used finds slots, wake lists and events it left behind.
func variedJobs(rng *rand.Rand, n int) *Workload {
	w := &Workload{Name: "varied", Cluster: Cluster{Nodes: 24, Racks: 4, MapSlots: 2, ReduceSlots: 1}}
	for j := range n {
		d := make([]float64, 1+rng.IntN(1+rng.IntN(120)))
		for i := range d {
			d[i] = float64(1+rng.IntN(20)) + rng.Float64()
		}
		job := Job{Name: fmt.Sprint(j), Arrival: float64(rng.IntN(100)), Maps: Tasks{Durations: d}}
		if rng.IntN(2) == 0 {
			job.Reduces = Tasks{Count: 1 + rng.IntN(40), Mean: float64(1 + rng.IntN(10))}
			job.Shuffle = float64(rng.IntN(3))
		}
		w.Jobs = append(w.Jobs, job)
	}
	return w
}

// freshAlone is job j's alone time the plain way: a Run of its own, on
// fresh state.
func freshAlone(t *testing.T, w *Workload, j int, set Settings) float64 {
	t.Helper()
	job := w.Jobs[j]
	job.Arrival = 0
	set.IgnoreLocality = true
	return mustRun(t, &Workload{Name: w.Name, Cluster: w.Cluster, Jobs: []Job{job}}, &FIFO{}, &set).Makespan
}

// TestAloneReusedEqualsFresh: Alone, whose one-job runs reuse the memory of
// earlier ones, gives every job the time a fresh Run gives it, bit for bit,
// with and without heartbeats and early reduces, and whatever ran before
// it: the jobs in several orders, one state for all (k = 1) and several.
func TestAloneReusedEqualsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	w := variedJobs(rng, 30)
	for _, set := range []Settings{{}, {Seed: 5, Heartbeat: 1}, {ReduceSlowstart: 0.3}, {Heartbeat: 3, ReduceSlowstart: 1}} {
		want := make([]float64, len(w.Jobs))
		for j := range w.Jobs {
			want[j] = freshAlone(t, w, j, set)
		}
		for order := range 4 {
			perm := rng.Perm(len(w.Jobs))
			if order == 0 {
				slices.SortFunc(perm, func(a, b int) int { return w.Jobs[b].Maps.N() - w.Jobs[a].Maps.N() })
			}
			pw := &Workload{Name: w.Name, Cluster: w.Cluster}
			for _, j := range perm {
				pw.Jobs = append(pw.Jobs, w.Jobs[j])
			}
			for _, k := range []int{1, 3} {
				got, err := aloneOn(pw, &set, k)
				if err != nil {
					t.Fatal(err)
				}
				for i, j := range perm {
					if got[i] != want[j] {
						t.Fatalf("settings %+v, order %d, k %d: job %d alone %v after %d other jobs, fresh %v", set, order, k, j, got[i], i, want[j])
					}
				}
			}
		}
	}
}

// slowFIFO is FIFO on a cluster whose node 0 runs at half speed: a policy
// that changes the state's per-node slowdowns, which a run reusing its
// memory must not inherit.
type slowFIFO struct{ FIFO }

func (p *slowFIFO) Start(s *State) { s.SetSlowdown(0, 2) }

// TestCompileInEqualsCompile: a run laid out in the memory of another
// (engine.Compile with a previous state) reports exactly what a fresh Run reports, events, locality
// and busy time included, after runs of other policies (watching jobs,
// killing tasks, slowing nodes), settings and clusters, the same one or
// not, with locality or without.
func TestCompileInEqualsCompile(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	names := []string{"fifo", "slow-fifo", "fair:5", "dp-preempt", "tyrex-dynamic", "hybs", "fair-by-tasks"}
	policy := func(name string) Policy {
		if name == "slow-fifo" {
			return &slowFIFO{}
		}
		p, err := ParsePolicy(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	var s *State
	for i := range 200 {
		w := variedJobs(rng, 1+rng.IntN(6))
		if rng.IntN(3) == 0 {
			w = randomWorkload(rng, true, rng.IntN(2) == 0)
		}
		set := Settings{Seed: rng.Uint64(), IgnoreLocality: rng.IntN(3) == 0}
		if rng.IntN(2) == 0 {
			set.Heartbeat = float64(1 + rng.IntN(3))
		}
		if rng.IntN(2) == 0 {
			set.ReduceSlowstart = rng.Float64()
		}
		name := names[rng.IntN(len(names))]
		var got, want *Result
		s, got, want = freshAndReused(t, s, w, set, func() Policy { return policy(name) })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d (%s, %+v) in reused memory: %+v, fresh: %+v", i, name, set, got, want)
		}
	}
}

// TestCompileInChangesCluster: a run laid out in the memory of one on
// another cluster of the same size (other racks; extra VMs, then none) is
// the fresh run: what keepable keeps must depend on the whole cluster.
func TestCompileInChangesCluster(t *testing.T) {
	job := func(n int) Job {
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(3 + i%5)
		}
		return Job{Name: fmt.Sprint("j", n), Maps: Tasks{Durations: d}, Reduces: Tasks{Count: 2, Mean: 4}}
	}
	clusters := []Cluster{
		{Nodes: 8, Racks: 2, MapSlots: 2, ReduceSlots: 1},
		{Nodes: 8, Racks: 4, MapSlots: 2, ReduceSlots: 1},
		{Nodes: 8, Racks: 4, MapSlots: 2, ReduceSlots: 1, Extras: []int{0, 1}},
		{Nodes: 8, Racks: 4, MapSlots: 2, ReduceSlots: 1},
		{Nodes: 8, Racks: 4, MapSlots: 2, ReduceSlots: 0},
	}
	var s *State
	for i, c := range clusters {
		w := &Workload{Cluster: c, Jobs: []Job{job(30), job(17)}}
		if c.ReduceSlots == 0 {
			w.Jobs = []Job{{Name: "j", Maps: Tasks{Count: 20, Mean: 3}}}
		}
		var got, want *Result
		s, got, want = freshAndReused(t, s, w, Settings{Seed: 5}, func() Policy { return &FIFO{} })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cluster %d (%+v) after the one before: %+v, fresh %+v", i, c, got.Summary, want.Summary)
		}
	}
}

// freshAndReused runs w under a policy from newPolicy twice: fresh (Run), and
// laid out in the memory of s, which it returns with both results.
func freshAndReused(t *testing.T, s *State, w *Workload, set Settings, newPolicy func() Policy) (*State, *Result, *Result) {
	t.Helper()
	want, err := Run(w, newPolicy(), &set)
	if err != nil {
		t.Fatal(err)
	}
	st, err := checked(w, &set)
	if err != nil {
		t.Fatal(err)
	}
	p := newPolicy()
	if s == nil {
		s = &State{}
	}
	s.w = w
	s.e = engine.Compile(s.e, input(w), config(&st, p), engine.DefaultOptions())
	if err := s.e.Run(hooks(s, p)); err != nil {
		t.Fatal(err)
	}
	return s, s.result(p, st.Seed), want
}
