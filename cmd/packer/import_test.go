package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
)

const (
	importTestdata = "../../workloads/traces/testdata/"
	importFB2009   = importTestdata + "swim-FB-2009_samples_24_times_1hr_0.tsv"
	importRumen19  = importTestdata + "rumen-19-jobs.trace.json.gz"
	importRumenTop = importTestdata + "rumen-19-jobs.topology.json.gz"
)

// TestImportCommand imports each format on the command line: the workload
// goes to stdout (or --output) and reads back with the simulator's parser,
// the one-line summary goes to stderr (or stdout when the JSON is in a file).
func TestImportCommand(t *testing.T) {
	code, out, errs := packer(t, "", "workloads", "import", "--input-format", "swim", "--max-jobs", "5", importFB2009)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	w, err := sim.ParseWorkload([]byte(out), "out")
	if err != nil || len(w.Jobs) != 5 || w.Cluster.Nodes != 600 {
		t.Fatalf("swim: %v, %+v", err, w)
	}
	if errs != "packer: note: swim: "+importFB2009+" is FB-2009, recognised by the file name: 600 nodes in 30 racks; give --nodes and --racks to choose\n"+
		"Imported 5 jobs (5 maps, 4 reduces) from "+importFB2009+" (swim) onto 600 nodes in 30 racks; 1 jobs outside the window.\n" {
		t.Errorf("summary %q", errs)
	}

	dir := t.TempDir()
	path, hybs := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.hybs")
	code, out, errs = packer(t, "", "workloads", "import", "--input-format", "rumen", "--topology", importRumenTop, "-o", path, "--hybs", hybs, importRumen19)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != "Imported 14 jobs (1335 maps, 2655 reduces) from "+importRumen19+" (rumen) onto 1545 nodes in 41 racks; 5 failed jobs dropped.\n" {
		t.Errorf("summary %q", out)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Metadata struct {
			Format        string `json:"format"`
			DroppedFailed int    `json:"dropped_failed"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(doc, &meta); err != nil || meta.Metadata.Format != "rumen" || meta.Metadata.DroppedFailed != 5 {
		t.Errorf("metadata %+v (%v)", meta, err)
	}
	// The HybS file has the 14 jobs and reads back as a workload.
	code, out, errs = packer(t, "", "workloads", "import", "--input-format", "hybs", "--nodes", "4", hybs)
	if code != 0 {
		t.Fatalf("hybs: exit %d: %s", code, errs)
	}
	if w, err := sim.ParseWorkload([]byte(out), "out"); err != nil || len(w.Jobs) != 14 || w.Cluster.Nodes != 4 {
		t.Errorf("hybs: %v", err)
	}
}

func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte("job0\t1\t1\t5\t0\t0\njob1\t2\t1\t-5\t0\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "w.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--input-format", "swim", "-o", out, bad}, "packer: " + bad + `: line 2: field 4 (input bytes): want a non-negative integer, got "-5"`},
		{[]string{"--input-format", "csv", bad}, `packer: --input-format: unknown trace format "csv" (want swim, rumen or hybs)`},
		{[]string{"--input-format", "swim", "--topology", importRumenTop, bad}, "packer: --topology applies to --input-format rumen only"},
		{[]string{"--input-format", "rumen", "--nodes", "9", "--topology", importRumenTop, importRumen19}, "packer: --nodes and --topology are two clusters: give one (--nodes moves the real jobs onto a cluster of that size)"},
		{[]string{"--input-format", "swim", "--from", "10", "--to", "5", bad}, "packer: --to 5 must be after --from 10"},
		{[]string{"--input-format", "swim", bad, "more.tsv"}, `packer: workloads import takes one trace FILE, got also "more.tsv"`},
		{[]string{bad}, "packer: workloads import needs --input-format swim, rumen or hybs"},
		{[]string{bad, "--input-format", "swim", "--bogus"}, "packer: workloads import: flag provided but not defined: -bogus (see: packer workloads import --help)"},
		{[]string{"--input-format", "swim", filepath.Join(dir, "none.tsv")}, "packer: " + filepath.Join(dir, "none.tsv") + ": open " + filepath.Join(dir, "none.tsv") + ": no such file or directory"},
	} {
		code, _, errs := packer(t, "", append([]string{"workloads", "import"}, c.args...)...)
		if code != 2 || strings.TrimSpace(errs) != c.want {
			t.Errorf("%v: exit %d, %q\nwant %q", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a failed import left its output file")
	}
	// --skip-bad keeps job0 and says how many lines were skipped; flags may
	// follow FILE, as the issue writes the command; --format, the old name of
	// --input-format, still works.
	code, _, errs := packer(t, "", "workloads", "import", bad, "--format", "swim", "--skip-bad", "-o", out)
	if code != 0 {
		t.Fatalf("skip-bad: exit %d: %s", code, errs)
	}
	w, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(w), `"skipped_bad": 1`) {
		t.Errorf("skip-bad output: %v", err)
	}
}

// TestFitRumen fits the real jobs of the 19-job trace at three node counts
// and checks the workload file packer plan takes: one model per successful
// job, with F(n) at the replayed counts close to the replays (the fit is a
// least-squares line in log space, so within its residual error).
func TestFitRumen(t *testing.T) {
	out := filepath.Join(t.TempDir(), "models.json")
	code, stdout, errs := packer(t, "", "fit", "--rumen", importRumen19, "--nodes", "2,6,18", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "Job job_200904211745_0011: F(n) = ") {
		t.Errorf("no fit printed for job 11:\n%.500s", stdout)
	}
	w, err := model.ReadWorkloadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 14 {
		t.Fatalf("%d jobs, want the 14 successful ones", len(w.Jobs))
	}
	for _, j := range w.Jobs {
		p := j.Profile
		if p == nil || len(p.Observations) != 3 || j.Range.Min != 2 || j.Range.Max != 18 {
			t.Fatalf("job %s: profile %+v", j.Name, p)
		}
		for _, o := range p.Observations {
			if got := j.Seconds(o.Nodes); got < o.Seconds*0.5 || got > o.Seconds*2 {
				t.Errorf("job %s: F(%d) = %.1f, replayed %.1f", j.Name, o.Nodes, got, o.Seconds)
			}
		}
	}
	// Job 11 is 500 maps and one reduce: more nodes, shorter; with a power
	// law b < −0.5, so F(18) < F(2)·9^−0.5 = F(2)/3 whatever the form.
	for _, j := range w.Jobs {
		if j.Name == "job_200904211745_0011" && !(j.Seconds(18) < j.Seconds(2)/3) {
			t.Errorf("job 11: F(2) = %v, F(18) = %v (%s), want F(18) below F(2)/3", j.Seconds(2), j.Seconds(18), j.Model)
		}
	}
	code, _, errs = packer(t, "", "plan", "--workload", out, "--algorithm", "auto")
	if code != 0 {
		t.Errorf("packer plan on the fitted real jobs: exit %d: %s", code, errs)
	}
	code, _, errs = packer(t, "", "fit", "--rumen", importRumen19, "--observations", "x.csv")
	if code != 2 || !strings.Contains(errs, "--rumen and --observations are two sources of runs") {
		t.Errorf("both sources: exit %d %s", code, errs)
	}
	// A node count the simulator cannot replay is refused before any job
	// is replayed, in one line, with nothing written.
	bad := filepath.Join(t.TempDir(), "bad.json")
	code, _, errs = packer(t, "", "fit", "--rumen", importRumen19, "--nodes", "2,99999999999", "-o", bad)
	if _, err := os.Stat(bad); code != 2 || !strings.Contains(errs, "--nodes: node count 99999999999") || strings.Count(strings.TrimSpace(errs), "\n") != 0 || err == nil {
		t.Errorf("--nodes past the simulator's limit: exit %d, stderr %q, output stat %v", code, errs, err)
	}
}
