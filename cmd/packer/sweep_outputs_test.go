package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/sweep"
)

// sweepContext is a context with run's output flags set as given.
func sweepContext(t *testing.T, values map[string]string) *cli.Context {
	t.Helper()
	set := flag.NewFlagSet("sweep", flag.ContinueOnError)
	for _, f := range sweepOutputFlags {
		if err := f.Apply(set); err != nil {
			t.Fatal(err)
		}
	}
	for name, v := range values {
		if err := set.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	app := &cli.App{Writer: &bytes.Buffer{}, ErrWriter: &bytes.Buffer{}}
	return cli.NewContext(app, set, nil)
}

// TestSweepOutputsAllOrNone: when one of --jsonl and --csv cannot be
// written by the time the results are (its directory went during the
// run), neither is written, whichever it is; when both can, both are.
// (Written in a map's order, which Go varies from run to run, the first
// file was there or not by chance: hence the repeats.)
func TestSweepOutputsAllOrNone(t *testing.T) {
	s, err := sweep.Load(sweepFixture(t), sweep.All)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.RunAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, broken := range []string{"jsonl", "csv"} {
		for try := range 16 {
			dir := t.TempDir()
			paths := map[string]string{"jsonl": filepath.Join(dir, "r.jsonl"), "csv": filepath.Join(dir, "r.csv")}
			paths[broken] = filepath.Join(dir, "gone", "r."+broken)
			err := writeSweepResults(sweepContext(t, paths), res)
			if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "--"+broken+" "+paths[broken]) {
				t.Fatalf("--%s unwritable (try %d): %v", broken, try, err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("--%s unwritable (try %d): %d files written", broken, try, len(entries))
			}
		}
	}
	dir := t.TempDir()
	paths := map[string]string{"jsonl": filepath.Join(dir, "r.jsonl"), "csv": filepath.Join(dir, "r.csv")}
	if err := writeSweepResults(sweepContext(t, paths), res); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(paths["jsonl"]); !bytes.Equal(got, res.JSONL()) {
		t.Errorf("--jsonl wrote %d bytes", len(got))
	}
	if got, _ := os.ReadFile(paths["csv"]); !bytes.Equal(got, res.CSV()) {
		t.Errorf("--csv wrote %d bytes", len(got))
	}
}

// TestSweepMergeOfTwoSweepsExits2: a directory holding shards of two
// sweeps is bad input: exit 2 and one line naming both files; a sweep
// that has not finished stays exit 1 (TestSweepDeadShardNamedAndRerun).
func TestSweepMergeOfTwoSweepsExits2(t *testing.T) {
	sw := sweepFixture(t)
	other := filepath.Join(filepath.Dir(sw), "o.json")
	if err := os.WriteFile(other, []byte(`{"name": "other", "run": "simulate", "workloads": ["tiny.json"], "policies": ["fifo", "fair"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, elsewhere := t.TempDir(), t.TempDir()
	mustPacker(t, "sweep", "run", "--shard", "0/2", "--out", dir, sw)
	mustPacker(t, "sweep", "run", "--shard", "1/2", "--out", elsewhere, other)
	data, err := os.ReadFile(filepath.Join(elsewhere, "shard-1-of-2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shard-1-of-2.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := packer(t, "", "sweep", "merge", "--csv", filepath.Join(dir, "r.csv"), dir)
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 ||
		!strings.HasPrefix(errs, fmt.Sprintf("packer: sweep merge: not one sweep's shard files: %s: shard-0-of-2.jsonl (sweep cli, ", dir)) ||
		!strings.Contains(errs, "shard-1-of-2.jsonl (sweep other, ") {
		t.Errorf("merge of two sweeps: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.csv")); !os.IsNotExist(err) {
		t.Errorf("a refused merge wrote --csv: %v", err)
	}
}

// TestSweepDefaultNodesShown: a sweep that lists no nodes shows the
// cluster each point ran on, as cluster_nodes says.
func TestSweepDefaultNodesShown(t *testing.T) {
	sw := sweepFixture(t)
	bare := filepath.Join(filepath.Dir(sw), "bare.json")
	if err := os.WriteFile(bare, []byte(`{"name": "bare", "run": "simulate", "workloads": ["W1"], "policies": ["fifo"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustPacker(t, "sweep", "run", "--format", "csv", bare)
	rows := strings.Split(strings.TrimSpace(out), "\n")
	head, row := strings.Split(rows[0], ","), strings.Split(rows[1], ",")
	col := func(name string) string {
		for i, h := range head {
			if h == name {
				return row[i]
			}
		}
		return "?"
	}
	if len(rows) != 2 || col("nodes") != "18" || col("cluster_nodes") != "18" {
		t.Errorf("nodes %s, cluster_nodes %s:\n%s", col("nodes"), col("cluster_nodes"), out)
	}
}
