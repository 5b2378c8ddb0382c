package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepChartShardsMergeAsOneRun: the merged chart, SVG and PNG, is
// the unsharded run's byte for byte, for 1 to 4 shards, and draws both
// workloads' panels and both policies.
func TestSweepChartShardsMergeAsOneRun(t *testing.T) {
	sw := sweepFixture(t)
	out := t.TempDir()
	for _, ext := range []string{"svg", "png"} {
		for _, metric := range []string{"makespan", "p95-slowdown"} {
			name := filepath.Join(out, fmt.Sprintf("whole-%s.%s", metric, ext))
			mustPacker(t, "sweep", "run", "--metric", metric, "--chart", name, sw)
		}
	}
	svg, err := os.ReadFile(filepath.Join(out, "whole-makespan.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{">tiny.json<", ">W1<", ">fifo<", ">fair<", ">cluster nodes<", ">makespan (s)<", ">makespan (min)<"} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("the chart lacks %s", s)
		}
	}
	for n := 1; n <= 4; n++ {
		dir := t.TempDir()
		for k := range n {
			mustPacker(t, "sweep", "run", "--shard", fmt.Sprintf("%d/%d", k, n), "--out", dir, sw)
		}
		for _, ext := range []string{"svg", "png"} {
			for _, metric := range []string{"makespan", "p95-slowdown"} {
				name := fmt.Sprintf("%s.%s", metric, ext)
				got := filepath.Join(out, fmt.Sprintf("merged-%d-%s", n, name))
				mustPacker(t, "sweep", "merge", "--metric", metric, "--chart", got, dir)
				a, _ := os.ReadFile(filepath.Join(out, "whole-"+name))
				b, _ := os.ReadFile(got)
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("N=%d, %s: the merged chart (%d bytes) differs from the unsharded run's (%d)", n, name, len(b), len(a))
				}
			}
		}
	}
}

// TestSweepChartPlan: a plan sweep's chart is the plan makespan against
// hosts, a line per algorithm; another metric is refused.
func TestSweepChartPlan(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "p.json")
	if err := os.WriteFile(sw, []byte(`{"name": "p", "run": "plan", "workloads": ["W1"], "hosts": [4, 9], "algorithms": ["pair", "sequential"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pic := filepath.Join(dir, "p.svg")
	mustPacker(t, "sweep", "run", "--chart", pic, sw)
	svg, _ := os.ReadFile(pic)
	for _, s := range []string{">W1<", ">pair<", ">sequential<", ">hosts<", ">plan makespan (min)<"} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("the plan chart lacks %s", s)
		}
	}
	code, stdout, errs := packer(t, "", "sweep", "run", "--metric", "p95-slowdown", "--chart", filepath.Join(dir, "q.svg"), sw)
	if code != 2 || stdout != "" || errs != "packer: --metric: a plan sweep draws makespan only, not \"p95-slowdown\"\n" {
		t.Errorf("plan --metric p95-slowdown: exit %d, %q, %q", code, stdout, errs)
	}
}

// TestSweepChartBadInput: a metric packer does not know, a picture format
// it cannot draw and a chart asked of one shard exit 2 with one line, and
// write nothing: no chart, no CSV, no results directory.
func TestSweepChartBadInput(t *testing.T) {
	sw := sweepFixture(t)
	dir := t.TempDir()
	res := t.TempDir()
	for k := range 2 {
		mustPacker(t, "sweep", "run", "--shard", fmt.Sprintf("%d/2", k), "--out", res, sw)
	}
	pic, csv, out := filepath.Join(dir, "c.svg"), filepath.Join(dir, "r.csv"), filepath.Join(dir, "out")
	unknown := `packer: --metric: unknown metric "speed"; want one of makespan, mean-response, median-response, p95-response, mean-slowdown, median-slowdown, p95-slowdown, v95` + "\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "run", "--metric", "speed", "--chart", pic, "--csv", csv, sw}, unknown},
		{[]string{"sweep", "run", "--metric", "speed", "--out", out, sw}, unknown},
		{[]string{"sweep", "merge", "--metric", "speed", "--chart", pic, "--csv", csv, res}, unknown},
		{[]string{"sweep", "run", "--chart", filepath.Join(dir, "c.gif"), "--csv", csv, sw}, "packer: --chart " + filepath.Join(dir, "c.gif") + ": unknown picture format \".gif\" (want .svg or .png)\n"},
		{[]string{"sweep", "run", "--shard", "0/2", "--out", out, "--chart", pic, sw}, "packer: sweep run: --chart draws the whole sweep: give it to sweep merge, not to shard 0/2\n"},
	} {
		code, stdout, errs := packer(t, "", c.args...)
		if code != 2 || stdout != "" || errs != c.want {
			t.Errorf("packer %s: exit %d, stdout %q, stderr %q; want %q", strings.Join(c.args, " "), code, stdout, errs, c.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("refused sweeps left %v", left)
	}
}
