package traces

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestRecogniseSWIM(t *testing.T) {
	for _, tc := range []struct {
		name    string
		records int
		span    float64
		nodes   int
		ok      bool
	}{
		{"swim-FB-2010_samples_24_times_1hr_0.tsv.gz", 10, 60, 3000, true}, // by name, whatever the rate
		{"/x/fb-2009-day.tsv", 5000, 3600, 600, true},                      // by name, case aside
		{"t.tsv", 1001, 3600, 3000, true},                                  // 1000 jobs an hour: FB-2010's 1018
		{"t.tsv", 251, 3600, 600, true},                                    // 250 an hour: FB-2009's 246
		{"t.tsv", 501, 3600, 600, true},                                    // 500: |ln(500/245.6)| = 0.7110 < |ln(500/1018.4)| = 0.7114 (the cut is √(245.6·1018.4) = 500.1)
		{"t.tsv", 511, 3600, 3000, true},                                   // 510: 0.731 > 0.692
		{"t.tsv", 100, 599, 600, false},                                    // too short a span to judge
		{"t.tsv", 1, 3600, 600, false},                                     // one record has no rate
	} {
		c, _, ok := recogniseSWIM(tc.name, tc.records, tc.span)
		if c.nodes != tc.nodes || ok != tc.ok {
			t.Errorf("recogniseSWIM(%q, %d, %v) = %d nodes, %v; want %d, %v", tc.name, tc.records, tc.span, c.nodes, ok, tc.nodes, tc.ok)
		}
	}
}

// headOf returns the first n lines of the shipped trace file.
func headOf(t *testing.T, path string, n int) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	sc := bufio.NewScanner(f)
	for i := 0; i < n && sc.Scan(); i++ {
		b.WriteString(sc.Text() + "\n")
	}
	return b.Bytes()
}

// The real traces are recognised by their names, and, renamed, by their
// first 2,000 jobs' rate (FB-2009: 2,000 in about 9 hours; FB-2010: in about
// 2); --nodes wins over both.
func TestSWIMClusterFromTheTrace(t *testing.T) {
	const fb09, fb10 = "testdata/swim-FB-2009_samples_24_times_1hr_0.tsv", "testdata/swim-FB-2010_samples_24_times_1hr_0.tsv"
	for _, tc := range []struct {
		file, name   string
		nodes, racks int
		how          string
	}{
		{fb09, fb09, 600, 30, "by the file name"},
		{fb10, fb10, 3000, 150, "by the file name"},
		{fb09, "trace.tsv", 600, 30, "by its rate"},
		{fb10, "trace.tsv", 3000, 150, "by its rate"},
	} {
		im, err := Import(bytes.NewReader(headOf(t, tc.file, 2000)), tc.name, swimOptions())
		if err != nil {
			t.Fatal(err)
		}
		if c := im.Workload.Cluster; c.Nodes != tc.nodes || c.Racks != tc.racks {
			t.Errorf("%s as %s: %d nodes in %d racks, want %d in %d", tc.file, tc.name, c.Nodes, c.Racks, tc.nodes, tc.racks)
		}
		if len(im.Notes) != 1 || !strings.Contains(im.Notes[0], tc.how) || !strings.Contains(im.Notes[0], "give --nodes") {
			t.Errorf("%s as %s: notes %q, want one saying %q", tc.file, tc.name, im.Notes, tc.how)
		}
		if !strings.Contains(strings.Join(im.Meta.Assumptions, "\n"), "cluster: "+strconv.Itoa(tc.nodes)+" nodes") {
			t.Errorf("%s: assumptions do not name the cluster: %q", tc.name, im.Meta.Assumptions)
		}
	}
	o := swimOptions()
	o.Cluster.Nodes, o.Given["nodes"] = 100, true
	im, err := Import(bytes.NewReader(headOf(t, fb10, 2000)), fb10, o)
	if err != nil {
		t.Fatal(err)
	}
	if im.Workload.Cluster.Nodes != 100 || len(im.Notes) != 0 {
		t.Errorf("--nodes 100: %d nodes, notes %q", im.Workload.Cluster.Nodes, im.Notes)
	}
}

// The whole FB-2010 day in 64 MiB blocks is 16.8 million maps: the import
// warns and names the flag, with a block size that brings the maps under
// 2 million (16,844,155 / 2 M = 8.4, so 16 × 64 = 1024 MiB).
func TestSWIMWarnsOfManyTasks(t *testing.T) {
	data, err := os.ReadFile("testdata/swim-FB-2010_samples_24_times_1hr_0.tsv")
	if err != nil {
		t.Fatal(err)
	}
	im, err := Import(bytes.NewReader(data), "fb.tsv", swimOptions())
	if err != nil {
		t.Fatal(err)
	}
	if im.Meta.Maps != 16844155 {
		t.Fatalf("maps %d, want 16844155", im.Meta.Maps)
	}
	if len(im.Notes) != 2 { // the cluster chosen, the warning
		t.Fatalf("notes %q, want the cluster and a warning", im.Notes)
	}
	last := im.Notes[1]
	for _, want := range []string{"17355409 tasks (16844155 maps), more than 2000000", "--block-size-mb (e.g. 1024 instead of 64)"} {
		if !strings.Contains(last, want) {
			t.Errorf("warning %q lacks %q", last, want)
		}
	}
	// A window small enough is not warned about.
	o := swimOptions()
	o.Window.MaxJobs, o.Given["max-jobs"] = 100, true
	if im, err = Import(bytes.NewReader(data), "fb.tsv", o); err != nil || len(im.Notes) != 1 {
		t.Errorf("100 jobs: %v, notes %q", err, im.Notes)
	}
}
