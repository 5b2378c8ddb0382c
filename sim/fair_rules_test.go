package sim

import (
	"math/rand/v2"
	"testing"
)

// refFair is the Delay Scheduling paper's Algorithms 1 and 2 written out
// plainly, as Fair was before it kept its order incrementally and took its
// shortcut before D skips: the runnable jobs fully sorted on every slot, and
// the best locality of each looked up in full.
type refFair struct {
	delay, rackDelay int
	skip             []int
	skippedAt        []uint64
	offer            uint64
}

func (r *refFair) start(s *State) {
	r.skip, r.skippedAt, r.offer = make([]int, s.Jobs()), make([]uint64, s.Jobs()), 0
}

func (r *refFair) assign(s *State, node int, k Kind) int {
	for _, j32 := range fairSorted(s, k, -1) {
		j := int(j32)
		if k == Reduce || (r.delay == 0 && r.rackDelay == 0) {
			return j
		}
		switch l := s.BestLocality(j, node, k); {
		case l == NodeLocal || l == NoInput:
			r.skip[j] = 0
			return j
		case l == RackLocal && r.skip[j] >= r.delay,
			l == Remote && r.skip[j] >= r.delay+r.rackDelay:
			return j
		}
		if r.skippedAt[j] != r.offer {
			r.skippedAt[j] = r.offer
			r.skip[j]++
		}
	}
	return Later
}

// twinFair runs Fair and refFair side by side and fails on the first slot
// they give to different jobs. With kill set, a periodic tick kills random
// running maps, so that re-queued tasks reach localTask's search of them,
// and every offer checks localTask against BestLocality for every runnable
// job.
type twinFair struct {
	Fair
	ref     refFair
	t       *testing.T
	rng     *rand.Rand
	kill    bool
	assigns int
	kills   int
}

func (p *twinFair) Start(s *State) {
	p.Fair.Start(s)
	p.ref.start(s)
}

func (p *twinFair) Offering(s *State, node int) {
	p.Fair.Offering(s, node)
	p.ref.offer++
}

func (p *twinFair) Assign(s *State, node int, k Kind) int {
	if p.kill && k == Map {
		for _, j := range s.Runnable(Map) {
			l := s.BestLocality(int(j), node, Map)
			want := l == NodeLocal || l == NoInput
			if got := s.NodeLocal(int(j), node, Map); got != want {
				p.t.Fatalf("t = %v: localTask(job %d, node %d) = %v, best locality says %v", s.Now(), j, node, got, want)
			}
		}
	}
	want := p.ref.assign(s, node, k)
	got := p.Fair.Assign(s, node, k)
	if got != want {
		p.t.Fatalf("t = %v, node %d, kind %d: Fair gives the slot to job %d, the plain rules to %d", s.Now(), node, k, got, want)
	}
	p.assigns++
	return got
}

// killingTwin is twinFair with its killing tick.
type killingTwin struct{ *twinFair }

func (p killingTwin) Interval() float64 { return 3 }

func (p killingTwin) Tick(s *State) {
	for n := range s.Nodes() {
		for i := range s.Slots(Map) {
			if t := s.SlotTask(n, Map, i); t >= 0 && p.rng.IntN(4) == 0 && s.Kill(t) {
				p.kills++
			}
		}
	}
}

// TestFairFollowsThePlainRules: on random workloads and clusters, with waits
// D and R from 0 to 3, reduces, input or none, heartbeats or immediate
// offers, and maps killed at random, Fair gives every slot to the job the
// plainly written rules choose.
func TestFairFollowsThePlainRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	assigns, kills := 0, 0
	for i := range 120 {
		w := randomWorkload(rng, i%2 == 0, i%5 != 0)
		p := &twinFair{Fair: Fair{Delay: i % 4, RackDelay: (i / 4) % 3}, t: t, rng: rand.New(rand.NewPCG(uint64(i), 1)), kill: i%3 == 0}
		p.ref.delay, p.ref.rackDelay = p.Delay, p.RackDelay
		set := &Settings{Seed: uint64(i)}
		if (i/12)%2 == 1 {
			// Apart from reduces (i even) and the waits (i mod 12), so
			// that naive fair sharing meets heartbeats too.
			set.Heartbeat = 1
		}
		var pol Policy = p
		if p.kill {
			pol = killingTwin{p}
		}
		mustRun(t, w, pol, set)
		assigns, kills = assigns+p.assigns, kills+p.kills
	}
	if assigns < 5000 || kills < 100 {
		t.Errorf("only %d slots compared and %d maps killed", assigns, kills)
	}
}
