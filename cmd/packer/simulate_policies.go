package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads/traces"
)

// The policies of seeds 000, 002 and 004 (issue 6) as `packer simulate`
// names them, with the flags that tune them.
var extraPolicies = []string{"dp", "dp-preempt", "hybs", "hybs-fcfs", "hybs-sjf", "hybs-smallest", "fair-by-tasks", "tyrex-static", "tyrex-dynamic"}

var (
	spendingFlag   = &cli.StringFlag{Name: "spending", Usage: "dp: spending rates per user, `USER=RATE,...` (others 1; budgets unlimited)"}
	timerFlag      = &cli.Float64Flag{Name: "tyrex-timer", Value: 200, Usage: "tyrex-static: P1 timer in slot-`SECONDS` (partitions 30 % / 70 % of the nodes)"}
	arffFlag       = &cli.StringFlag{Name: "arff", Usage: "write seed 002's ARFF summary, one row per job and policy, to `FILE` (for WEKA)"}
	hybsLevelsFlag = &cli.StringFlag{Name: "hybs-jobs", Usage: "hybs: service levels and prior waits by job from seed 002's workload `FILE` (its 4th and 5th columns; import the same file with packer workloads import --format hybs)"}
	// slowstartFlag is Hadoop 1's reduce slow-start (sim.Settings.ReduceSlowstart).
	slowstartFlag = &cli.Float64Flag{Name: "slowstart", Usage: "reduces may start once this `FRACTION` of their job's maps is done, holding their slots (Hadoop 1: 0.05; 0: after the maps)"}
)

// checkPolicyFlags rejects bad --spending, --slowstart, --tyrex-timer, --hybs-jobs and --arff before
// any work is done.
func checkPolicyFlags(c *cli.Context) error {
	if _, err := parseSpending(c.String("spending")); err != nil {
		return err
	}
	if f := c.Float64("slowstart"); !(f >= 0 && f <= 1) {
		return badUsage("--slowstart must be between 0 and 1, got %v", f)
	}
	if t := c.Float64("tyrex-timer"); !(t > 0) || math.IsInf(t, 0) {
		return badUsage("--tyrex-timer must be positive and finite, got %v", t)
	}
	if _, err := hybsJobs(c.String("hybs-jobs")); err != nil {
		return badInput(err)
	}
	if path := c.String("arff"); path != "" {
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return badInput(fmt.Errorf("--arff %s: directory %s does not exist", path, filepath.Dir(path)))
		}
	}
	return nil
}

func parseSpending(s string) (map[string]float64, error) {
	out := map[string]float64{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		user, rate, ok := strings.Cut(strings.TrimSpace(kv), "=")
		v, err := strconv.ParseFloat(rate, 64)
		if !ok || user == "" || err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, badUsage("--spending: %q is not USER=RATE with a positive rate", kv)
		}
		out[user] = v
	}
	return out, nil
}

// hybsJobs reads seed 002's workload file for its service levels and waits
// by job ID; no path, no jobs.
func hybsJobs(path string) ([]traces.HybSJob, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--hybs-jobs: %w", err)
	}
	defer f.Close()
	jobs, _, err := traces.ReadHybS(f, path, nil)
	return jobs, err
}

// extraPolicy builds one of extraPolicies, or returns nil for another name.
// Flags were checked by checkPolicyFlags.
func extraPolicy(c *cli.Context, name string) sim.Policy {
	rates, _ := parseSpending(c.String("spending"))
	jobs, _ := hybsJobs(c.String("hybs-jobs"))
	levels, waited := map[string]float64{}, map[string]float64{}
	for _, j := range jobs {
		levels[j.ID], waited[j.ID] = j.ServiceLevel, j.Wait
	}
	hybs := func(h *sim.HybS) *sim.HybS {
		h.Levels, h.Waited = levels, waited
		return h
	}
	switch name {
	case "dp", "dp-preempt":
		return &sim.DP{Spending: rates, DefaultBudget: math.Inf(1), WorkConserving: true, Preempt: name == "dp-preempt", Label: name}
	case "hybs":
		return hybs(&sim.HybS{Alpha: 1, Beta: -1, Gamma: -1, Label: "hybs"})
	case "hybs-fcfs":
		return hybs(&sim.HybS{Alpha: 1, Label: name})
	case "hybs-sjf":
		return hybs(&sim.HybS{Beta: -1, Label: name})
	case "hybs-smallest":
		return hybs(&sim.HybS{Gamma: -1, Label: name})
	case "fair-by-tasks":
		return &sim.TaskFair{}
	case "tyrex-static":
		return &sim.Tyrex{Timers: []float64{c.Float64("tyrex-timer")}}
	case "tyrex-dynamic":
		return &sim.Tyrex{Dynamic: true}
	}
	return nil
}

// writeARFF writes seed 002's simulator summary: per job its task count,
// mean task time, wait (first task start − submit), service level (from
// --hybs-jobs, else 1),
// run time (finish − first start), response, the expansion factor
// (run + wait) ÷ run, and the seed's class: small or large by task count and
// short or long by mean task time, each against the workload's mean.
func writeARFF(c *cli.Context, path string, runs []simRun) error {
	jobs, _ := hybsJobs(c.String("hybs-jobs"))
	level := map[string]float64{}
	for _, j := range jobs {
		level[j.ID] = j.ServiceLevel
	}
	var b bytes.Buffer
	b.WriteString("% packer simulate: seed 002's job summary\n@relation packer-simulate\n\n")
	for _, a := range []string{"policy string", "job string", "tasks numeric", "avg_task_time numeric", "wait_time numeric",
		"service_level numeric", "run_time numeric", "response numeric", "expansion_factor numeric", "class {SS,SL,LS,LL}"} {
		fmt.Fprintf(&b, "@attribute %s\n", a)
	}
	b.WriteString("\n@data\n")
	q := func(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'" }
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, run := range runs {
		w := run.workload
		var sumN, sumT float64
		for _, j := range w.Jobs {
			n := j.Maps.N() + j.Reduces.N()
			sumN += float64(n)
			sumT += (j.Maps.Total() + j.Reduces.Total()) / float64(n)
		}
		avgN, avgT := sumN/float64(len(w.Jobs)), sumT/float64(len(w.Jobs))
		for i, jr := range run.result.Jobs {
			j := w.Jobs[i]
			n := j.Maps.N() + j.Reduces.N()
			mean := (j.Maps.Total() + j.Reduces.Total()) / float64(n)
			wait, runT := jr.Start-jr.Submit, jr.Finish-jr.Start
			class := []byte("SS")
			if float64(n) > avgN {
				class[0] = 'L'
			}
			if mean > avgT {
				class[1] = 'L'
			}
			exp := 1.0
			if runT > 0 {
				exp = (runT + wait) / runT
			}
			sl, ok := level[jr.Name]
			if !ok {
				sl = 1
			}
			fmt.Fprintf(&b, "%s,%s,%d,%s,%s,%s,%s,%s,%s,%s\n", q(run.result.Policy), q(jr.Name), n, f(mean), f(wait),
				f(sl), f(runT), f(jr.Response), f(exp), class)
		}
	}
	return safefile.WriteFile(path, b.Bytes(), 0o644)
}
