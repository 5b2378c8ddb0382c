package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExperimentShardsMergeAsOneRun: the experiments run in 1 to 4 shards
// (by --shard, and by a Slurm array's variables) and merged print what the
// run without shards prints, byte for byte, as a table and as JSON; merge
// names a missing shard and its experiments, and re-running that shard
// completes the run.
func TestExperimentShardsMergeAsOneRun(t *testing.T) {
	names := []string{"hybs-exp2", "dp-shares", "dp-budget"}
	run := func(extra ...string) []string {
		return slices.Concat([]string{"experiment", "run", "--seeds", "1"}, names, extra)
	}
	want := map[string]string{}
	for _, format := range []string{"table", "json"} {
		code, out, errs := packer(t, "", run("--format", format)...)
		if code != 0 {
			t.Fatalf("run: exit %d: %s", code, errs)
		}
		want[format] = out
	}
	for n := 1; n <= 4; n++ {
		dir := t.TempDir()
		for i := range n {
			args := run("--out", dir)
			if i%2 == 0 {
				args = append(args, "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))
			} else { // a Slurm array task: ids 1.., shard = id - min
				t.Setenv("SLURM_ARRAY_TASK_ID", strconv.Itoa(i+1))
				t.Setenv("SLURM_ARRAY_TASK_MIN", "1")
				t.Setenv("SLURM_ARRAY_TASK_COUNT", strconv.Itoa(n))
			}
			code, _, errs := packer(t, "", args...)
			os.Unsetenv("SLURM_ARRAY_TASK_ID")
			if code != 0 {
				t.Fatalf("%d shards, shard %d: exit %d: %s", n, i, code, errs)
			}
		}
		for format, w := range want {
			code, out, errs := packer(t, "", "experiment", "merge", "--format", format, dir)
			if code != 0 || out != w {
				t.Fatalf("%d shards, %s: exit %d (%s), merged output differs:\n%s\nwant:\n%s", n, format, code, errs, out, w)
			}
		}
		if n != 3 {
			continue
		}
		// Shard 1 of 3 (dp-shares) lost: named, then re-run.
		lost := filepath.Join(dir, "experiments-1-of-3.json")
		if err := os.Remove(lost); err != nil {
			t.Fatal(err)
		}
		code, _, errs := packer(t, "", "experiment", "merge", dir)
		if code != 2 || !strings.Contains(errs, "dp-shares (shard 1)") || strings.Count(errs, "\n") != 1 {
			t.Fatalf("merge without shard 1: exit %d: %q", code, errs)
		}
		if code, _, errs := packer(t, "", run("--out", dir, "--shard", "1/3")...); code != 0 {
			t.Fatalf("re-run shard 1: exit %d: %s", code, errs)
		}
		if code, out, _ := packer(t, "", "experiment", "merge", "--format", "json", dir); code != 0 || out != want["json"] {
			t.Fatalf("after re-running shard 1: exit %d, output differs", code)
		}
	}
	for _, args := range [][]string{
		run("--shard", "0/2"),                // no --out
		run("--out", t.TempDir()),            // --out, no shard
		run("--shard", "2/2", "--out", "x"),  // no such shard
		{"experiment", "merge", t.TempDir()}, // nothing to merge
	} {
		if code, _, errs := packer(t, "", args...); code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, want 2 and one line: %q", args, code, errs)
		}
	}
}
