package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/packer-sched/packer/internal/progress"
)

// TestPlanProgressLogWhenPiped: stderr is not a terminal here, so plan
// writes whole summary lines, at most one per progress.LogEvery (10 s in
// use; the test shortens it so as not to wait). With an hour between lines
// a short run writes none; with no interval every report is a line: the
// swarm's iterations, then column generation's plan, bound and gap after
// every pricing round. The lines agree with themselves (gap = plan ÷
// bound − 1), the bound only rises and the plan only falls, and they agree
// with the plan printed at the end; stdout is the same either way.
func TestPlanProgressLogWhenPiped(t *testing.T) {
	old := progress.LogEvery
	t.Cleanup(func() { progress.LogEvery = old })
	args := []string{"plan", "-w", "random-m20-seed1", "--particles", "30", "--iterations", "10", "--time-limit", "0"}
	progress.LogEvery = time.Hour
	code, quiet, errs := packer(t, "", args...)
	if code != 0 || errs != "" {
		t.Fatalf("an hour between lines: exit %d, stderr %q", code, errs)
	}
	progress.LogEvery = 0
	code, out, errs := packer(t, "", args...)
	if code != 0 || out != quiet {
		t.Fatalf("exit %d; stdout differs from the quiet run's: %v", code, out != quiet)
	}
	num := `([0-9.]+) s \([0-9hms]+\)`
	colLine := regexp.MustCompile(`^columns: plan ` + num + `, bound ` + num + `, gap ([0-9.]+) %$`)
	psoLine := regexp.MustCompile(`^pso: iteration ([0-9]+)/10, best makespan ` + num + `$`)
	var plans, bounds []float64
	swarmLines := 0
	for _, line := range strings.Split(strings.TrimSuffix(errs, "\n"), "\n") {
		if psoLine.MatchString(line) {
			swarmLines++
			continue
		}
		m := colLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("stderr line %q is neither the swarm's nor column generation's summary", line)
		}
		plan, bound, gap := atof(t, m[1]), atof(t, m[2]), atof(t, m[3])
		if bound <= 0 || bound > plan || absDiff(gap, 100*(plan/bound-1)) > 0.01 {
			t.Errorf("%q: plan %v, bound %v, gap %v %%; want 0 < bound ≤ plan, gap = 100·(plan/bound − 1)", line, plan, bound, gap)
		}
		if n := len(plans); n > 0 && (plan > plans[n-1] || bound < bounds[n-1]) {
			t.Errorf("%q after plan %v, bound %v: the plan rose or the bound fell", line, plans[n-1], bounds[n-1])
		}
		plans, bounds = append(plans, plan), append(bounds, bound)
	}
	if swarmLines == 0 || len(plans) == 0 {
		t.Fatalf("%d swarm lines, %d column generation lines in %q", swarmLines, len(plans), errs)
	}
	final := regexp.MustCompile(`(?m)^Makespan: +([0-9.]+) s .*\n(?:.*\n)*?Lower bound: +([0-9.]+) s`).FindStringSubmatch(out)
	if final == nil {
		t.Fatalf("no makespan and lower bound in stdout:\n%s", out)
	}
	// The last line is the result's (the integer search after the last
	// pricing round moves both); one decimal printed on both sides: allow
	// its rounding.
	if ms, lb := atof(t, final[1]), atof(t, final[2]); absDiff(ms, plans[len(plans)-1]) > 0.1 || absDiff(lb, bounds[len(bounds)-1]) > 0.1 {
		t.Errorf("printed plan %v and bound %v; the last summary said plan %v, bound %v", ms, lb, plans[len(plans)-1], bounds[len(bounds)-1])
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func absDiff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}
