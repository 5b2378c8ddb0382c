package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/pso"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads"
)

// experiment regenerates one seed paper's headline comparison. run computes,
// for one seed, values[row][column]; the command takes the median over seeds
// and checks the paper's direction on the medians.
type experiment struct {
	name, paper, title string
	columns            []string
	rows               []string
	// reported is the paper's number or claim per row ("" for none).
	reported []string
	run      func(seed uint64, small bool) ([][]float64, error)
	checks   func(med [][]float64) []expCheck
}

// expCheck is one of the paper's directions and whether our numbers follow it.
// Soft marks a direction of the seed that this simulator is not expected to
// reproduce (the README says why); tests assert every other one.
type expCheck struct {
	Claim string `json:"claim"`
	Holds bool   `json:"holds"`
	Soft  bool   `json:"soft,omitempty"`
}

// expValue is a median over seeds with the range.
type expValue struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// expRow is one row of an experiment's table.
type expRow struct {
	Label  string     `json:"label"`
	Values []expValue `json:"values"`
	Paper  string     `json:"paper,omitempty"`
}

// expResult is an experiment's outcome, the JSON of `packer experiment run`.
type expResult struct {
	Name    string     `json:"name"`
	Paper   string     `json:"paper"`
	Title   string     `json:"title"`
	Seeds   []uint64   `json:"seeds"`
	Columns []string   `json:"columns"`
	Rows    []expRow   `json:"rows"`
	Checks  []expCheck `json:"checks"`
}

var experimentCommand = &cli.Command{
	Name:  "experiment",
	Usage: "regenerate the seed papers' headline comparisons in the simulator",
	Description: "packer experiment list names the experiments; packer experiment run NAME... (or all) runs\n" +
		"each over --seeds seeds (1..N), prints every number as the median over seeds with min–max,\n" +
		"the paper's number beside it, and whether the paper's direction holds on the medians.",
	Subcommands: []*cli.Command{
		{
			Name:   "list",
			Usage:  "list the experiments",
			Action: experimentList,
		},
		{
			Name:      "run",
			Usage:     "run experiments (all, or the ones named)",
			ArgsUsage: "[NAME...|all]",
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "seeds", Value: 5, Usage: "seeds 1..N; numbers are medians over them"},
				formatFlag,
			},
			Action: experimentRun,
		},
	},
}

func experimentList(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("experiment list takes no arguments, got %q", c.Args().First())
	}
	t := newTable(c.App.Writer, "NAME", "SEED", "WHAT")
	for _, e := range experiments() {
		t.Append([]string{e.name, e.paper, e.title})
	}
	return t.Render()
}

func experimentRun(c *cli.Context) error {
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	n := c.Int("seeds")
	if n < 1 || n > 1000 {
		return badUsage("--seeds must be between 1 and 1000, got %d", n)
	}
	all := experiments()
	var chosen []experiment
	names := c.Args().Slice()
	if len(names) == 0 || (len(names) == 1 && names[0] == "all") {
		chosen = all
	} else {
		for _, name := range names {
			if strings.HasPrefix(name, "-") {
				return badUsage("experiment run: flag %s after a name: flags go first (packer experiment run --seeds 3 NAME)", name)
			}
			i := slices.IndexFunc(all, func(e experiment) bool { return e.name == name })
			if i < 0 {
				known := make([]string, len(all))
				for k, e := range all {
					known[k] = e.name
				}
				return badUsage("experiment run: unknown experiment %q (want all or one of %s)", name, strings.Join(known, ", "))
			}
			chosen = append(chosen, all[i])
		}
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	var results []*expResult
	for _, e := range chosen {
		r, err := runExperiment(e, seeds, false)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if format == "json" {
		data, err := json.MarshalIndent(results, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(c.App.Writer, "%s\n", data)
		return err
	}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		if err := printExperiment(c.App.Writer, r); err != nil {
			return err
		}
	}
	return nil
}

// runExperiment runs e on every seed, two at a time per core; the order of
// the results does not depend on which finishes first.
func runExperiment(e experiment, seeds []uint64, small bool) (*expResult, error) {
	vals := make([][][]float64, len(seeds))
	errs := make([]error, len(seeds))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, s := range seeds {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			vals[i], errs[i] = e.run(s, small)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("experiment %s, seed %d: %w", e.name, seeds[i], err)
		}
	}
	r := &expResult{Name: e.name, Paper: e.paper, Title: e.title, Seeds: seeds, Columns: e.columns}
	med := make([][]float64, len(e.rows))
	for row, label := range e.rows {
		er := expRow{Label: label}
		if row < len(e.reported) {
			er.Paper = e.reported[row]
		}
		med[row] = make([]float64, len(e.columns))
		for col := range e.columns {
			xs := make([]float64, len(seeds))
			for i := range seeds {
				xs[i] = vals[i][row][col]
			}
			v := summarise(xs)
			er.Values = append(er.Values, v)
			med[row][col] = v.Median
		}
		r.Rows = append(r.Rows, er)
	}
	if e.checks != nil {
		r.Checks = e.checks(med)
	}
	return r, nil
}

// summarise is the median (the mean of the middle two for an even count) and
// range.
func summarise(xs []float64) expValue {
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return expValue{Median: m, Min: s[0], Max: s[len(s)-1]}
}

func fmtValue(v expValue, seeds int) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', decimals(x), 64) }
	if seeds == 1 || v.Min == v.Max {
		return f(v.Median)
	}
	return fmt.Sprintf("%s [%s–%s]", f(v.Median), f(v.Min), f(v.Max))
}

func decimals(x float64) int {
	switch a := math.Abs(x); {
	case a >= 100:
		return 0
	case a >= 10:
		return 1
	}
	return 2
}

func printExperiment(w io.Writer, r *expResult) error {
	fmt.Fprintf(w, "%s (seed %s): %s — median [min–max] over %d seeds\n", r.Name, r.Paper, r.Title, len(r.Seeds))
	t := newTable(w, append(append([]string{""}, r.Columns...), "PAPER")...)
	for _, row := range r.Rows {
		cells := []string{row.Label}
		for _, v := range row.Values {
			cells = append(cells, fmtValue(v, len(r.Seeds)))
		}
		t.Append(append(cells, row.Paper))
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, ch := range r.Checks {
		mark := "holds"
		switch {
		case !ch.Holds && ch.Soft:
			mark = "does not hold (expected here, see the README)"
		case !ch.Holds:
			mark = "DOES NOT HOLD"
		}
		fmt.Fprintf(w, "  %s: %s\n", mark, ch.Claim)
	}
	return nil
}

// runPolicies runs every policy on w and returns the results, slowdowns
// filled in from the jobs' alone times when alone is true.
func runPolicies(w *sim.Workload, seed uint64, alone bool, ps ...sim.Policy) ([]*sim.Result, error) {
	return runPoliciesWith(w, &sim.Settings{Seed: seed}, alone, ps...)
}

// runPoliciesWith is runPolicies with settings of one's own.
func runPoliciesWith(w *sim.Workload, set *sim.Settings, alone bool, ps ...sim.Policy) ([]*sim.Result, error) {
	var a []float64
	if alone {
		var err error
		if a, err = sim.Alone(w, set); err != nil {
			return nil, err
		}
	}
	out := make([]*sim.Result, len(ps))
	for i, p := range ps {
		r, err := sim.Run(w, p, set)
		if err != nil {
			return nil, err
		}
		if alone {
			r.Summarize(a)
		}
		out[i] = r
	}
	return out, nil
}

// experiments lists every experiment, in the order of the seeds.
func experiments() []experiment {
	out := []experiment{dpBudgetExperiment(), dpSharesExperiment(), dp80Experiment(), dpBoostExperiment(), delayLocalityExperiment()}
	out = append(out, hybsExperiment("hybs-exp1", "experiment 1: 21 Grid, TeraSort and WordCount jobs on 36 map slots", "2.4× faster than fair", workloads.HybSExp1))
	out = append(out, hybsExperiment("hybs-exp2", "experiment 2: 95 TeraSort jobs of 50–148 maps of 4–6 s", "2.1× faster than fair", workloads.HybSExp2))
	for _, v := range []struct {
		name string
		v    workloads.TyrexVariability
		load float64
	}{{"tyrex-hvw", workloads.HVW, 0.7}, {"tyrex-mvw", workloads.MVW, 0.7}, {"tyrex-lvw", workloads.LVW, 0.7}, {"tyrex-load90", workloads.HVW, 0.9}} {
		out = append(out, tyrexExperiment(v.name, v.v, v.load, tyrexSlowstart))
	}
	out = append(out, tyrexExperiment("tyrex-hvw-no-slowstart", workloads.HVW, 0.7, 0))
	return append(out, packingExperiment())
}

// ---- seed 000: Dynamic Priority ----

func dpBudgetExperiment() experiment {
	return experiment{
		name: "dp-budget", paper: "000",
		title: "2 queues, budgets 1000 and 10000, spending 0.5 : 0.25 per slot per 20 s, with preemption: the service each queue " +
			"gets while q1 can pay, and after its budget ran out",
		columns:  []string{"q1 (rate 2) (s)", "q2 (rate 1) (s)", "q2 ÷ q1", "q1 budget out at (s)"},
		rows:     []string{"run time, jobs run while q1 pays", "response, jobs submitted after q1's budget ran out"},
		reported: []string{"q1 about 3000 s, q2 4500–5800 s: 1.5–1.9×, about 1.8", "q1 degrades significantly"},
		run: func(seed uint64, small bool) ([][]float64, error) {
			jobs := 30
			if small {
				jobs = 20
			}
			w := workloads.DPTwoQueues(jobs, seed)
			p := &sim.DP{Budget: map[string]float64{"q1": 1000, "q2": 10000}, Spending: map[string]float64{"q1": 0.5, "q2": 0.25},
				Preempt: true, WorkConserving: true}
			r, err := sim.Run(w, p, &sim.Settings{Seed: seed})
			if err != nil {
				return nil, err
			}
			out, ok := p.Exhausted()["q1"]
			if !ok {
				return nil, fmt.Errorf("q1's budget never ran out")
			}
			// While q1 pays, the run time (first task to last) of the jobs
			// that ran entirely then: both queues are backlogged, so response
			// times grow with the backlog, while run times show the service
			// each queue gets. After, the response time of the jobs submitted
			// then: q1's wait for slots is what degrades.
			mean := func(q string, before bool) float64 {
				var sum float64
				n := 0
				for _, j := range r.Jobs {
					switch {
					case j.User != q:
					case before && j.Finish < out:
						sum += j.Finish - j.Start
						n++
					case !before && j.Submit >= out:
						sum += j.Response
						n++
					}
				}
				return sum / float64(max(n, 1))
			}
			b1, b2, a1, a2 := mean("q1", true), mean("q2", true), mean("q1", false), mean("q2", false)
			return [][]float64{{b1, b2, b2 / b1, out}, {a1, a2, a2 / a1, out}}, nil
		},
		checks: func(med [][]float64) []expCheck {
			return []expCheck{
				{Claim: "while q1 pays twice q2's rate its jobs run 1.5–2.5× faster than q2's", Holds: med[0][2] >= 1.5 && med[0][2] <= 2.5},
				{Claim: "once its budget runs out q1's jobs take over twice as long as q2's", Holds: med[1][0] > 2*med[1][1]},
			}
		},
	}
}

func dpSharesExperiment() experiment {
	const queues = 10
	rows := make([]string, queues)
	reported := make([]string, queues)
	for q := range rows {
		rows[q] = fmt.Sprintf("q%d (rate %d, %.1f %%)", q+1, q+1, 100*float64(q+1)/55)
	}
	reported[0] = "10 service levels, ordered by spending (Fig. 5, 8)"
	reported[1] = "levels 1 and 2 a bit below ideal (Fig. 8)"
	return experiment{
		name: "dp-shares", paper: "000",
		title: "10 queues with spending rate n (share n/55) on 110 map slots: slot share while every queue has work, " +
			"and the completion time of each queue's first job",
		columns: []string{"DP map share %", "DP+preempt+work-conserving %", "FIFO map share %", "DP first job (s)", "FIFO first job (s)"},
		rows:    rows, reported: reported,
		run: func(seed uint64, small bool) ([][]float64, error) {
			jobs := 4
			if small {
				jobs = 2
			}
			w := workloads.DPQueues(queues, jobs, seed)
			rates := map[string]float64{}
			for q := 1; q <= queues; q++ {
				rates[fmt.Sprintf("q%d", q)] = float64(q)
			}
			out := make([][]float64, queues)
			for q := range out {
				out[q] = make([]float64, 5)
			}
			for i, p := range []sim.Policy{
				&sim.DP{Spending: rates, DefaultBudget: 1e9},
				&sim.DP{Spending: rates, DefaultBudget: 1e9, WorkConserving: true, Preempt: true},
				&sim.FIFO{}} {
				tr := newBusyTracer(w)
				r, err := sim.Run(w, p, &sim.Settings{Seed: seed, Trace: tr})
				if err != nil {
					return nil, err
				}
				// Until the first queue has started its last map every queue
				// has pending maps and competes for slots.
				last := make([]float64, queues)
				for _, iv := range tr.spans {
					if iv.kind == sim.Map {
						q := queueOf(w.Jobs[iv.job].User)
						last[q] = max(last[q], iv.start)
					}
				}
				until := slices.Min(last)
				busy := make([]float64, queues)
				total := 0.0
				for _, iv := range tr.spans {
					if iv.kind != sim.Map {
						continue
					}
					d := min(iv.end, until) - iv.start
					if d <= 0 {
						continue
					}
					busy[queueOf(w.Jobs[iv.job].User)] += d
					total += d
				}
				for q := range out {
					out[q][i] = 100 * busy[q] / total
					if i != 1 {
						col := 3
						if i == 2 {
							col = 4
						}
						out[q][col] = r.Jobs[q].Response // job k of queue q is index k·queues + q
					}
				}
			}
			return out, nil
		},
		checks: func(med [][]float64) []expCheck {
			inc := func(col int) bool {
				for q := 1; q < len(med); q++ {
					if med[q][col] <= med[q-1][col] {
						return false
					}
				}
				return true
			}
			dec := func(col int) bool {
				for q := 1; q < len(med); q++ {
					if med[q][col] >= med[q-1][col] {
						return false
					}
				}
				return true
			}
			within := true
			for q := range med {
				ideal := 100 * float64(q+1) / 55
				within = within && math.Abs(med[q][0]-ideal) <= 0.25*ideal
			}
			return []expCheck{
				{Claim: "DP: slot share grows strictly with the spending rate", Holds: inc(0)},
				{Claim: "DP with preemption: likewise", Holds: inc(1)},
				{Claim: "DP: every queue's share within 25 % of n/55", Holds: within},
				{Claim: "DP: first jobs finish strictly sooner the more their queue spends", Holds: dec(3)},
			}
		},
	}
}

// dp80Experiment is seed 000's 80-queue run: queue n spends n, so its
// share is n/3240 of the slots; on 110 map slots most quotas are below one
// slot and the largest-remainder rule gives whole slots, so only a handful of
// service levels exist (the seed saw about 10, in groups of 10–15 users).
func dp80Experiment() experiment {
	const queues, group = 80, 10
	rows := make([]string, queues/group)
	for g := range rows {
		rows[g] = fmt.Sprintf("q%d–q%d", g*group+1, (g+1)*group)
	}
	reported := make([]string, len(rows))
	reported[0] = "about 10 service levels, users in groups of 10–15 (Fig. 6, 9)"
	return experiment{
		name: "dp-80", paper: "000",
		title:   "80 queues with spending rate n on 110 map slots, shares enforced strictly, one 40-map job each at 0: completion time by group of 10 queues",
		columns: []string{"DP mean completion (s)", "FIFO mean completion (s)", "distinct DP completion levels"},
		rows:    rows, reported: reported,
		run: func(seed uint64, small bool) ([][]float64, error) {
			w := workloads.DPQueues(queues, 1, seed)
			rates := map[string]float64{}
			for q := 1; q <= queues; q++ {
				rates[fmt.Sprintf("q%d", q)] = float64(q)
			}
			rs, err := runPolicies(w, seed, false, &sim.DP{Spending: rates, DefaultBudget: 1e9}, &sim.FIFO{})
			if err != nil {
				return nil, err
			}
			// Completion levels: finishes rounded to the 20 s allocation
			// interval, the resolution at which DP can tell queues apart.
			levels := map[float64]bool{}
			for _, j := range rs[0].Jobs {
				levels[math.Round(j.Response/20)] = true
			}
			out := make([][]float64, len(rows))
			for g := range out {
				in := func(j sim.JobResult) bool { q := queueOf(j.User); return q >= g*group && q < (g+1)*group }
				out[g] = []float64{meanResponse(rs[0], in), meanResponse(rs[1], in), float64(len(levels))}
			}
			return out, nil
		},
		checks: func(med [][]float64) []expCheck {
			dec := true
			for g := 1; g < len(med); g++ {
				dec = dec && med[g][0] < med[g-1][0]
			}
			return []expCheck{
				{Claim: "DP: each group of 10 queues finishes sooner than the group spending less", Holds: dec},
				{Claim: "DP: a few distinct service levels, not 80 (between 3 and 30)", Holds: med[0][2] >= 3 && med[0][2] <= 30},
			}
		},
	}
}

// queueOf is the 0-based index of queue "qN".
func queueOf(user string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(user, "q"))
	return n - 1
}

// busyTracer records every task attempt's span: start to end or kill.
type busyTracer struct {
	reduce []bool // by task id: the core numbers tasks job by job, maps first
	start  map[int]float64
	spans  []span
}

type span struct {
	start, end float64
	job        int
	kind       sim.Kind
}

func newBusyTracer(w *sim.Workload) *busyTracer {
	b := &busyTracer{start: map[int]float64{}}
	for _, j := range w.Jobs {
		for range j.Maps.N() {
			b.reduce = append(b.reduce, false)
		}
		for range j.Reduces.N() {
			b.reduce = append(b.reduce, true)
		}
	}
	return b
}

// Event records a span at a task's end or kill.
func (b *busyTracer) Event(e sim.TraceEvent) {
	switch e.Kind {
	case sim.TraceStart:
		b.start[e.Task] = e.Time
	case sim.TraceEnd, sim.TraceKill:
		kind := sim.Map
		if b.reduce[e.Task] {
			kind = sim.Reduce
		}
		b.spans = append(b.spans, span{b.start[e.Task], e.Time, e.Job, kind})
	}
}

func meanResponse(r *sim.Result, keep func(sim.JobResult) bool) float64 {
	var sum float64
	n := 0
	for _, j := range r.Jobs {
		if keep(j) {
			sum += j.Response
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func dpBoostExperiment() experiment {
	return experiment{
		name: "dp-boost", paper: "000",
		title:    "10 users × 10 jobs; user n bids 4× for its n-th job: completion times",
		columns:  []string{"with preemption (s)", "without (s)"},
		rows:     []string{"boosted jobs", "other jobs", "speed-up (other ÷ boosted)"},
		reported: []string{"about 300 s", "about 900 s", "about 3×"},
		run: func(seed uint64, small bool) ([][]float64, error) {
			w, period := workloads.DPBoost(seed)
			var changes []sim.DPChange
			for u := 1; u <= 10; u++ {
				q := fmt.Sprintf("u%d", u)
				changes = append(changes, sim.DPChange{At: float64(u-1) * period, Queue: q, Spending: 4},
					sim.DPChange{At: float64(u) * period, Queue: q, Spending: 1})
			}
			slices.SortStableFunc(changes, func(a, b sim.DPChange) int { return cmp.Compare(a.At, b.At) })
			rs, err := runPolicies(w, seed, false,
				&sim.DP{DefaultBudget: 1e6, Changes: changes, WorkConserving: true, Preempt: true},
				&sim.DP{DefaultBudget: 1e6, Changes: changes, WorkConserving: true})
			if err != nil {
				return nil, err
			}
			boosted := func(j sim.JobResult) bool {
				var u, k int
				_, err := fmt.Sscanf(j.Name, "u%d-%d", &u, &k)
				return err == nil && u == k
			}
			out := [][]float64{make([]float64, 2), make([]float64, 2), make([]float64, 2)}
			for i, r := range rs {
				b := meanResponse(r, boosted)
				o := meanResponse(r, func(j sim.JobResult) bool { return !boosted(j) })
				out[0][i], out[1][i], out[2][i] = b, o, o/b
			}
			return out, nil
		},
		checks: func(med [][]float64) []expCheck {
			return []expCheck{
				{Claim: "boosted jobs finish faster than the others, with and without preemption", Holds: med[0][0] < med[1][0] && med[0][1] < med[1][1]},
			}
		},
	}
}

// ---- seed 001: delay scheduling ----

func delayLocalityExperiment() experiment {
	ds := []int{0, 1, 5, 10, 40}
	rows := make([]string, len(ds))
	for i, d := range ds {
		rows[i] = fmt.Sprintf("fair D=%d", d)
	}
	return experiment{
		name: "delay-locality", paper: "001",
		title:    "a big job and 100 small ones on 100 nodes: node-local maps of the small jobs by skip count D",
		columns:  []string{"small jobs node-local", "small jobs response (s)"},
		rows:     rows,
		reported: []string{"naive fair: head-of-line, low locality", "", "", "1 − (1 − p)^D: 0.65 for p = 0.1", "0.99 for p = 0.1"},
		run: func(seed uint64, small bool) ([][]float64, error) {
			w := workloads.DelaySmallJobs(seed)
			ps := make([]sim.Policy, len(ds))
			for i, d := range ds {
				ps[i] = &sim.Fair{Delay: d}
			}
			rs, err := runPolicies(w, seed, false, ps...)
			if err != nil {
				return nil, err
			}
			out := make([][]float64, len(ds))
			for i, r := range rs {
				var l sim.LocalityCounts
				for _, j := range r.Jobs[1:] {
					l.Node += j.Locality.Node
					l.Rack += j.Locality.Rack
					l.Remote += j.Locality.Remote
				}
				out[i] = []float64{l.NodeFraction(), meanResponse(r, func(j sim.JobResult) bool { return j.Name != "big" })}
			}
			return out, nil
		},
		checks: func(med [][]float64) []expCheck {
			return []expCheck{
				{Claim: "small jobs' locality grows with D, from below 0.3 naive to above 0.75 at D = 40", Holds: med[0][0] < 0.3 && med[len(med)-1][0] > 0.75 && med[3][0] > med[0][0]},
			}
		},
	}
}

// ---- seed 002: HybS ----

func hybsExperiment(name, title, claim string, gen func(uint64) *sim.Workload) experiment {
	return experiment{
		name: name, paper: "002", title: title,
		columns:  []string{"mean response (s)", "fair ÷ this"},
		rows:     []string{"fifo", "fair", "hybs(1,-1,-1)", "hybs(0,-1,-1)"},
		reported: []string{"", "", claim, ""},
		run: func(seed uint64, small bool) ([][]float64, error) {
			rs, err := runPolicies(gen(seed), seed, false, &sim.FIFO{}, &sim.Fair{},
				&sim.HybS{Alpha: 1, Beta: -1, Gamma: -1}, &sim.HybS{Beta: -1, Gamma: -1})
			if err != nil {
				return nil, err
			}
			fair := rs[1].Summary.MeanResponse
			out := make([][]float64, len(rs))
			for i, r := range rs {
				out[i] = []float64{r.Summary.MeanResponse, fair / r.Summary.MeanResponse}
			}
			return out, nil
		},
		checks: func(med [][]float64) []expCheck {
			return []expCheck{{Claim: "hybs(1,-1,-1) has a lower mean response time than fair", Holds: med[2][0] < med[1][0]}}
		},
	}
}

// ---- seed 004: Tyrex ----

// tyrexTimer is the static policy's P1 timer in slot-seconds. Seed 004's
// Fig. 6 puts the optimum for a 30 % P1 below 250 s for HVW and MVW; for LVW
// the seed's optimum (500–2500 s) would overload our P1 (our LVW's big jobs
// are smaller than the seed's), so the timer is the one that leaves P1 about
// 20 % of the work, as Fig. 7 shows for the seed's timers.
// tyrexSlowstart is Hadoop 1's mapred.reduce.slowstart.completed.maps:
// seed 004 ran Hadoop 1.0.0, whose reduces start once 5 % of their job's maps
// are done and then hold their slots, which is what the seed blames FAIR's
// slowdowns on.
const tyrexSlowstart = 0.05

func tyrexTimer(v workloads.TyrexVariability) float64 {
	switch v {
	case workloads.HVW:
		return 200
	case workloads.MVW:
		return 250
	}
	return 300
}

// tyrexExperiment compares Tyrex with the baselines, reduces starting at
// the given slow-start fraction (0: after the maps). Which directions are
// asserted (not Soft): on HVW at 70 % load (the acceptance), the
// static policy against FIFO and against seed 004's FAIR with slow-start,
// and both policies against FIFO without it; the README says why the rest
// do not hold here.
func tyrexExperiment(name string, v workloads.TyrexVariability, load, slowstart float64) experiment {
	hvw70 := v == workloads.HVW && load < 0.8
	strictFIFO := func(dynamic bool) bool { return hvw70 && (!dynamic || slowstart == 0) }
	strictFair := func(dynamic bool) bool { return hvw70 && !dynamic && slowstart > 0 }
	var title string
	switch v {
	case workloads.HVW:
		title = fmt.Sprintf("HVW (job sizes with squared CV 20), 300 jobs at %.0f %% load", load*100)
	case workloads.MVW:
		title = "MVW (squared CV 10), 300 jobs at 70 % load"
	default:
		title = "LVW (squared CV 4), 300 jobs at 70 % load"
	}
	if slowstart > 0 {
		title += fmt.Sprintf("; reduces start at %.0f %% of maps (Hadoop 1)", slowstart*100)
	} else {
		title += "; reduces start after the maps"
	}
	reported := []string{"", "", "FAIR of seed 004", "V95 about half of FIFO's and FAIR's; p95 −50–60 % vs FIFO, −20–40 % vs FAIR", "median slowdown < 2.2, V95 < 3.2"}
	if load > 0.8 {
		reported = []string{"", "", "very wide; makespan 2× Tyrex's", "no job slowdown above 10", "no job slowdown above 10"}
	}
	return experiment{
		name: name, paper: "004", title: title + fmt.Sprintf("; P1 30 %%, static timer %g s", tyrexTimer(v)),
		columns:  []string{"median slowdown", "p95 slowdown", "V95", "max slowdown"},
		rows:     []string{"fifo", "fair (max-min)", "fair-by-tasks", "tyrex-static", "tyrex-dynamic"},
		reported: reported,
		run: func(seed uint64, small bool) ([][]float64, error) {
			jobs := 300
			if small {
				jobs = 150
			}
			w, err := workloads.Tyrex(v, jobs, load, seed)
			if err != nil {
				return nil, err
			}
			rs, err := runPoliciesWith(w, &sim.Settings{Seed: seed, ReduceSlowstart: slowstart}, true, &sim.FIFO{}, &sim.Fair{}, &sim.TaskFair{},
				&sim.Tyrex{Timers: []float64{tyrexTimer(v)}}, &sim.Tyrex{Dynamic: true})
			if err != nil {
				return nil, err
			}
			out := make([][]float64, len(rs))
			for i, r := range rs {
				mx := 0.0
				for _, j := range r.Jobs {
					mx = max(mx, j.Slowdown)
				}
				out[i] = []float64{r.Summary.MedianSlowdown, r.Summary.P95Slowdown, r.Summary.V95, mx}
			}
			return out, nil
		},
		checks: func(med [][]float64) []expCheck {
			var cs []expCheck
			for _, t := range []int{3, 4} {
				name := []string{"", "", "", "tyrex-static", "tyrex-dynamic"}[t]
				dyn := t == 4
				cs = append(cs,
					expCheck{Claim: name + ": p95 slowdown below FIFO's", Holds: med[t][1] < med[0][1], Soft: !strictFIFO(dyn)},
					expCheck{Claim: name + ": V95 at most 3/4 of FIFO's", Holds: med[t][2] <= 0.75*med[0][2], Soft: !strictFIFO(dyn)},
					expCheck{Claim: name + ": p95 slowdown below seed 004's FAIR's (fair-by-tasks)", Holds: med[t][1] < med[2][1], Soft: !strictFair(dyn)},
					expCheck{Claim: name + ": V95 at most 3/4 of fair-by-tasks'", Holds: med[t][2] <= 0.75*med[2][2], Soft: !strictFair(dyn)},
					expCheck{Claim: name + ": p95 slowdown below max-min fair's", Holds: med[t][1] < med[1][1], Soft: !strictFair(dyn)})
			}
			return cs
		},
	}
}

// ---- seed 003: packing ----

// packingAlgos are the planners compared, sequential first (the baseline).
var packingAlgos = []string{"sequential", "pair", "pso", "exact"}

// packingPlan plans p with one algorithm. PSO runs a small swarm (300
// particles × 100 iterations) from the experiment's seed: W1–W6 have at most
// seven jobs, where it finds the optimum or comes close.
func packingPlan(p *model.Problem, name, algo string, seed uint64) (*plan.Plan, error) {
	var s model.Schedule
	switch algo {
	case "sequential":
		s = model.Sequential(p)
	case "pair":
		r, err := optimize.PairSchedule(p)
		if err != nil {
			return nil, err
		}
		s = r.Schedule
	case "pso":
		r, err := optimize.Swarm(p, &pso.Settings{Particles: 300, Iterations: 100, Seed: seed})
		if err != nil {
			return nil, err
		}
		s = r.Schedule
	case "exact":
		r, err := optimize.Exact(p)
		if err != nil {
			return nil, err
		}
		s = r.Schedule
	}
	sol, err := optimize.NewSolution(p, s, algo)
	if err != nil {
		return nil, err
	}
	return plan.New(p, name, sol)
}

func packingExperiment() experiment {
	names := workloads.Names()
	reported := make([]string, len(names))
	for i := range names {
		if i < 3 {
			reported[i] = "multi-job saves 24–33 % vs sequential (P = 9)"
		} else {
			reported[i] = "pair saves 16–30 % vs sequential (P = 10)"
		}
	}
	cols := []string{}
	for _, a := range packingAlgos {
		cols = append(cols, a+" plan (s)")
	}
	for _, a := range packingAlgos {
		cols = append(cols, a+" sim (s)")
	}
	cols = append(cols, "fifo sim (s)", "fair sim (s)")
	return experiment{
		name: "packing-w1-w6", paper: "003",
		title: "W1–W6 planned by each algorithm (predicted makespan), the plans replayed task by task in the simulator, " +
			"and FIFO and fair sharing of the same jobs on the whole shared cluster",
		columns: cols, rows: names, reported: reported,
		run: func(seed uint64, small bool) ([][]float64, error) {
			out := make([][]float64, len(names))
			for i, name := range names {
				w, err := workloads.Get(name)
				if err != nil {
					return nil, err
				}
				cl := model.Cluster{Hosts: 9, DisksPerHost: 2, ExtraRatio: 2, Alpha: 1.3, CoresPerHost: 4, MemoryMiBPerHost: 8192}
				if i >= 3 {
					cl.Hosts = 10
				}
				p, err := model.NewProblem(w, cl)
				if err != nil {
					return nil, err
				}
				simCl := sim.Cluster{Nodes: cl.PrimaryVMs(), MapSlots: 2, ReduceSlots: 1}
				row := make([]float64, 0, len(cols))
				var sims []float64
				for _, algo := range packingAlgos {
					pl, err := packingPlan(p, name, algo, seed)
					if err != nil {
						return nil, err
					}
					row = append(row, pl.Makespan)
					pw, err := sim.PlanWorkload(pl, simCl, 4)
					if err != nil {
						return nil, err
					}
					rw, pol, err := sim.ReplayPlan(pl, pw, true)
					if err != nil {
						return nil, err
					}
					r, err := sim.Run(rw, pol, &sim.Settings{Seed: seed})
					if err != nil {
						return nil, err
					}
					sims = append(sims, r.Makespan)
				}
				row = append(row, sims...)
				shared, err := sim.FromModel(w, simCl, 4)
				if err != nil {
					return nil, err
				}
				rs, err := runPolicies(shared, seed, false, &sim.FIFO{}, &sim.Fair{})
				if err != nil {
					return nil, err
				}
				out[i] = append(row, rs[0].Makespan, rs[1].Makespan)
			}
			return out, nil
		},
		checks: func(med [][]float64) []expCheck {
			order, track, beat := true, true, true
			for _, r := range med {
				// exact ≤ pso ≤ … and every plan ≤ sequential.
				order = order && r[3] <= r[2]+1e-6 && r[2] <= r[0]+1e-6 && r[1] <= r[0]+1e-6 && r[3] <= r[1]+1e-6
				for a := range packingAlgos {
					track = track && math.Abs(r[4+a]-r[a]) <= 0.05*r[a]
				}
				beat = beat && r[7] < r[8] && r[7] < r[9]
			}
			return []expCheck{
				{Claim: "planned makespans: exact ≤ pso, pair ≤ sequential on every workload", Holds: order},
				{Claim: "every plan's simulated replay within 5 % of its predicted makespan", Holds: track},
				{Claim: "the exact plan's replay beats FIFO and fair sharing of the whole cluster", Holds: beat},
			}
		},
	}
}
