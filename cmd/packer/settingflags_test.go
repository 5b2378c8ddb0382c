package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingFlags: a value sim or optimize refuses exits 2 with one line
// naming the flag and the value, before any output file is made. The rules
// are the libraries'; --rack-factor 0.5 is the one that drifted (issue 38:
// the command refused only 0, sim anything below 1, once the run began).
func TestSettingFlags(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]string{ // outputs that must not be made
		"simulate": {"-w", "W1", "--trace", filepath.Join(dir, "t.csv"), "--jobs-csv", filepath.Join(dir, "j.csv")},
		"plan":     {"-w", "W1", "--export-lp", filepath.Join(dir, "m.lp"), "--output", filepath.Join(dir, "p.json")},
		"compare":  {"--workloads", "W1", "--algorithms", "pair", "--chart", filepath.Join(dir, "c.svg")},
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--rack-factor", "0.5"}, "--rack-factor must be at least 1 and finite, got 0.5"},
		{[]string{"simulate", "--rack-factor", "0"}, "--rack-factor must not be 0 (leave it out for the default, 1.2), got 0"},
		{[]string{"simulate", "--remote-factor", "-0"}, "--remote-factor must not be 0"},
		{[]string{"simulate", "--remote-factor", "Inf"}, "--remote-factor must be at least 1 and finite, got +Inf"},
		{[]string{"simulate", "--heartbeat", "2e6"}, "--heartbeat must be 0 or between 0.001 and 1e+06 seconds, got 2e+06"},
		{[]string{"simulate", "--slowstart", "-0.5"}, "--slowstart must be between 0 and 1, got -0.5"},
		{[]string{"simulate", "-p", "tyrex-static", "--tyrex-timer", "0"}, "--tyrex-timer must not be 0 (leave it out for the default, 200), got 0"},
		{[]string{"simulate", "-p", "tyrex-static", "--tyrex-timer", "-1"}, "--tyrex-timer must be positive and finite, got -1"},
		{[]string{"simulate", "--rack-delay", "-2"}, "--rack-delay must not be negative, got -2"},
		{[]string{"simulate", "-p", "dp", "--spending", "a=1,b=-1"}, `--spending: "b" must be positive and finite, got -1`},
		{[]string{"plan", "--time-limit", "-1s"}, "--time-limit must not be negative (0: no limit), got -1s"},
		{[]string{"plan", "--work-limit", "-5"}, "--work-limit must not be negative (0: no limit), got -5"},
		{[]string{"compare", "--time-limit", "-1m"}, "--time-limit must not be negative (0: no limit), got -1m0s"},
	} {
		code, out, errs := packer(t, "", append(c.args, files[c.args[0]]...)...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "packer: "+c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line %q", c.args, code, out, errs, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("%v: wrote %s", c.args, entries[0].Name())
		}
	}
}

// TestFieldFlag: a library field's flag is its name in kebab case, but for
// the exceptions fieldFlags lists.
func TestFieldFlag(t *testing.T) {
	for field, want := range map[string]string{"RackFactor": "rack-factor", "TimeLimit": "time-limit", "HybSLevels": "hyb-s-levels", "Delay": "delay"} {
		if got := kebab(field); got != want {
			t.Errorf("kebab(%q) = %q, want %q", field, got, want)
		}
	}
}
