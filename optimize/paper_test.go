package optimize_test

// These tests use the built-in workloads W1–W6. They live in the external
// test package so that the workloads package may import packages that
// import optimize (an internal test importing it would be an import cycle).

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/pso"
	"github.com/packer-sched/packer/workloads"
)

func paperProblem(t testing.TB, name string, hosts int) *model.Problem {
	t.Helper()
	w, err := workloads.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.NewProblem(w, model.Cluster{Hosts: hosts}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExactPaperWorkloads pins the exact optimum of W1–W6 on 9 and 10 hosts
// against the pair scheduler: the packing paper reports that W4–W6 never gain from more
// than two jobs in a phase, and workloads/paper.go chose its models so that
// this holds, so exact == pair there; W1–W3 gain clearly from larger phases.
func TestExactPaperWorkloads(t *testing.T) {
	// Savings against sequential, in percent, of the exact optimum (measured
	// once, pinned here to one decimal; the lead's independent prototype found
	// 26.7, 25.9 and 30.9 at P = 9).
	wantSaving := map[string]float64{"P9/W1": 26.7, "P9/W2": 25.9, "P9/W3": 30.9}
	for _, hosts := range []int{9, 10} {
		for _, name := range workloads.Names() {
			t.Run(fmt.Sprintf("P%d/%s", hosts, name), func(t *testing.T) {
				p := paperProblem(t, name, hosts)
				ex, err := optimize.Exact(p)
				if err != nil {
					t.Fatal(err)
				}
				pr, err := optimize.PairSchedule(p)
				if err != nil {
					t.Fatal(err)
				}
				pair := p.Makespan(pr.Schedule)
				if ex.Makespan > pair*(1+1e-12) {
					t.Fatalf("exact %v is worse than pair %v", ex.Makespan, pair)
				}
				big := name == "W4" || name == "W5" || name == "W6"
				if big && !scalar.EqualWithinAbsOrRel(ex.Makespan, pair, 1e-9, 1e-12) {
					t.Errorf("exact %v ≠ pair %v: a phase of more than two jobs helps", ex.Makespan, pair)
				}
				if !big && ex.Makespan > pair*0.9 {
					t.Errorf("exact %v saves less than 10 %% against pair %v", ex.Makespan, pair)
				}
				if want, ok := wantSaving[fmt.Sprintf("P%d/%s", hosts, name)]; ok {
					got := 100 * (1 - ex.Makespan/p.SequentialMakespan())
					if math.Abs(got-want) > 0.05 {
						t.Errorf("saving %.2f %%, want %.1f %%", got, want)
					}
				}
			})
		}
	}
}

// TestSwarmPaperWorkloads: with the paper's settings (1500 particles, 200
// iterations) the swarm reaches the exact optimum on W1–W6.
func TestSwarmPaperWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("paper settings take a few seconds; the random test below covers -short")
	}
	for _, name := range workloads.Names() {
		p := paperProblem(t, name, 9)
		ex, err := optimize.Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := optimize.Swarm(p, &pso.Settings{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbsOrRel(sr.Makespan, ex.Makespan, 1e-9, 1e-12) {
			t.Errorf("%s: swarm %v, optimum %v (gap %.3f %%)", name, sr.Makespan, ex.Makespan, 100*(sr.Makespan/ex.Makespan-1))
		}
	}
}

// ExampleExact plans W1 on the paper's cluster optimally: all five jobs share
// one phase on the 18 primary VMs (overcommitting does not pay here), and the
// VMs the slowest job does not need go to the others so they finish early.
func ExampleExact() {
	w, _ := workloads.Get("W1")
	p, _ := model.NewProblem(w, model.PaperCluster())
	ex, _ := optimize.Exact(p)
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
