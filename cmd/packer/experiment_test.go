package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/packer-sched/packer/experiments"
)

func TestExperimentCLI(t *testing.T) {
	code, out, _ := packer(t, "", "experiment", "list")
	if code != 0 {
		t.Fatalf("list: exit %d", code)
	}
	for _, name := range []string{"dp-budget", "dp-shares", "dp-80", "dp-boost", "delay-locality", "hybs-exp1", "hybs-exp2", "tyrex-hvw", "tyrex-mvw", "tyrex-lvw", "tyrex-load90", "tyrex-hvw-no-slowstart", "packing-w1-w6"} {
		if !strings.Contains(out, name) {
			t.Errorf("list does not name %s:\n%s", name, out)
		}
	}
	// The list names each experiment's paper, not a number.
	if !strings.Contains(out, "PAPER") || strings.Contains(out, "SEED") || !strings.Contains(out, "dp (Sandholm & Lai, JSSPP 2010)") {
		t.Errorf("list does not name the papers:\n%s", out)
	}
	code, out, _ = packer(t, "", "experiment", "run", "--seeds", "1", "--format", "json", "hybs-exp2")
	if code != 0 {
		t.Fatalf("run hybs-exp2: exit %d", code)
	}
	var rs []experiments.Result
	if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 || rs[0].Name != "hybs-exp2" || rs[0].Paper.Name != "hybs" || len(rs[0].Rows) != 4 {
		t.Fatalf("json: %v, %d results:\n%s", err, len(rs), out)
	}
	code, out, _ = packer(t, "", "experiment", "run", "--seeds", "1", "hybs-exp2")
	if code != 0 || !strings.Contains(out, "hybs(1,-1,-1)") || !strings.Contains(out, "2.1× faster than fair") ||
		!strings.Contains(out, "hybs-exp2 (Nguyen et al., UCC 2012)") {
		t.Errorf("table: exit %d:\n%s", code, out)
	}
	// Flags after the name work as before it.
	code, out, _ = packer(t, "", "experiment", "run", "hybs-exp2", "--seeds", "1", "--format=json")
	if err := json.Unmarshal([]byte(out), &rs); code != 0 || err != nil || len(rs) != 1 || len(rs[0].Seeds) != 1 {
		t.Errorf("trailing flags: exit %d, %v:\n%s", code, err, out)
	}
	for _, args := range [][]string{
		{"experiment", "run", "no-such"},
		{"experiment", "run", "--seeds", "0", "hybs-exp1"},
		{"experiment", "run", "--format", "csv", "hybs-exp1"},
		{"experiment", "run", "hybs-exp1", "--seeds", "0"},
		{"experiment", "run", "hybs-exp1", "--seeds"},
		{"experiment", "run", "hybs-exp1", "--seeds", "two"},
		{"experiment", "run", "hybs-exp1", "--bogus"},
		{"experiment", "list", "extra"},
	} {
		code, out, errOut := packer(t, "", args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, one line", args, code, out, errOut)
		}
	}
}
