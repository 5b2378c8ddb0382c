package traces

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/model/modeltest"
	"github.com/packer-sched/packer/sim"
)

const (
	fb2009Path = "testdata/swim-FB-2009_samples_24_times_1hr_0.tsv"
	fb2010Path = "testdata/swim-FB-2010_samples_24_times_1hr_0.tsv"
)

// readTraceFile opens path and imports it with read (ReadSWIM, ReadRumen),
// failing the test on any error.
func readTraceFile[S any](t testing.TB, read func(io.Reader, string, S) (*Imported, error), path string, set S) *Imported {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im, err := read(f, path, set)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// countLines counts a file's non-empty lines and the lines whose second
// field lies in [from, to), by plain string handling, independently of the
// importer.
func countLines(t *testing.T, path string, from, to float64) (all, in int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		all++
		sub, err := strconv.ParseFloat(strings.Split(sc.Text(), "\t")[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		if sub >= from && sub < to {
			in++
		}
	}
	return all, in
}

func TestSWIMShippedTraces(t *testing.T) {
	for _, c := range []struct {
		path string
		jobs int
	}{{fb2009Path, 5894}, {fb2010Path, 24442}} {
		im := readTraceFile(t, ReadSWIM, c.path, nil)
		lines, _ := countLines(t, c.path, 0, 0)
		if lines != c.jobs || im.Meta.Jobs != c.jobs || len(im.Workload.Jobs) != c.jobs || im.Meta.Records != c.jobs {
			t.Errorf("%s: %d lines, %d records, %d jobs imported, want %d", c.path, lines, im.Meta.Records, len(im.Workload.Jobs), c.jobs)
		}
		maps, reduces := 0, 0
		for _, j := range im.Workload.Jobs {
			maps += j.Maps.N()
			reduces += j.Reduces.N()
		}
		if maps != im.Meta.Maps || reduces != im.Meta.Reduces {
			t.Errorf("%s: metadata counts %d maps %d reduces, workload has %d and %d", c.path, im.Meta.Maps, im.Meta.Reduces, maps, reduces)
		}
		if err := im.Workload.Validate(); err != nil {
			t.Errorf("%s: %v", c.path, err)
		}
	}
}

// TestSWIMPinnedJobs checks jobs against the raw lines, by hand.
func TestSWIMPinnedJobs(t *testing.T) {
	im := readTraceFile(t, ReadSWIM, fb2009Path, nil)
	// job0	49	49	740773	2339561	627471: the first line, so the origin is 49 s.
	// maps = max(1, ⌈740773 / 67108864⌉) = 1; reduces = ⌈max(2339561, 627471) / 2³⁰⌉ = 1.
	// map = 2 + 740773 / 50e6 = 2.01481546 s; reduce = 2 + (2339561 + 627471) / 20e6 = 2.1483516 s.
	j := im.Workload.Jobs[0]
	want := sim.Job{Name: "job0", Maps: sim.Tasks{Count: 1, Mean: 2.01481546}, Reduces: sim.Tasks{Count: 1, Mean: 2.1483516}}
	checkJob(t, j, want)
	if im.Meta.Origin != 49 {
		t.Errorf("origin %v, want 49", im.Meta.Origin)
	}
	// job4	208	11	3623279	0	9838062: no shuffle, so map-only; the maps
	// write the output: ⌈max(3623279, 9838062) / 67108864⌉ = 1 map of
	// 2 + 3623279/50e6 + 9838062/20e6 = 2 + 0.07246558 + 0.4919031 = 2.56436868 s, arriving 208 − 49 = 159 s.
	checkJob(t, im.Workload.Jobs[4], sim.Job{Name: "job4", Arrival: 159, Maps: sim.Tasks{Count: 1, Mean: 2.56436868}})

	im = readTraceFile(t, ReadSWIM, fb2010Path, nil)
	// job2	20	2	53088744165	1510005522	5759777, origin 9 s:
	// maps = ⌈53088744165 / 67108864⌉ = ⌈791.08⌉ = 792 of 2 + 53088744165/792/50e6 = 3.34062485 s;
	// reduces = ⌈1510005522 / 1073741824⌉ = 2 of 2 + (1510005522 + 5759777)/2/20e6 = 39.89413248 s.
	checkJob(t, im.Workload.Jobs[2], sim.Job{Name: "job2", Arrival: 11, Maps: sim.Tasks{Count: 792, Mean: 3.34062485}, Reduces: sim.Tasks{Count: 2, Mean: 39.89413248}})
	// job0	9	9	1762	0	14347: map-only, one map of 2 + 1762/50e6 + 14347/20e6 = 2.00075259 s.
	checkJob(t, im.Workload.Jobs[0], sim.Job{Name: "job0", Maps: sim.Tasks{Count: 1, Mean: 2.00075259}})
}

func checkJob(t *testing.T, got, want sim.Job) {
	t.Helper()
	if got.Name != want.Name || got.Maps.Count != want.Maps.Count || got.Reduces.Count != want.Reduces.Count ||
		!scalar.EqualWithinAbsOrRel(got.Arrival, want.Arrival, 1e-9, 1e-9) ||
		!scalar.EqualWithinAbsOrRel(got.Maps.Mean, want.Maps.Mean, 1e-8, 1e-8) ||
		!scalar.EqualWithinAbsOrRel(got.Reduces.Mean, want.Reduces.Mean, 1e-8, 1e-8) {
		t.Errorf("job %s: got %+v, want %+v", want.Name, got, want)
	}
}

func TestSWIMWindow(t *testing.T) {
	// One hour of the day, the second: submit times in [3600, 7200).
	im := readTraceFile(t, ReadSWIM, fb2009Path, &SWIMSettings{Window: Window{From: 3600, To: 7200}})
	all, in := countLines(t, fb2009Path, 3600, 7200)
	if len(im.Workload.Jobs) != in || im.Meta.OutsideWindow != all-in {
		t.Fatalf("%d jobs, %d outside, want %d and %d", len(im.Workload.Jobs), im.Meta.OutsideWindow, in, all-in)
	}
	if im.Workload.Jobs[0].Arrival != 0 || im.Meta.Origin < 3600 || im.Meta.Origin >= 7200 {
		t.Errorf("first arrival %v, origin %v: want 0 and within the hour", im.Workload.Jobs[0].Arrival, im.Meta.Origin)
	}
	for _, j := range im.Workload.Jobs {
		if j.Arrival+im.Meta.Origin >= 7200 {
			t.Fatalf("job %s submitted at %v s, after the window", j.Name, j.Arrival+im.Meta.Origin)
		}
	}
	// --max-jobs stops reading after the 10th job: the 11th record is the
	// one that told it so.
	im = readTraceFile(t, ReadSWIM, fb2009Path, &SWIMSettings{Window: Window{MaxJobs: 10}})
	if len(im.Workload.Jobs) != 10 || im.Meta.Records != 11 || im.Workload.Jobs[9].Name != "job9" {
		t.Errorf("MaxJobs 10: %d jobs, %d records read", len(im.Workload.Jobs), im.Meta.Records)
	}
}

func TestSWIMBadInput(t *testing.T) {
	good := "job0\t1\t1\t100\t0\t0\n"
	for _, c := range []struct {
		name, in, want string
	}{
		{"fields", good + "job1\t2\t1\t100\t0\n", "f.tsv: line 2: want 6 tab-separated fields (id, submit, gap, input, shuffle, output bytes), got 5"},
		{"negative", good + "job1\t2\t1\t-5\t0\t0\n", `f.tsv: line 2: field 4 (input bytes): want a non-negative integer, got "-5"`},
		{"time", good + "\njob1\tsoon\t1\t5\t0\t0\n", `f.tsv: line 3: field 2 (submit): want seconds between 0 and 1e+09, got "soon"`},
		{"duplicate", good + good, `f.tsv: line 2: job id "job0" already used on line 1`},
		{"empty", "", "f.tsv: no jobs to import (0 records, 0 outside the window, 0 malformed skipped)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSWIM(strings.NewReader(c.in), "f.tsv", nil)
			var ie *model.InputError
			if err == nil || err.Error() != c.want || !errors.As(err, &ie) {
				t.Fatalf("got %v, want %s", err, c.want)
			}
		})
	}
	// With SkipBad the three bad lines are counted and the two good kept.
	in := good + "job1\t2\t1\t100\t0\n" + "job2\t2\t1\t-5\t0\t0\n" + "job3\t3\t1\t7\t8\t9\n" + "x\n"
	im, err := ReadSWIM(strings.NewReader(in), "f.tsv", &SWIMSettings{SkipBad: true})
	if err != nil || im.Meta.SkippedBad != 3 || len(im.Workload.Jobs) != 2 {
		t.Fatalf("skip-bad: %v, %+v", err, im)
	}
}

func TestSWIMGzipAndTruncation(t *testing.T) {
	raw, err := os.ReadFile(fb2009Path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	im, err := ReadSWIM(bytes.NewReader(z.Bytes()), fb2009Path, nil)
	if err != nil || len(im.Workload.Jobs) != 5894 {
		t.Fatalf("gzipped: %v", err)
	}
	plain := readTraceFile(t, ReadSWIM, fb2009Path, nil)
	a, _ := im.MarshalIndent()
	b, _ := plain.MarshalIndent()
	if !bytes.Equal(a, b) {
		t.Error("the gzipped trace imports differently from the plain one")
	}
	// Cut the stream in half: an error naming truncation, even with SkipBad.
	for _, skip := range []bool{false, true} {
		_, err = ReadSWIM(bytes.NewReader(z.Bytes()[:z.Len()/2]), "fb.tsv.gz", &SWIMSettings{SkipBad: skip})
		if err == nil || !strings.HasPrefix(err.Error(), "fb.tsv.gz: line ") || !strings.Contains(err.Error(), "truncated input (gzip stream ends early)") {
			t.Errorf("truncated gzip, skip %v: %v", skip, err)
		}
	}
}

// TestImportRoundTrip writes an import as a workload file and reads it back
// with the simulator's own parser: the same workload, metadata ignored.
func TestImportRoundTrip(t *testing.T) {
	im := readTraceFile(t, ReadSWIM, fb2009Path, &SWIMSettings{Window: Window{MaxJobs: 50}})
	doc, err := im.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	w, err := sim.ParseWorkload(doc, "w.json")
	if err != nil {
		t.Fatal(err)
	}
	back, _ := (&Imported{Workload: w, Meta: im.Meta}).MarshalIndent()
	if !bytes.Equal(doc, back) {
		t.Error("the workload file does not read back to the same workload")
	}
	if !bytes.Contains(doc, []byte(`"assumptions": [`)) || !bytes.Contains(doc, []byte("one per HDFS block")) {
		t.Error("the assumptions are missing from the metadata")
	}
}

func FuzzReadSWIM(f *testing.F) {
	f.Add("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t1700537\t432269\n", false)
	f.Add("job0\t1\t1\t-1\t0\t0\n", true)
	f.Add("a\t1e9\t0\t9223372036854775807\t9223372036854775807\t9223372036854775807\n", false)
	f.Add("\x1f\x8b\x08\x00", false)
	f.Fuzz(func(t *testing.T, in string, skip bool) {
		im, err := ReadSWIM(strings.NewReader(in), "f.tsv", &SWIMSettings{SkipBad: skip, Cluster: sim.Cluster{Nodes: 4}})
		if err != nil {
			modeltest.NamesFile(t, err, "f.tsv")
			return
		}
		doc, err := im.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.ParseWorkload(doc, "w.json"); err != nil {
			t.Fatalf("imported workload does not read back: %v", err)
		}
	})
}
