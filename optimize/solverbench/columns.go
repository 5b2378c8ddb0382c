package solverbench

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
)

// columnsLimit is the time limit column generation gets per instance in the
// tables below: the acceptance bar for M ≤ 200.
const columnsLimit = 10 * time.Second

// columnsLimit is columnsLimit, or 2 s for a quick run.
func (b *bencher) columnsLimit() time.Duration {
	if b.quick {
		return 2 * time.Second
	}
	return columnsLimit
}

// columnRun is one instance solved by column generation and by the swarm.
type columnRun struct {
	plan, bound, swarm float64
	took, swarmTook    time.Duration
}

// solveBoth runs the swarm (the bench's settings) and then `auto`'s column
// generation on p, seeded with the pair plan and, when seeded, the swarm's
// plan, under limit; it times each.
func (b *bencher) solveBoth(p *model.Problem, seeded bool, limit time.Duration) (columnRun, error) {
	t0 := time.Now()
	sr, err := optimize.Swarm(p, b.settings())
	if err != nil {
		return columnRun{}, err
	}
	run := columnRun{swarm: sr.Makespan, swarmTook: time.Since(t0)}
	pr, err := optimize.PairSchedule(p)
	if err != nil {
		return columnRun{}, err
	}
	seeds := []model.Schedule{pr.Schedule}
	if seeded {
		seeds = append(seeds, sr.Schedule)
	}
	t0 = time.Now()
	at := t0.Add(limit)
	stop := func() bool { return time.Now().After(at) }
	cut := t0.Add(limit * 4 / 5)
	res, err := optimize.Columns(p, seeds, optimize.ColumnsOptions{Stop: func() bool { return time.Now().After(cut) }, BranchStop: stop})
	if err != nil {
		return columnRun{}, err
	}
	run.plan, run.bound, run.took = res.Makespan, res.LowerBound, time.Since(t0)
	return run, nil
}

// columns reports column generation's certified gaps: M = 20 and 30 (the
// acceptance median), then M = 50, 100 and 200 on 9 and 50 hosts beside the
// swarm, then one instance of 1,000 jobs on 200 hosts.
func (b *bencher) columns() error {
	if err := b.text("\n5. Column generation (plan, proven bound, gap = plan ÷ bound − 1) beside the swarm (%d × %d), random workloads, k = r = 2, alpha = 1.3\n", b.particles, b.iterations); err != nil {
		return err
	}
	seeds, ms := 10, []int{20, 30}
	if b.quick {
		seeds, ms = 2, []int{20}
	}
	t := b.newTable("M", "hosts", "instances", "median gap", "worst gap", "plan ≤ swarm", "median time")
	for _, m := range ms {
		var gaps []float64
		var times []time.Duration
		notWorse := 0
		for s := 1; s <= seeds; s++ {
			r, err := b.solveBoth(randomInstance(uint64(s), m, 9), true, b.columnsLimit())
			if err != nil {
				return err
			}
			gaps, times = append(gaps, gap(r.plan, r.bound)), append(times, r.took)
			if r.plan <= r.swarm*(1+1e-12) {
				notWorse++
			}
		}
		sort.Float64s(gaps)
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		t.Append([]string{strconv.Itoa(m), "9", strconv.Itoa(seeds), fmt.Sprintf("%.2f %%", quantile(gaps, 0.5)), fmt.Sprintf("%.2f %%", gaps[len(gaps)-1]),
			fmt.Sprintf("%d of %d", notWorse, seeds), times[len(times)/2].Round(time.Millisecond).String()})
	}
	if err := t.Render(); err != nil {
		return err
	}
	return b.columnsLarge()
}

// columnsLarge is the per-instance table for M = 50, 100, 200 (one table
// per host count, emitted as soon as it is full) and M = 1,000 on 200 hosts,
// the last as `auto` under the default time limit.
func (b *bencher) columnsLarge() error {
	seeds, ms, hostCounts := 5, []int{50, 100, 200}, []int{9, 50}
	if b.quick {
		seeds, ms, hostCounts = 1, []int{50}, []int{9}
	}
	head := []string{"M", "hosts", "seed", "columns plan", "bound", "gap", "time", "swarm plan", "swarm time"}
	row := func(t *table, m, hosts, s int, r columnRun) {
		t.Append([]string{strconv.Itoa(m), strconv.Itoa(hosts), strconv.Itoa(s), fmt.Sprintf("%.1f", r.plan), fmt.Sprintf("%.1f", r.bound),
			fmt.Sprintf("%.1f %%", gap(r.plan, r.bound)), r.took.Round(time.Millisecond).String(), fmt.Sprintf("%.1f", r.swarm), r.swarmTook.Round(time.Millisecond).String()})
	}
	for _, hosts := range hostCounts {
		t := b.newTable(head...)
		for _, m := range ms {
			for s := 1; s <= seeds; s++ {
				r, err := b.solveBoth(randomInstance(uint64(s), m, hosts), false, b.columnsLimit())
				if err != nil {
					return err
				}
				row(t, m, hosts, s, r)
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if err := b.text("columns: seeded with the pair plan only, %v limit; bound = max(Farley's bound on the LP duals, optimize.LowerBound)\n", b.columnsLimit()); err != nil {
		return err
	}
	if b.quick {
		return nil
	}
	p := randomInstance(1, 1000, 200)
	t0 := time.Now()
	res, err := optimize.Solve(p, optimize.MethodAuto, &optimize.Settings{Swarm: b.settings(), TimeLimit: optimize.DefaultTimeLimit(len(p.Jobs))})
	if err != nil {
		return err
	}
	took, ms1000 := time.Since(t0), p.Makespan(res.Schedule)
	if err := b.text("M = 1,000 on 200 hosts: auto with the default %v limit (its swarm runs as -a pso would, column generation gets the time left)\n", optimize.DefaultTimeLimit(len(p.Jobs))); err != nil {
		return err
	}
	t := b.newTable("M", "hosts", "seed", "auto plan", "bound", "gap", "time", "its swarm's plan", "swarm iterations")
	t.Append([]string{"1000", "200", "1", fmt.Sprintf("%.1f", ms1000), fmt.Sprintf("%.1f", *res.LowerBound), fmt.Sprintf("%.1f %%", gap(ms1000, *res.LowerBound)),
		took.Round(time.Millisecond).String(), fmt.Sprintf("%.1f", res.Swarm.F), fmt.Sprintf("%d of %d", res.Swarm.Iterations, res.Swarm.Settings.Iterations)})
	return t.Render()
}
