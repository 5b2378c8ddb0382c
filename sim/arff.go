package sim

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ARFF is the HybS paper's simulator summary (Nguyen et al., UCC 2012) in
// WEKA's ARFF format, one row per job and outcome: its task count, mean task
// time, wait (first task start − submit), service level (from levels by job
// name, else 1), run time (finish − first start), response, the expansion
// factor (run + wait) ÷ run, and the paper's class: small or large by task
// count and short or long by mean task time, each against the workload's
// mean. The paper trains its classifier on these rows.
func ARFF(outcomes []Outcome, levels map[string]float64) []byte {
	var b bytes.Buffer
	b.WriteString("% packer simulate: the HybS paper's job summary\n@relation packer-simulate\n\n")
	for _, a := range []string{"policy string", "job string", "tasks numeric", "avg_task_time numeric", "wait_time numeric",
		"service_level numeric", "run_time numeric", "response numeric", "expansion_factor numeric", "class {SS,SL,LS,LL}"} {
		fmt.Fprintf(&b, "@attribute %s\n", a)
	}
	b.WriteString("\n@data\n")
	q := func(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'" }
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, o := range outcomes {
		w := o.Workload
		var sumN, sumT float64
		for _, j := range w.Jobs {
			n, mean := jobTaskStats(j)
			sumN += float64(n)
			sumT += mean
		}
		avgN, avgT := sumN/float64(len(w.Jobs)), sumT/float64(len(w.Jobs))
		for i, jr := range o.Result.Jobs {
			n, mean := jobTaskStats(w.Jobs[i])
			wait, run := jr.Start-jr.Submit, jr.Finish-jr.Start
			class := []byte("SS")
			if float64(n) > avgN {
				class[0] = 'L'
			}
			if mean > avgT {
				class[1] = 'L'
			}
			exp := 1.0
			if run > 0 {
				exp = (run + wait) / run
			}
			sl, ok := levels[jr.Name]
			if !ok {
				sl = 1
			}
			fmt.Fprintf(&b, "%s,%s,%d,%s,%s,%s,%s,%s,%s,%s\n", q(o.Result.Policy), q(jr.Name), n, f(mean), f(wait),
				f(sl), f(run), f(jr.Response), f(exp), class)
		}
	}
	return b.Bytes()
}

// jobTaskStats is a job's task count (maps and reduces) and mean task time.
func jobTaskStats(j Job) (n int, mean float64) {
	n = j.Maps.N() + j.Reduces.N()
	return n, (j.Maps.Total() + j.Reduces.Total()) / float64(n)
}
