package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// refused checks that a run failed with one line on stderr holding every
// want, and wrote nothing to out (when out is not "").
func refused(t *testing.T, code int, errs, out string, want ...string) {
	t.Helper()
	if code == 0 {
		t.Fatalf("exit 0, want a refusal")
	}
	if strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("stderr is not one line:\n%s", errs)
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr %q lacks %q", errs, w)
		}
	}
	if out != "" {
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s was written (stat: %v)", out, err)
		}
	}
}

// Two jobs of 1e308 s each would overflow their sum; the plausibility
// bounds refuse each before planning, naming the field (model's
// checkTotals test covers the sum).
func TestPlanRefusesOverflowingTotals(t *testing.T) {
	dir := t.TempDir()
	w := writeFile(t, dir, "w.json", `{"name": "w", "jobs": [{"name": "a", "model": {"a": 1e308, "b": 0}}, {"name": "b", "model": {"a": 1e308, "b": 0}}]}`)
	out := filepath.Join(dir, "plan.json")
	code, _, errs := packer(t, "", "plan", "-w", w, "-o", out)
	refused(t, code, errs, out, w+": ", `job "a": model.a must be between 0.001 and 1e+10 seconds, got 1e+308`)
	if strings.Contains(errs, "Inf") {
		t.Errorf("stderr still speaks of infinity: %s", errs)
	}
}

func TestWorkloadFieldTypo(t *testing.T) {
	dir := t.TempDir()
	w := writeFile(t, dir, "w.json", `{"name": "w", "jobs": [{"name": "a", "model": {"a": 100, "b": -0.5}}, {"name": "b", "io_intesive": true, "model": {"a": 100, "b": -0.5}}]}`)
	code, _, errs := packer(t, "", "plan", "-w", w)
	refused(t, code, errs, "", w+": ", `jobs[1]: unknown field "io_intesive" (did you mean "io_intensive"?)`)
}

// Files saved with a UTF-8 byte order mark are read, workloads and
// simulation results alike.
func TestReadersAcceptBOM(t *testing.T) {
	dir := t.TempDir()
	w := writeFile(t, dir, "w.json", "\ufeff"+`{"name": "w", "jobs": [{"name": "a", "model": {"a": 100, "b": -0.5}}, {"name": "b", "model": {"a": 200, "b": -0.5}}]}`)
	plan := filepath.Join(dir, "plan.json")
	if code, _, errs := packer(t, "", "plan", "-w", w, "-o", plan); code != 0 {
		t.Fatalf("plan of a workload with a BOM: exit %d: %s", code, errs)
	}
	if code, _, errs := packer(t, "", "simulate", "-w", w, "--policies", "fifo"); code != 0 {
		t.Fatalf("simulate a workload with a BOM: exit %d: %s", code, errs)
	}
	sim := writeFile(t, dir, "sim.json", "\ufeff"+`{"results": [{"policy": "fifo", "makespan": 10}]}`)
	html := filepath.Join(dir, "r.html")
	if code, _, errs := packer(t, "", "report", "--plan", plan, "--simulation", sim, "-o", html); code != 0 {
		t.Fatalf("report with simulation results with a BOM: exit %d: %s", code, errs)
	}
}

// A plan document given as --profile is refused, saying what it is and what
// --profile wants; the reverse mix-ups are named too.
func TestReportRefusesAPlanAsProfile(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if code, _, errs := packer(t, "", "plan", "-w", "W1", "-o", plan); code != 0 {
		t.Fatal(errs)
	}
	html := filepath.Join(dir, "r.html")
	code, _, errs := packer(t, "", "report", "--plan", plan, "--profile", plan, "-o", html)
	refused(t, code, errs, html, "--profile "+plan+" is a plan document", "--profile wants a profile or workload file")
	code, _, errs = packer(t, "", "report", "--plan", plan, "--simulation", plan, "-o", html)
	refused(t, code, errs, html, plan+": a plan document (from packer plan --output), not simulation results")
	w := writeFile(t, dir, "w.json", `{"name": "w", "jobs": [{"name": "a", "model": {"a": 100, "b": -0.5}}]}`)
	code, _, errs = packer(t, "", "report", "--plan", w, "-o", html)
	refused(t, code, errs, html, w+": invalid plan: a packer workload file (job models), not a plan document")
	code, _, errs = packer(t, "", "simulate", "-w", plan)
	refused(t, code, errs, "", plan+": a plan document (from packer plan --output), not a packer workload file")
}

// dp on a workload without users is fifo: simulate says so in its table,
// and, with JSON on stdout, on stderr as well as in the JSON (once each: the
// table's note is not repeated on stderr).
func TestSimulateNotesMissingInputs(t *testing.T) {
	const want = "dp: the workload's jobs all belong to one user (or name none)"
	w := writeFile(t, t.TempDir(), "s.json", `{"jobs": [{"name": "a", "maps": {"count": 4, "mean": 10}}, {"name": "b", "arrival": 5, "maps": {"count": 4, "mean": 5}}]}`)
	code, out, errs := packer(t, "", "simulate", "-w", w, "--policies", "fifo,dp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(errs, want) || !strings.Contains(out, "Note: "+want) {
		t.Errorf("note missing:\nstdout:\n%s\nstderr:\n%s", out, errs)
	}
	code, out, errs = packer(t, "", "simulate", "-w", w, "--policies", "fifo,dp", "--format", "json")
	if code != 0 || !strings.Contains(out, `"notes": [`) || !strings.Contains(out, want) || !strings.Contains(errs, want) {
		t.Errorf("json: exit %d, notes missing:\n%s\nstderr: %s", code, out, errs)
	}
}

// The whole FB-2010 day: the importer takes FB-2010's 3,000 nodes, not
// FB-2009's 600, says so, and warns of its 16.8 million maps.
func TestImportSWIMDerivesClusterAndWarns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fb.json")
	code, _, errs := packer(t, "", "workloads", "import", "--format", "swim", importTestdata+"swim-FB-2010_samples_24_times_1hr_0.tsv", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"packer: note: swim: " + importTestdata + "swim-FB-2010_samples_24_times_1hr_0.tsv is FB-2010, recognised by the file name: 3000 nodes in 150 racks",
		"packer: note: swim: 17355409 tasks (16844155 maps), more than 2000000", "--block-size-mb (e.g. 1024 instead of 64)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestMaxMemoryOutOfRange: --max-memory in MiB must fit an int64 in bytes;
// 2⁴³ MiB wrapped to a negative limit, 2⁴⁴ to none at all.
func TestMaxMemoryOutOfRange(t *testing.T) {
	for _, v := range []string{"8796093022208", "17592186044416", "-1"} {
		code, _, errs := packer(t, "", "simulate", "-w", "../../examples/small.json", "-p", "fifo", "--max-memory", v)
		refused(t, code, errs, "", "--max-memory: "+v+" MiB, want 0 (no limit) to 8796093022207 MiB (8 EiB)")
		if code != 2 {
			t.Errorf("--max-memory %s: exit %d, want 2", v, code)
		}
	}
	if code, _, errs := packer(t, "", "simulate", "-w", "../../examples/small.json", "-p", "fifo", "--max-memory", "8796093022207"); code != 0 {
		t.Errorf("--max-memory at the limit: exit %d: %s", code, errs)
	}
}
