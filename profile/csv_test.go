package profile

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/model/modeltest"
)

const goodCSV = `job,nodes,seconds,cpu_util,io_mbps
sort,2,50,0.3,140
sort,4,26,0.3,150
# a comment line
grep,2,80,,
sort,8,13.5,0.25,160
grep,4,41,0.9,
`

func TestReadObservations(t *testing.T) {
	jobs, err := ReadObservations(strings.NewReader(goodCSV), "obs.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Job != "sort" || jobs[1].Job != "grep" || jobs[1].Line != 5 {
		t.Fatalf("jobs %+v: want sort then grep (first row on line 5)", jobs)
	}
	s, g := jobs[0].Observations, jobs[1].Observations
	if len(s) != 3 || s[2].Nodes != 8 || s[2].Seconds != 13.5 || *s[2].CPUUtil != 0.25 || *s[2].IOMBps != 160 {
		t.Errorf("sort: %s", jsonOf(s))
	}
	// Empty optional cells are "not measured", not zero.
	if len(g) != 2 || g[0].CPUUtil != nil || g[0].IOMBps != nil || *g[1].CPUUtil != 0.9 || g[1].IOMBps != nil {
		t.Errorf("grep: %s", jsonOf(g))
	}
	// Columns in any order, optional ones absent, a BOM, spaces after commas.
	jobs, err = ReadObservations(strings.NewReader("\ufeffSeconds, nodes, job\n10, 1, a\n6, 2, a\n"), "x.csv")
	if err != nil || len(jobs) != 1 || jobs[0].Observations[1].Seconds != 6 || jobs[0].Observations[1].CPUUtil != nil {
		t.Errorf("reordered columns: %+v, %v", jobs, err)
	}
}

// Every error names the file, the line and, where there is one, the column.
func TestReadObservationsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "obs.csv: the file is empty"},
		{"job,nodes\na,1\n", `obs.csv: line 1: missing column "seconds"`},
		{"job,nodes,secs\n", `obs.csv: line 1, column 3: unknown column "secs"`},
		{"job,nodes,seconds,nodes\n", `obs.csv: line 1, column 4: column "nodes" appears twice`},
		{"job,nodes,seconds\n", "obs.csv: no observations after the header"},
		{"job,nodes,seconds\na,1,10\na,two,5\n", `obs.csv: line 3, column 2 (nodes): nodes must be a positive integer, got "two"`},
		{"job,nodes,seconds\na,0,10\n", `line 2, column 2 (nodes): nodes must be a positive integer, got "0"`},
		{"job,nodes,seconds\na,1,10\na,2,-5\n", `line 3, column 3 (seconds): seconds must be a finite positive number, got "-5"`},
		{"job,nodes,seconds\na,1,0\n", `line 2, column 3 (seconds)`},
		{"job,nodes,seconds\na,1,NaN\n", `line 2, column 3 (seconds)`},
		{"job,nodes,seconds,cpu_util\na,1,10,1.5\n", `line 2, column 4 (cpu_util): cpu_util must be a number from 0 to 1, got "1.5"`},
		{"job,nodes,seconds,io_mbps\na,1,10,-1\n", `line 2, column 4 (io_mbps): io_mbps must be a finite non-negative number, got "-1"`},
		{"job,nodes,seconds\na,1,10\na,2\n", "line 3: 2 fields, but the header has 3"},
		{"job,nodes,seconds\n,1,10\n", "line 2, column 1 (job): empty job name"},
		{"job,nodes,seconds\na,1,\"10\n", "line 2, column"},
		{"job,nodes,seconds\na,1,10\nb,3,10\nb,3,11\na,2,5\n", `line 3, column 2 (nodes): job "b" is measured at a single node count (3)`},
	} {
		_, err := ReadObservations(strings.NewReader(tc.in), "obs.csv")
		var in *model.InputError
		if err == nil || !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want an InputError containing %q", tc.in, err, tc.want)
		}
	}
}

// FuzzReadObservations: no input panics, errors are InputErrors naming the
// file, and what is accepted can be analysed.
func FuzzReadObservations(f *testing.F) {
	for _, s := range []string{
		goodCSV,
		"job,nodes,seconds\na,1,10\na,2,5\n",
		"nodes,job,seconds,io_mbps\n1,x,3,\n2,x,2,1e3\n",
		"job,nodes,seconds\na,1,\"10\n",
		"job,nodes,seconds\na,1,1e309\na,2,1\n",
		"\ufeffjob,nodes,seconds\n\"a,b\",1,1\n\"a,b\",3,1\n",
		"job,nodes,seconds,vcpus,memory_mib\na,1,10,2,4096\na,2,5,2,\nb,1,3,,\nb,2,2,,\n",
		"job,nodes,seconds,vcpus\na,1,10,2\na,2,5,4\n",
		"job,nodes,seconds,vcpus,memory_mib\na,1,10,0,99999999999\na,2,5,,1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		jobs, err := ReadObservations(strings.NewReader(s), "fuzz.csv")
		if err != nil {
			modeltest.NamesFile(t, err, "fuzz.csv")
			return
		}
		for _, j := range jobs {
			if s := j.Shape; s != nil && s.Validate() != nil {
				t.Fatalf("accepted job %q with shape %+v: %v", j.Job, *s, s.Validate())
			}
			if _, err := Analyze(j.Job, j.Observations, nil); err != nil {
				t.Fatalf("accepted job %q cannot be analysed: %v", j.Job, err)
			}
		}
	})
}

// TestWriteObservationsRoundTrip: what WriteObservations writes reads back
// as the same runs (failed runs left out, unmeasured columns empty).
func TestWriteObservationsRoundTrip(t *testing.T) {
	cpu, io := 0.75, 120.5
	obs := []model.Observation{
		{Nodes: 1, Seconds: 100.25, CPUUtil: &cpu, IOMBps: &io},
		{Nodes: 1, Seconds: 99, Failed: true},
		{Nodes: 4, Seconds: 30.125},
	}
	var b strings.Builder
	if err := WriteObservations(&b, "j,1", obs); err != nil {
		t.Fatal(err)
	}
	want := "job,nodes,seconds,cpu_util,io_mbps\n\"j,1\",1,100.25,0.75,120.5\n\"j,1\",4,30.125,,\n"
	if b.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", b.String(), want)
	}
	jobs, err := ReadObservations(strings.NewReader(b.String()), "runs.csv")
	if err != nil || len(jobs) != 1 || jobs[0].Job != "j,1" || len(jobs[0].Observations) != 2 {
		t.Fatalf("read back %+v, %v", jobs, err)
	}
	got := jobs[0].Observations
	if got[0].Nodes != 1 || got[0].Seconds != 100.25 || *got[0].CPUUtil != 0.75 || *got[0].IOMBps != 120.5 ||
		got[1].Nodes != 4 || got[1].Seconds != 30.125 || got[1].CPUUtil != nil || got[1].IOMBps != nil {
		t.Errorf("read back %+v %+v", got[0], got[1])
	}
}

// TestReadObservationsSkipsABOM: spreadsheets save "CSV UTF-8" with a byte
// order mark before the header.
func TestReadObservationsSkipsABOM(t *testing.T) {
	jobs, err := ReadObservations(strings.NewReader("\ufeffjob,nodes,seconds\nj,1,10\nj,2,6\n"), "runs.csv")
	if err != nil || len(jobs) != 1 || len(jobs[0].Observations) != 2 {
		t.Errorf("read %+v, %v", jobs, err)
	}
}

// TestReadObservationsBounded: /dev/zero, one endless line, is refused once
// a line passes MaxObservationLine, with one line naming the limit, not
// read until memory runs out.
func TestReadObservationsBounded(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = ReadObservations(f, "/dev/zero")
	if !errors.Is(err, model.ErrTooLarge) || !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), "at most 64 KiB") {
		t.Errorf("/dev/zero: %v", err)
	}
	long := "job,nodes,seconds\n" + strings.Repeat("x", MaxObservationLine+1) + ",2,10\n"
	if _, err := ReadObservations(strings.NewReader(long), "long.csv"); !errors.Is(err, model.ErrTooLarge) {
		t.Errorf("long line: %v", err)
	}
	name := strings.Repeat("x", MaxObservationLine-10)
	ok := "job,nodes,seconds\n" + name + ",2,10\n" + name + ",4,6\n"
	if _, err := ReadObservations(strings.NewReader(ok), "ok.csv"); err != nil {
		t.Errorf("lines within the limit: %.200v", err)
	}
}
