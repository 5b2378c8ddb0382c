package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestFitLeavesOutWhatCannotBeFitted: a history where one job ran at a
// single node count fits the others, names that job with its file and line
// on standard error, writes the rest and exits 0; --strict refuses it.
func TestFitLeavesOutWhatCannotBeFitted(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "history.csv"), filepath.Join(dir, "w.json")
	csv := "job,nodes,seconds\nsort,2,50\nsort,4,26\nkmeans-28,8,90\nkmeans-28,8,93\ngrep,2,30\ngrep,4,16\ngrep,8,9\n"
	if err := os.WriteFile(in, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := packer(t, "", "fit", "-i", in, "-o", out)
	want := in + ":4: job kmeans-28: measured at a single node count (8): a model needs at least two"
	if code != 0 || !strings.Contains(errs, "1 of 3 jobs cannot be fitted; left out") || !strings.Contains(errs, want) {
		t.Fatalf("exit %d, stderr %q; want 0 and the note naming kmeans-28", code, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	w, err := model.ParseWorkload(data, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 2 || w.Jobs[0].Name != "sort" || w.Jobs[1].Name != "grep" {
		t.Errorf("jobs %v", w.Jobs)
	}
	os.Remove(out)
	code, _, errs = packer(t, "", "fit", "-i", in, "-o", out, "--strict")
	if code != 2 || !strings.Contains(errs, `line 4, column 2 (nodes): job "kmeans-28" is measured at a single node count (8)`) {
		t.Errorf("--strict: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--strict wrote the workload")
	}
}

// TestFitCheck: --check predicts the runs the fit did not see (job sort,
// 100/n fitted at 2 and 4 nodes, predicts 12.5 s at 8 where 12.5 and 13.5
// were measured: median 13, error 3.8 %); a missing check file exits 2
// and writes nothing.
func TestFitCheck(t *testing.T) {
	dir := t.TempDir()
	in, check, out := filepath.Join(dir, "runs.csv"), filepath.Join(dir, "more.csv"), filepath.Join(dir, "w.json")
	if err := os.WriteFile(in, []byte("job,nodes,seconds\nsort,2,50\nsort,4,25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(check, []byte("job,nodes,seconds\nsort,8,12.5\nsort,8,13.5\nsort,2,51\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := packer(t, "", "fit", "-i", in, "--check", check, "--model", "power")
	if code != 0 || !strings.Contains(stdout, "Predictions checked against "+check) || !strings.Contains(stdout, "│ 8 *   │ 1    │ 3.8 %") {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout, errs)
	}
	code, _, errs = packer(t, "", "fit", "-i", in, "--check", filepath.Join(dir, "none.csv"), "-o", out)
	if code != 2 || !strings.Contains(errs, "none.csv") {
		t.Errorf("missing check file: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("workload written despite the bad check file")
	}
}
