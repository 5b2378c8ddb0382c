package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardFileIsAppended: each point's line is appended to the one file
// (the same file throughout, not a copy renamed over it), so writing a
// shard of n points costs its n lines, not n rewrites of a growing file;
// the file ends as the header and the lines in index order.
func TestShardFileIsAppended(t *testing.T) {
	s := loadTest(t, t.TempDir())
	dir := t.TempDir()
	w, err := OpenShard(dir, s, Shard{0, 2})
	if err != nil {
		t.Fatal(err)
	}
	started, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	head, _ := os.ReadFile(w.Path())
	want := string(head)
	for _, p := range (Shard{0, 2}).Select(s.Points()) {
		line, err := s.RunPoint(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(p.Index, line); err != nil {
			t.Fatal(err)
		}
		want += string(line) + "\n"
		now, err := os.Stat(w.Path())
		if err != nil || !os.SameFile(started, now) {
			t.Fatalf("after point %d the shard file is another file (rewritten and renamed): %v", p.Index, err)
		}
		if got, _ := os.ReadFile(w.Path()); string(got) != want {
			t.Fatalf("after point %d:\n%s\nwant\n%s", p.Index, got, want)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(head), `{"sweep":"t",`) || strings.Count(string(head), "\n") != 1 {
		t.Errorf("header %q", head)
	}
}

// TestRerunCompletesACutLine: a shard killed in the middle of a line's
// write leaves part of it; the rerun drops that part, runs the point
// again and ends with the same bytes as a shard never killed, wherever
// the cut fell, and whatever bytes a crash left after the last whole line.
func TestRerunCompletesACutLine(t *testing.T) {
	s := loadTest(t, t.TempDir())
	sh := Shard{1, 2}
	whole := runShards(t, s, 2)
	full, err := os.ReadFile(filepath.Join(whole, FileName(sh)))
	if err != nil {
		t.Fatal(err)
	}
	_, all, err := Merge(whole)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	last := lines[len(lines)-2] // the last line, with its newline
	keep := strings.Join(lines[:len(lines)-2], "")
	cuts := map[string]string{
		"a byte of it":         keep + last[:1],
		"half of it":           keep + last[:len(last)/2],
		"all but its newline":  keep + last[:len(last)-1],
		"zeros after it":       keep + "\x00\x00\x00\x00",
		"a line of another":    keep + `{"index": 0}` + "\n",
		"an earlier line only": strings.Join(lines[:2], "") + lines[2][:7],
	}
	for name, cut := range cuts {
		dir := t.TempDir()
		path := filepath.Join(dir, FileName(sh))
		write(t, path, cut)
		write(t, filepath.Join(dir, FileName(Shard{0, 2})), mustRead(t, filepath.Join(whole, FileName(Shard{0, 2}))))
		if _, _, err := Merge(dir); (err == nil) != (name == "all but its newline") { // a line whole but its newline is a result
			t.Errorf("%s: merge of the cut shard: %v", name, err)
		}
		f, err := readShardFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if int(f.whole) > len(cut) || !strings.HasSuffix(cut[:f.whole], "\n") {
			t.Errorf("%s: whole lines end at byte %d of %d", name, f.whole, len(cut))
		}
		ran, err := s.RunShard(dir, sh, nil)
		if err != nil {
			t.Fatalf("%s: rerun: %v", name, err)
		}
		if got := mustRead(t, path); got != string(full) {
			t.Errorf("%s: rerun (ran %d) left\n%q\nwant\n%q", name, ran, got, full)
		}
		if _, merged, err := Merge(dir); err != nil || !bytes.Equal(merged.JSONL(), all.JSONL()) {
			t.Errorf("%s: merge after the rerun: %v", name, err)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestMergeOfTwoSweepsIsBadInput: shards of two sweeps in one directory,
// or a file named as a shard that is not one, are ErrBadShards (bad
// input), not a sweep that has not finished.
func TestMergeOfTwoSweepsIsBadInput(t *testing.T) {
	s := loadTest(t, t.TempDir())
	other, err := Load(writeSweep(t, t.TempDir(), `{"name": "u", "run": "simulate", "workloads": ["tiny.json"], "policies": ["fifo", "fair"]}`), All)
	if err != nil {
		t.Fatal(err)
	}
	dir := runShards(t, s, 2)
	elsewhere := runShards(t, other, 2)
	write(t, filepath.Join(dir, FileName(Shard{1, 2})), mustRead(t, filepath.Join(elsewhere, FileName(Shard{1, 2}))))
	_, _, err = Merge(dir)
	var me *MissingError
	if !errors.Is(err, ErrBadShards) || errors.As(err, &me) || !strings.Contains(err.Error(), "(sweep t, digest") || !strings.Contains(err.Error(), "(sweep u, digest") {
		t.Errorf("two sweeps: %v", err)
	}
	write(t, filepath.Join(dir, FileName(Shard{1, 2})), "not json\n")
	if _, _, err := Merge(dir); !errors.Is(err, ErrBadShards) || !strings.Contains(err.Error(), "line 1 is not a shard file's header") {
		t.Errorf("not a shard file: %v", err)
	}
}

// TestDefaultSizeIsRecorded: a sweep that lists no nodes records the
// cluster each point ran on (the workload's own), and one that lists no
// hosts the plan's (the packing paper's 9), not 0.
func TestDefaultSizeIsRecorded(t *testing.T) {
	dir := t.TempDir()
	s, err := Load(writeSweep(t, dir, `{"name": "t", "run": "simulate", "workloads": ["tiny.json", "W1"], "policies": ["fifo"]}`), All)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.RunAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range res.Lines {
		if l.Simulate == nil || l.Nodes == nil || *l.Nodes == 0 || *l.Nodes != l.Simulate.ClusterNodes {
			t.Errorf("%s: nodes %s, cluster_nodes %+v", l.Workload, size(l.Nodes), l.Simulate)
		}
	}
	if n := *res.Lines[0].Nodes; n != 4 { // tiny.json's cluster
		t.Errorf("tiny.json: nodes %d, want its own 4", n)
	}
	if row := res.Rows()[0]; row[3] != "4" {
		t.Errorf("row %v: nodes column %q", row, row[3])
	}
	p, err := Load(writeSweep(t, t.TempDir(), `{"name": "p", "run": "plan", "workloads": ["W1"], "algorithms": ["pair"]}`), All)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := p.RunPoint(p.Points()[0])
	if err != nil {
		t.Fatal(err)
	}
	var l Line
	if err := json.Unmarshal(raw, &l); err != nil || l.Hosts == nil || *l.Hosts != 9 || l.Plan == nil || l.Plan.ClusterHosts != 9 {
		t.Errorf("plan line %s", raw)
	}
}
