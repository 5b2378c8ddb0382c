package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sweepFixture writes a 12-point simulate sweep (a workload file beside
// it and a built-in one) and returns its path.
func sweepFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{
		"tiny.json": `{"cluster": {"nodes": 4}, "jobs": [
  {"name": "a", "arrival": 0, "maps": {"count": 6, "mean": 10}, "reduces": {"count": 1, "mean": 5}},
  {"name": "b", "arrival": 3, "maps": {"durations": [5, 7, 9]}}]}`,
		"s.json": `{"name": "cli", "run": "simulate", "workloads": ["tiny.json", "W1"], "nodes": [4, 8, 12],
  "policies": ["fifo", "fair"], "options": [{"name": "now"}]}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "s.json")
}

// mustPacker runs packer and fails the test unless it exits 0.
func mustPacker(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := packer(t, "", args...)
	if code != 0 {
		t.Fatalf("packer %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// TestSweepShardsMergeAsOneRun: the CLI's merged table, CSV and JSON lines
// are the unsharded run's, byte for byte, for 1 to 5 shards given by
// --shard, by a Slurm array's variables and by an Indexed Job's.
func TestSweepShardsMergeAsOneRun(t *testing.T) {
	sw := sweepFixture(t)
	want := map[string]string{}
	for _, f := range []string{"table", "csv", "jsonl"} {
		want[f] = mustPacker(t, "sweep", "run", "--format", f, sw)
	}
	if n := strings.Count(want["jsonl"], "\n"); n != 12 {
		t.Fatalf("%d lines:\n%s", n, want["jsonl"])
	}
	for n := 1; n <= 5; n++ {
		for _, how := range []string{"flag", "slurm", "k8s"} {
			dir := t.TempDir()
			for k := range n {
				switch how {
				case "flag":
					mustPacker(t, "sweep", "run", "--shard", fmt.Sprintf("%d/%d", k, n), "--out", dir, sw)
				case "slurm": // --array=1-N: the ids from 1
					t.Setenv("SLURM_ARRAY_TASK_ID", fmt.Sprint(k+1))
					t.Setenv("SLURM_ARRAY_TASK_MIN", "1")
					t.Setenv("SLURM_ARRAY_TASK_COUNT", fmt.Sprint(n))
					mustPacker(t, "sweep", "run", "--out", dir, sw)
				case "k8s":
					t.Setenv("JOB_COMPLETION_INDEX", fmt.Sprint(k))
					t.Setenv("PACKER_SWEEP_SHARDS", fmt.Sprint(n))
					mustPacker(t, "sweep", "run", "--out", dir, sw)
				}
			}
			for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX", "PACKER_SWEEP_SHARDS"} {
				os.Unsetenv(v)
			}
			for f, w := range want {
				if got := mustPacker(t, "sweep", "merge", "--format", f, dir); got != w {
					t.Errorf("N=%d by %s, --format %s: the merge differs from the unsharded run:\n%s\nwant\n%s", n, how, f, got, w)
				}
			}
		}
	}
}

// TestSweepDeadShardNamedAndRerun: merge exits 1 with one line naming the
// shard that did not finish and its points, and how to rerun it; rerunning
// that shard alone gives the unsharded results.
func TestSweepDeadShardNamedAndRerun(t *testing.T) {
	sw := sweepFixture(t)
	want := mustPacker(t, "sweep", "run", "--format", "csv", sw)
	dir := t.TempDir()
	for k := range 4 {
		mustPacker(t, "sweep", "run", "--shard", fmt.Sprintf("%d/4", k), "--out", dir, sw)
	}
	if err := os.Remove(filepath.Join(dir, "shard-2-of-4.jsonl")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := packer(t, "", "sweep", "merge", dir)
	wantErr := fmt.Sprintf("packer: sweep merge: %s: 1 of 4 shards not finished: shard 2/4 (shard-2-of-4.jsonl, no file) lacks 3 points: 2, 6, 10; rerun: packer sweep run --out %s --shard S %s, for S in 2/4\n", dir, dir, sw)
	if code != 1 || out != "" || errs != wantErr {
		t.Fatalf("merge: exit %d, stdout %q, stderr\n%s\nwant\n%s", code, out, errs, wantErr)
	}
	mustPacker(t, "sweep", "run", "--out", dir, "--shard", "2/4", sw)
	if got := mustPacker(t, "sweep", "merge", "--format", "csv", dir); got != want {
		t.Errorf("after the rerun:\n%s\nwant\n%s", got, want)
	}
}

// TestSweepBadInput: bad sweep files and flags exit 2 with one line, and
// write nothing.
func TestSweepBadInput(t *testing.T) {
	sw := sweepFixture(t)
	bad := filepath.Join(filepath.Dir(sw), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"name": "b", "run": "simulate", "workloads": ["tiny.json"], "policies": ["fifo"], "nodes": [4, 0]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "res")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "run", "--out", out, bad}, "packer: " + bad + ": nodes[1] = 0: want 1 to 1000000\n"},
		{[]string{"sweep", "run", "--shard", "4/4", "--out", out, sw}, "packer: --shard: shard 4 of 4: want 0 to 3\n"},
		{[]string{"sweep", "run", "--shard", "1/4", sw}, "packer: sweep run: shard 1/4 (--shard) needs --out DIR, where the shards' results meet\n"},
		{[]string{"sweep", "run", "--shards", "4", sw}, "packer: --shards 4: no shard index (give --shard i/4, or run under a Slurm array or an Indexed Job)\n"},
		{[]string{"sweep", "merge", filepath.Join(out, "none")}, "packer: sweep merge: " + filepath.Join(out, "none") + " is not a directory\n"},
		{[]string{"sweep", "show", "--shards", "13", sw}, "packer: --shards 13: more shards than the sweep's 12 points\n"},
		{[]string{"sweep", "run", "--format", "xml", sw}, "packer: --format: unknown format \"xml\" (want table or csv or jsonl)\n"},
	} {
		code, stdout, errs := packer(t, "", c.args...)
		if code != 2 || stdout != "" || errs != c.want {
			t.Errorf("packer %s: exit %d, stdout %q, stderr %q; want %q", strings.Join(c.args, " "), code, stdout, errs, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused sweep made its results directory: %v", err)
	}
}

// TestSweepEmitters: the Slurm script and the Kubernetes manifest as the
// CLI writes them, with absolute paths and the sweep's sizing.
func TestSweepEmitters(t *testing.T) {
	sw := sweepFixture(t)
	abs := filepath.Join(t.TempDir(), "results")
	script := mustPacker(t, "sweep", "emit", "slurm", "--shards", "4", "--parallel", "2", "--out", abs, "--packer", "/opt/packer", sw)
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		t.Errorf("emit slurm did not make the results directory: %v", err)
	}
	for _, want := range []string{"#SBATCH --array=0-3%2\n", "#SBATCH --time=0-00:05:00\n", "#SBATCH --mem=192M\n",
		"exec /opt/packer sweep run --shards 4 --out " + abs + " " + sw + "\n"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	code, manifest, errs := packer(t, "", "sweep", "emit", "k8s", "--shards", "3", "--image", "packer:1", "--claim", "sweeps", sw)
	if code != 0 || !strings.Contains(manifest, `"completionMode": "Indexed"`) || !strings.Contains(manifest, `"completions": 3`) ||
		!strings.Contains(errs, "kubectl wait --for=condition=complete job/packer-sweep-cli") {
		t.Errorf("k8s: exit %d\n%s\n%s", code, manifest, errs)
	}
	out := mustPacker(t, "sweep", "show", "--shards", "3", sw)
	if !strings.Contains(out, "Sweep cli (simulate, digest ") || !strings.Contains(out, ": 12 points in 3 shards") || !strings.Contains(out, "each task asks for 5 min and 192 MiB") {
		t.Errorf("show:\n%s", out)
	}
}

// TestSweepKilledProcess kills a real shard process (this test binary as
// packer) with SIGKILL once its file holds its first point: merge names
// the shard and the points it lacks, and rerunning that shard finishes it
// (the points it had are not run again), the merge then the unsharded run.
func TestSweepKilledProcess(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// 200,000 maps of 10 s: a few tenths of a second a point.
	for name, data := range map[string]string{
		"big.json": `{"cluster": {"nodes": 40}, "jobs": [
  {"name": "a", "arrival": 0, "maps": {"count": 150000, "mean": 10}, "reduces": {"count": 2, "mean": 1}},
  {"name": "b", "arrival": 5, "maps": {"count": 50000, "mean": 10}, "reduces": {"count": 1, "mean": 1}}]}`,
		"s.json": `{"name": "kill", "run": "simulate", "workloads": ["big.json"], "nodes": [40, 50], "policies": ["fifo", "fair"], "seeds": [1, 2]}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sw, res := filepath.Join(dir, "s.json"), filepath.Join(dir, "res")
	cmd := exec.Command(self, "sweep", "run", "--shard", "0/2", "--out", res, sw)
	cmd.Env = append(os.Environ(), "PACKER_RUN_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	shard0 := filepath.Join(res, "shard-0-of-2.jsonl")
	for lines := 0; lines < 2; {
		select {
		case <-exited:
			t.Fatalf("the shard ended (exit %d) before it could be killed after its first point", cmd.ProcessState.ExitCode())
		case <-time.After(5 * time.Millisecond):
		}
		data, _ := os.ReadFile(shard0)
		lines = strings.Count(string(data), "\n")
	}
	cmd.Process.Kill()
	<-exited
	code, _, errs := packer(t, "", "sweep", "merge", res)
	if code != 1 || !strings.Contains(errs, "2 of 2 shards not finished: shard 0/2 (shard-0-of-2.jsonl, unfinished: still running, or stopped) lacks ") ||
		!strings.Contains(errs, "shard 1/2 (shard-1-of-2.jsonl, no file) lacks 4 points: 1, 3, 5, 7; rerun: ") {
		t.Fatalf("merge after the kill: exit %d: %s", code, errs)
	}
	out := mustPacker(t, "sweep", "run", "--shard", "0/2", "--out", res, sw)
	if !strings.Contains(out, "shard 0/2 (--shard): ran ") || strings.Contains(out, "ran 4 points") {
		t.Errorf("the rerun ran the killed shard's finished points again: %s", out)
	}
	mustPacker(t, "sweep", "run", "--shard", "1/2", "--out", res, sw)
	if got, want := mustPacker(t, "sweep", "merge", "--format", "jsonl", res), mustPacker(t, "sweep", "run", "--format", "jsonl", sw); got != want {
		t.Errorf("after the reruns:\n%s\nwant\n%s", got, want)
	}
}
