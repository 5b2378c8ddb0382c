package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads/traces"
)

// The flags that tune the policies of the Dynamic Proportional Share, HybS
// and Tyrex papers, and reduce slow-start.
var (
	spendingFlag   = &cli.StringFlag{Name: "spending", Usage: "dp: spending rates per user, `USER=RATE,...` (others 1; budgets unlimited)"}
	timerFlag      = zeroIsDefault(&cli.Float64Flag{Name: "tyrex-timer", Value: sim.DefaultTyrexTimer, Usage: "tyrex-static: P1 timer in slot-`SECONDS` (partitions 30 % / 70 % of the nodes)"})
	arffFlag       = &cli.StringFlag{Name: "arff", Usage: "write the HybS paper's ARFF summary, one row per job and policy, to `FILE` (for WEKA)"}
	hybsLevelsFlag = &cli.StringFlag{Name: "hybs-jobs", Usage: "hybs: service levels and prior waits by job from a HybS paper workload `FILE` (its 4th and 5th columns; import the same file with packer workloads import --format hybs)"}
	// slowstartFlag is Hadoop 1's reduce slow-start (sim.Settings.ReduceSlowstart).
	slowstartFlag = &cli.Float64Flag{Name: "slowstart", Usage: "reduces may start once this `FRACTION` of their job's maps is done, holding their slots (Hadoop 1: 0.05; 0: after the maps)"}
)

// policyHelp lists the policy registry, one line each, for --help.
func policyHelp() string {
	width := 0
	for _, p := range sim.BuiltinPolicies {
		width = max(width, len(strings.Join(p.Forms(), ", ")))
	}
	var b strings.Builder
	for _, p := range sim.BuiltinPolicies {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, strings.Join(p.Forms(), ", "), p.Usage)
	}
	return b.String()
}

// simFlagChecks are simulate's flag rules, checked in order before any
// work; each names its flag in a usage error. The rules of the values
// simulate passes to sim are sim's own (simSettings, simPolicyOptions).
var simFlagChecks = []func(c *cli.Context) error{
	func(c *cli.Context) error { return checkOutputs(c, "jobs-csv", "trace", "arff") },
	checkChart,
	checkZero,
	func(c *cli.Context) error { _, err := parseSpending(c.String("spending")); return err },
	atLeastOne("nodes"), atLeastOne("racks"), atLeastOne("map-slots"), atLeastOne("reduce-slots"), atLeastOne("replication"),
}

// atLeastOne is the rule of a cluster size flag: unset, or at least 1.
func atLeastOne(flag string) func(c *cli.Context) error {
	return func(c *cli.Context) error {
		if c.IsSet(flag) && c.Int(flag) < 1 {
			return badUsage("--%s must be at least 1, got %d", flag, c.Int(flag))
		}
		return nil
	}
}

// parseSpending reads --spending's USER=RATE pairs; whether a rate is one a
// dp queue can spend is sim.PolicyOptions.Validate's to say.
func parseSpending(s string) (map[string]float64, error) {
	out := map[string]float64{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		user, rate, ok := strings.Cut(strings.TrimSpace(kv), "=")
		v, err := strconv.ParseFloat(rate, 64)
		if !ok || user == "" || err != nil {
			return nil, badUsage("--spending: %q is not USER=RATE", kv)
		}
		if _, dup := out[user]; dup {
			return nil, badUsage("--spending: user %q is given twice", user)
		}
		out[user] = v
	}
	return out, nil
}

// simPolicyOptions gathers the policy flags, checked by sim with the flag
// named in a usage error, then reads --hybs-jobs once.
func simPolicyOptions(c *cli.Context) (*sim.PolicyOptions, error) {
	o := &sim.PolicyOptions{Delay: c.Int("delay"), RackDelay: c.Int("rack-delay"), TyrexTimer: c.Float64("tyrex-timer")}
	var err error
	if o.Spending, err = parseSpending(c.String("spending")); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, settingUsage(c, err)
	}
	path := c.String("hybs-jobs")
	if path == "" {
		return o, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, badInput(fmt.Errorf("--hybs-jobs: %w", err))
	}
	defer f.Close()
	jobs, _, err := traces.ReadHybS(f, path, nil)
	if err != nil {
		return nil, badInput(err)
	}
	o.HybSLevels, o.HybSWaited = map[string]float64{}, map[string]float64{}
	for _, j := range jobs {
		o.HybSLevels[j.ID], o.HybSWaited[j.ID] = j.ServiceLevel, j.Wait
	}
	if err := o.Validate(); err != nil {
		return nil, badInput(fmt.Errorf("--hybs-jobs %s: %w", path, err))
	}
	return o, nil
}

// policyList is --policies as names, with plan made plan-no-barrier by
// --no-barrier or --barrier=false.
func policyList(c *cli.Context) []string {
	var names []string
	for _, n := range strings.Split(c.String("policies"), ",") {
		n = strings.TrimSpace(n)
		if n == "plan" && (c.Bool("no-barrier") || !c.Bool("barrier")) {
			n = "plan-no-barrier"
		}
		names = append(names, n)
	}
	return names
}
