package solverbench

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/pso"
)

// planningLonger is the longer limit step 7 sets beside the default one.
const planningLonger = 60 * time.Second

// planningRow is one cluster of step 7: M random jobs on some hosts.
type planningRow struct{ jobs, hosts int }

// planningRows are the instances the planning acceptance is stated on:
// 100 and 200 jobs on 9 and 50 hosts, and 1,000 jobs on 200 hosts.
var planningRows = []planningRow{{100, 9}, {200, 9}, {100, 50}, {200, 50}, {1000, 200}}

// planRun is one plan as step 7 measures it.
type planRun struct {
	plan, bound float64
	work        int64
	took        time.Duration
}

// planAuto plans p as `packer plan` does by default under a time limit, or
// under a work limit where work > 0 (quick runs: the same result on any
// machine). The settings are plan's flag defaults (cmd/packer/plan.go):
// --particles 1500, --seed 1, no --iterations (auto's own swarm budget),
// and the reserve plan keeps for writing the plan. It times optimize.Solve
// (the search, the phase order and the placement), after a garbage
// collection so that one run's heap does not slow the next: `packer
// plan`'s wall clock adds process start, reading, checking and writing.
func planAuto(p *model.Problem, limit time.Duration, work int64) (planRun, error) {
	set := &optimize.Settings{Swarm: &pso.Settings{Particles: 1500, Seed: 1}, TimeLimit: limit, WorkLimit: work,
		Reserve: optimize.PlanWriteReserve(p)}
	runtime.GC()
	if work > 0 {
		set.TimeLimit, set.Reserve = 0, 0
	}
	t0 := time.Now()
	res, err := optimize.Solve(p, optimize.MethodAuto, set)
	if err != nil {
		return planRun{}, err
	}
	r := planRun{plan: p.Makespan(res.Schedule), took: time.Since(t0), work: res.Work}
	if res.LowerBound != nil {
		r.bound = *res.LowerBound
	}
	return r, nil
}

// planning is step 7: auto as `packer plan -w random-mM-seedS --hosts H`
// runs it, seeds 1–5, with the default time limit and with 60 s where that
// is longer: per cluster the median and worst plan ÷ proven bound of each,
// on how many instances the longer limit gave no longer plan and no lower
// bound, and
// the default runs' work units and solve times. Quick runs take 20 jobs on 9
// hosts, two seeds, and work limits of 100,000 and 200,000 units instead:
// the same numbers on any machine.
func (b *bencher) planning() error {
	rows, seeds := planningRows, 5
	if b.quick {
		rows, seeds = []planningRow{{20, 9}}, 2
	}
	limits := "the default time limit (10 s up to 200 jobs, 60 s at 1,000) and 60 s where that is longer"
	if b.quick {
		limits = "work limits of 100,000 and 200,000 units"
	}
	if err := b.text("\n7. auto as packer plan runs it (random-mM-seedS --hosts H, seeds 1–%d; plan's 1500 particles, seed 1), at %s: plan ÷ proven bound\n", seeds, limits); err != nil {
		return err
	}
	t := b.newTable("M", "hosts", "default: median (worst)", "60 s: median (worst)", "60 s no worse", "default: work units (min–max)", "default: solve time (min–max)")
	if b.quick {
		t = b.newTable("M", "hosts", "100,000 units: median (worst)", "200,000 units: median (worst)", "200,000 no worse", "100,000: work units (min–max)", "100,000: solve time (min–max)")
	}
	for _, row := range rows {
		var short, long []float64
		var works []int64
		var times []time.Duration
		noWorse := 0
		// Where the default is already planningLonger (1,000 jobs), a
		// second run would measure only the machine's load: it is left out.
		same := !b.quick && optimize.DefaultTimeLimit(row.jobs) >= planningLonger
		for s := 1; s <= seeds; s++ {
			p := randomInstance(uint64(s), row.jobs, row.hosts)
			var a, z planRun
			var err error
			if b.quick {
				a, err = planAuto(p, 0, 100_000)
				if err == nil {
					z, err = planAuto(p, 0, 200_000)
				}
			} else {
				a, err = planAuto(p, optimize.DefaultTimeLimit(row.jobs), 0)
				if err == nil && !same {
					z, err = planAuto(p, planningLonger, 0)
				}
			}
			if err != nil {
				return err
			}
			short, works, times = append(short, a.plan/a.bound), append(works, a.work), append(times, a.took)
			if same {
				continue
			}
			long = append(long, z.plan/z.bound)
			if z.plan <= a.plan && z.bound >= a.bound {
				noWorse++
			}
		}
		slices.Sort(times)
		longer, noWorseText := "= default", "–"
		if !same {
			longer, noWorseText = medianWorst(long), fmt.Sprintf("%d of %d", noWorse, seeds)
		}
		t.Append([]string{strconv.Itoa(row.jobs), strconv.Itoa(row.hosts), medianWorst(short), longer,
			noWorseText, fmt.Sprintf("%d–%d", slices.Min(works), slices.Max(works)),
			fmt.Sprintf("%v–%v", times[0].Round(100*time.Millisecond), times[len(times)-1].Round(100*time.Millisecond))})
	}
	return t.Render()
}

// medianWorst formats ratios as "median (worst)".
func medianWorst(r []float64) string {
	s := slices.Sorted(slices.Values(r))
	return fmt.Sprintf("%.4f (%.4f)", quantile(s, 0.5), s[len(s)-1])
}
