package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// hostileFiles writes the bad inputs of the hostile review into dir and
// returns their paths by name: each is refused by every reader with exit 2.
func hostileFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{
		"empty":     "",
		"binary":    "\x00\x01\xfe\xff\x1f\x8b garbage \x00",
		"truncated": `{"name": "w", "jobs": [{"name": "a", "mod`,
		"nul":       `{"name": "w", "jobs": [{"name": "\u0000", "model": {"a": 60, "b": -0.5}}]}`,
	}
	paths := map[string]string{"missing": filepath.Join(dir, "missing"), "dir": filepath.Join(dir, "adir")}
	if err := os.Mkdir(paths["dir"], 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		paths[name] = writeFile(t, dir, name, content)
	}
	return paths
}

// listing is every name under dir, to see that a refused run made nothing.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		names = append(names, path)
		return err
	})
	return names
}

// TestHostileReaders runs the hostile review's bad files through every
// reader of a file flag: exit 2, one line naming the file, nothing written.
func TestHostileReaders(t *testing.T) {
	dir := t.TempDir()
	bad := hostileFiles(t, dir)
	good := filepath.Join("..", "..", "examples")
	plan, inv := filepath.Join(good, "small.plan.json"), filepath.Join(good, "testdriver", "inventory.json")
	// Outputs go to dir, so that the listing below sees a refused run that
	// wrote one.
	html, res := filepath.Join(dir, "r.html"), filepath.Join(dir, "res")
	readers := [][]string{
		{"plan", "-w", "F"}, {"size", "-w", "F", "--deadline", "4h"}, {"compare", "-w", "F", "--algorithms", "pair"},
		{"simulate", "-w", "F"}, {"simulate", "--plan", "F"}, {"workloads", "merge", "F"},
		{"workloads", "import", "--input-format", "hybs", "F"}, {"workloads", "import", "--input-format", "swim", "F"},
		{"fit", "-i", "F"}, {"report", "--plan", "F", "-o", html}, {"report", "--plan", plan, "--simulation", "F", "-o", html},
		{"sweep", "run", "F"}, {"sweep", "show", "F"}, {"sweep", "emit", "slurm", "--shards", "2", "--out", res, "F"},
		{"apply", "--plan", "F", "--inventory", inv, "--dry-run"}, {"apply", "--plan", plan, "--inventory", "F", "--dry-run"},
		{"hosts", "check", "-i", "F"}, {"status", "--state", "F"}, {"destroy", "--state", "F", "--auto-approve"},
	}
	before := listing(t, dir)
	for _, r := range readers {
		for name, path := range bad {
			if name == "nul" && !slices.Contains([]string{"plan", "size", "compare", "simulate", "workloads"}, r[0]) {
				continue // a workload's names; other files name nothing
			}
			if name == "binary" && r[0] == "workloads" && r[2] == "--input-format" {
				continue // the trace readers' binary cases are below, in TestHostileTraces
			}
			args := slices.Clone(r)
			args[slices.Index(args, "F")] = path
			code, _, errs := packer(t, "", args...)
			if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, path) {
				t.Errorf("packer %s: exit %d, stderr %q; want 2 and one line naming %s", strings.Join(args, " "), code, errs, path)
			}
		}
	}
	if after := listing(t, dir); !slices.Equal(before, after) {
		t.Errorf("refused runs wrote files: %v", after)
	}
}

// TestHostileTraces: a trace reader given a binary file refuses it in one
// line with exit 2.
func TestHostileTraces(t *testing.T) {
	bad := hostileFiles(t, t.TempDir())
	for _, format := range []string{"hybs", "swim", "rumen"} {
		code, _, errs := packer(t, "", "workloads", "import", "--input-format", format, bad["binary"])
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("import %s of a binary file: exit %d, stderr %q", format, code, errs)
		}
	}
}

// TestHostileDefects holds the defects the re-run review found, each as
// the command line that showed it.
func TestHostileDefects(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "made")
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 3<<30); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty-results")
	state := filepath.Join(dir, "state-dir")
	for _, d := range []string{empty, state} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	plan, inv := filepath.Join("..", "..", "examples", "small.plan.json"), filepath.Join("..", "..", "examples", "testdriver", "inventory.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		// The sweep file was read whole: a fatal out-of-memory error and a goroutine dump.
		{[]string{"sweep", "show", big}, big + ": too large: a sweep file may be at most 1 MiB"},
		{[]string{"sweep", "run", "/dev/zero"}, "/dev/zero: too large: a sweep file may be at most 1 MiB"},
		{[]string{"sweep", "emit", "slurm", "--shards", "2", "--out", filepath.Join(dir, "res"), big}, "too large"},
		// Exit 1, as if packer had failed, for a directory given by mistake.
		{[]string{"sweep", "merge", empty}, empty + ": no shard files"},
		// Exit 1 with the library's field names (Points, Budget), and the
		// command run at one node count before "nothing to fit".
		{[]string{"profile", "-j", "x", "-n", "1,2", "--points", "0", "--", "touch", made}, "--points 0: must be at least 1"},
		{[]string{"profile", "-j", "x", "-n", "1,2", "--budget", "NaN", "--", "touch", made}, "--budget NaN: must be a positive number of node-seconds"},
		{[]string{"profile", "-j", "x", "-n", "1,2", "--points", "5", "--", "touch", made}, "5 points wanted from 2 candidate node counts"},
		{[]string{"profile", "-j", "x", "-n", "1", "--", "touch", made}, "--nodes 1: runs at one node count fit nothing"},
		// A lock file was left beside a --state that is a directory.
		{[]string{"apply", "--plan", plan, "--inventory", inv, "--auto-approve", "--state", state}, "--state " + state + ": not a regular file"},
	} {
		code, _, errs := packer(t, "", c.args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) {
			t.Errorf("packer %s: exit %d, stderr %q; want 2 and one line with %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
	for _, p := range []string{made, state + ".lock"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after refused runs", p)
		}
	}
}

// TestReadOnlyOutputDirectory: an output in a directory packer may not write
// in is refused before any work, exit 2, naming the flag and the directory
// (it was exit 1 after the work, naming a temporary file). Root may write
// anywhere, so as root the binary runs as nobody.
func TestReadOnlyOutputDirectory(t *testing.T) {
	dir, err := os.MkdirTemp("", "packer-ro-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "packer")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(ro, "x")
	sw := filepath.Join(dir, "sweep.json")
	if err := os.WriteFile(sw, []byte(`{"name": "s", "run": "simulate", "workloads": ["W1"], "nodes": [10], "policies": ["fifo"], "seeds": [1], "options": [{"name": "o"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	obs, _ := filepath.Abs(filepath.Join("testdata", "fit-observations.csv"))
	plan, _ := filepath.Abs(filepath.Join("..", "..", "examples", "small.plan.json"))
	for _, args := range [][]string{
		{"plan", "-a", "pair", "-o", out}, {"plan", "-a", "pair", "--export-lp", out}, {"plan", "-a", "pair", "--chart", out + ".svg"},
		{"simulate", "--trace", out}, {"simulate", "--jobs-csv", out}, {"workloads", "merge", "W1", "-o", out},
		{"fit", "-i", obs, "-o", out}, {"report", "--plan", plan, "-o", out},
		// --out DIR, existing or to be made: refused before the run, not after it.
		{"experiment", "run", "dp-shares", "--seeds", "1", "--shard", "0/1", "--out", ro},
		{"experiment", "run", "dp-shares", "--seeds", "1", "--shard", "0/1", "--out", filepath.Join(ro, "res")},
		{"sweep", "run", sw, "--shard", "0/1", "--out", ro}, {"sweep", "run", sw, "--shard", "0/1", "--out", filepath.Join(ro, "res")},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "PACKER_RUN_MAIN=1")
		cmd.Dir = dir
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		errs, _ := cmd.CombinedOutput()
		flag := args[len(args)-2]
		if flag == "-o" {
			flag = "--output"
		}
		want := flag + " " + args[len(args)-1] + ": cannot write in " + ro + ": permission denied\n"
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.HasSuffix(string(errs), want) || strings.Count(string(errs), "\n") != 1 {
			t.Errorf("packer %s: exit %d, %q; want 2 and %q", strings.Join(args, " "), code, errs, want)
		}
	}
	if names, _ := os.ReadDir(ro); len(names) > 0 {
		t.Errorf("%s holds %v", ro, names)
	}
}
