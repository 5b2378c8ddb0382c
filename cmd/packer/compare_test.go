package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// writeMy20 writes a 20-job workload, "my20", past exact's 18 jobs, and
// returns its path.
func writeMy20(t *testing.T) string {
	t.Helper()
	w := &model.Workload{Name: "my20"}
	for i := range 20 {
		w.Jobs = append(w.Jobs, model.Job{Name: fmt.Sprintf("j%02d", i), Model: model.PowerLaw{A: 500 + 50*float64(i), B: -0.6}})
	}
	b, _ := w.MarshalIndent()
	path := filepath.Join(t.TempDir(), "my20.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareSkipsWhatExactCannotTake: the default algorithms include exact,
// which takes at most 18 jobs; a 20-job workload is compared with the rest
// and exact skipped, said once on stderr and shown in the output, instead of
// an exit 2 after the other algorithms have run.
func TestCompareSkipsWhatExactCannotTake(t *testing.T) {
	path := writeMy20(t)
	const skipped = "packer: compare: exact skipped for my20: 20 jobs, exact takes at most 18\n"
	args := []string{"compare", "--workloads", "W1," + path, "--particles", "20", "--iterations", "5"}
	code, out, errs := packer(t, "", args...)
	if code != 0 || errs != skipped {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var w1, my20 string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, " W1 "):
			w1 = line
		case strings.Contains(line, " my20 "):
			my20 = line
		}
	}
	// my20: sequential, pair and pso ran; exact's makespan and saving cells say skipped.
	if strings.Count(my20, "skipped") != 2 || strings.Count(my20, "%") != 2 || strings.Contains(w1, "skipped") {
		t.Errorf("rows:\n%s\n%s", w1, my20)
	}
	code, out, errs = packer(t, "", append(args, "--format", "json")...)
	var rows []comparison
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || errs != skipped || err != nil || len(rows) != 8 {
		t.Fatalf("json: exit %d, %d rows (%v), stderr %q", code, len(rows), err, errs)
	}
	if r := rows[7]; r.Workload != "my20" || r.Algorithm != "exact" || r.Skipped != "20 jobs, exact takes at most 18" || r.Makespan != 0 {
		t.Errorf("the skipped row: %+v", r)
	}
	if r := rows[3]; r.Workload != "W1" || r.Algorithm != "exact" || r.Skipped != "" || r.Makespan == 0 {
		t.Errorf("W1 with exact: %+v", r)
	}
}

// When the baseline (the first algorithm) is skipped, the others' savings
// have nothing to be measured against: they say so rather than "skipped";
// when every algorithm is skipped, nothing was compared: a usage error.
func TestCompareWithoutItsBaseline(t *testing.T) {
	path := writeMy20(t)
	code, out, _ := packer(t, "", "compare", "--workloads", path, "--algorithms", "exact,pair,sequential")
	if code != 0 || strings.Count(out, "n/a (exact skipped)") != 2 || strings.Count(out, "skipped") != 3 {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, errs := packer(t, "", "compare", "--workloads", path, "--algorithms", "exact")
	if code != 2 || out != "" || !strings.Contains(errs, "none of them can take the workloads given") {
		t.Errorf("every algorithm skipped: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
