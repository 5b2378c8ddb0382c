package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSimulateIdleNote: the small workload's 76 tasks on 400 nodes leave the
// slots nearly idle; the note goes to stderr (the table unchanged on stdout)
// and into the JSON document. On its own 8 nodes there is no note.
func TestSimulateIdleNote(t *testing.T) {
	code, out, errs := packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "--nodes", "400")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "packer: note: map slots") || !strings.Contains(errs, "makespans cannot differ much; try --nodes ") {
		t.Errorf("stderr lacks the idle note: %q", errs)
	}
	if strings.Contains(out, "cannot differ") {
		t.Errorf("the idle note is on stdout:\n%s", out)
	}
	code, out, errs = packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "--nodes", "400", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Idle *struct {
			Nodes          int    `json:"nodes"`
			SuggestedNodes int    `json:"suggested_nodes"`
			Note           string `json:"note"`
		} `json:"idle_cluster"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Idle == nil || doc.Idle.Nodes != 400 || doc.Idle.SuggestedNodes < 1 || doc.Idle.SuggestedNodes >= 400 {
		t.Errorf("idle_cluster %+v, want 400 nodes and fewer suggested", doc.Idle)
	}
	if _, _, errs := packer(t, "", "simulate", "-w", "testdata/simulate-small.json"); strings.Contains(errs, "cannot differ") {
		t.Errorf("8 nodes: an idle note: %q", errs)
	}
}

// TestSimulateRankBy: --rank-by prints the ranking and its reasons after the
// table, puts it in the JSON document, and refuses an unknown metric before
// any run.
func TestSimulateRankBy(t *testing.T) {
	code, out, errs := packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "-p", "fifo,fair,sequential", "--rank-by", "p95-slowdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// fair 2.20, fifo 3.50, sequential 18.40 (simulate-small.txt's p95 slowdowns).
	for _, want := range []string{"Ranked by p95 slowdown (lower is better):\n  1. fair        2.20\n  2. fifo        3.50\n  3. sequential  18.40\n",
		"Why, against fair, by job size:\n  policy      size    jobs  p95 slowdown  fair's  faster  slower  mean response\n",
		"  sequential  small      3         18.40    2.20       0       3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// With --format csv the ranking goes to stderr: stdout is the CSV
	// alone, every record as wide as the header; the ranking's lines fit
	// 100 columns.
	code, out, errs = packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "-p", "fifo,fair,sequential", "--rank-by", "p95-slowdown", "--format", "csv")
	if code != 0 {
		t.Fatalf("csv: exit %d: %s", code, errs)
	}
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(records) != 4 || strings.Contains(out, "Ranked") {
		t.Errorf("csv stdout: %v, %d records:\n%s", err, len(records), out)
	}
	if !strings.Contains(errs, "Ranked by p95 slowdown (lower is better):") || !strings.Contains(errs, "Why, against fair, by job size:") {
		t.Errorf("csv: ranking not on stderr:\n%s", errs)
	}
	for _, l := range strings.Split(errs, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("csv: stderr line of %d columns: %q", n, l)
		}
	}
	code, out, errs = packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "-p", "fifo,fair", "--rank-by", "makespan", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Ranking struct {
			Metric, Against string
			Places          []struct{ Policy string }
		} `json:"ranking"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Ranking.Metric != "makespan" || doc.Ranking.Against != "fifo" || len(doc.Ranking.Places) != 2 {
		t.Errorf("JSON ranking %+v, want fifo (82 s) before fair (85 s)", doc.Ranking)
	}
	code, _, errs = packer(t, "", "simulate", "-w", "testdata/simulate-small.json", "--rank-by", "speed")
	if code != 2 || !strings.Contains(errs, `--rank-by: unknown metric "speed"; want one of makespan,`) {
		t.Errorf("unknown metric: exit %d, %q", code, errs)
	}
}

// TestSimulateNoInputLocality: maps that read no block have no locality:
// the table says "-" in all three locality columns, the CSV leaves them
// empty, and a delay sweep over them draws no locality panel.
func TestSimulateNoInputLocality(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "w.json")
	doc := `{"name": "noinput", "cluster": {"nodes": 2}, "jobs": [
		{"name": "a", "arrival": 0, "no_input": true, "maps": {"count": 4, "mean": 10}},
		{"name": "b", "arrival": 1, "no_input": true, "maps": {"count": 2, "mean": 5}}]}`
	if err := os.WriteFile(w, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := packer(t, "", "simulate", "-w", w, "-p", "fifo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !regexp.MustCompile(`│ fifo +│(.*│)? - +│ - +│ - +│`).MatchString(out) {
		t.Errorf("locality of no-input maps not \"-\":\n%s", out)
	}
	_, out, _ = packer(t, "", "simulate", "-w", w, "-p", "fifo", "--format", "csv")
	if !strings.Contains(out, ",,,,") {
		t.Errorf("CSV locality of no-input maps not empty:\n%s", out)
	}
	svg := filepath.Join(dir, "c.svg")
	if code, _, errs := packer(t, "", "simulate", "-w", w, "-p", "fair:0,fair:3", "--chart", svg); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(svg); err != nil || strings.Contains(string(b), "Locality vs delay") {
		t.Errorf("a locality sweep over maps without input (err %v)", err)
	}
}
