package traces

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
)

func TestHybSRead(t *testing.T) {
	in := "# the HybS paper's format\nj1 4 10 1 0.5\n\nj2 2 2.5 1 1\n"
	jobs, im, err := ReadHybS(strings.NewReader(in), "w.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []HybSJob{{"j1", 4, 10, 1, 0.5}, {"j2", 2, 2.5, 1, 1}}
	if !slices.Equal(jobs, want) {
		t.Errorf("jobs %v, want %v", jobs, want)
	}
	// j1: 4 tasks × 10 s = 40 slot-seconds; j2: 2 × 2.5 = 5.
	if im.Meta.Jobs != 2 || im.Meta.Maps != 6 || im.Workload.Jobs[0].Maps.Total() != 40 || im.Workload.Jobs[1].Maps.Total() != 5 {
		t.Errorf("workload %+v", im.Workload.Jobs)
	}
	// On the default 18 nodes × 2 slots all 6 tasks run at once under FIFO:
	// the makespan is the longest task, 10 s.
	res, err := sim.Run(im.Workload, &sim.FIFO{}, nil)
	if err != nil || res.Makespan != 10 {
		t.Errorf("makespan %v (%v), want 10", res.Makespan, err)
	}
}

func TestHybSBadInput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"j1 4 10 1\n", "w.txt: line 1: want 5 fields (jobid, tasks, mean seconds per task, wait time, service level), got 4"},
		{"j1 4 10 1 1\nj2 0 10 1 1\n", `w.txt: line 2: field 2 (number of tasks): want an integer from 1 to 10000000, got "0"`},
		{"j1 4 -1 1 1\n", `w.txt: line 1: field 3 (average time per task): want a number above 0 and 1e+09, got "-1"`},
		{"j1 4 1 1 1.5\n", `w.txt: line 1: field 5 (service level): want a number between 0 and 1, got "1.5"`},
		{"j1 4 1 1 1\nj1 4 1 1 1\n", `w.txt: line 2: job id "j1" already used on line 1`},
		{"# nothing\n", "w.txt: no jobs"},
	} {
		_, _, err := ReadHybS(strings.NewReader(c.in), "w.txt", nil)
		var ie *model.InputError
		if err == nil || err.Error() != c.want || !errors.As(err, &ie) {
			t.Errorf("%q: got %v, want %s", c.in, err, c.want)
		}
	}
	jobs, im, err := ReadHybS(strings.NewReader("j1 4 10 1\nj2 2 3 1 0\nj3 x 1 1 1\n"), "w.txt", &HybSSettings{SkipBad: true})
	if err != nil || len(jobs) != 1 || im.Meta.SkippedBad != 2 {
		t.Errorf("skip-bad: %v %v %v", jobs, im, err)
	}
}

// TestHybSRoundTrip writes random jobs and reads them back exactly.
func TestHybSRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	for range 100 {
		jobs := make([]HybSJob, 1+rng.IntN(20))
		for i := range jobs {
			jobs[i] = HybSJob{ID: fmt.Sprintf("job%d", i), Tasks: 1 + rng.IntN(1000), Mean: 1e-3 + 1e4*rng.Float64(), Wait: float64(rng.IntN(100)), ServiceLevel: rng.Float64()}
		}
		var b bytes.Buffer
		if err := WriteHybS(&b, jobs); err != nil {
			t.Fatal(err)
		}
		back, _, err := ReadHybS(&b, "w.txt", nil)
		if err != nil || !slices.Equal(back, jobs) {
			t.Fatalf("round trip: %v\n%v\n%v", err, jobs, back)
		}
	}
	if err := WriteHybS(&bytes.Buffer{}, []HybSJob{{ID: "a b", Tasks: 1, Mean: 1}}); err == nil {
		t.Error("an id with a space was written")
	}
}

// TestHybSFromSim: job0 of FB-2009 (1 map of 2.01481546 s, 1 reduce of
// 2.1483516 s) is 2 tasks of (2.01481546 + 2.1483516)/2 = 2.08158353 s.
func TestHybSFromSim(t *testing.T) {
	im := readTraceFile(t, ReadSWIM, fb2009Path, &SWIMSettings{Window: Window{MaxJobs: 1}})
	jobs, err := HybSFromSim(im.Workload, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].ID != "job0" || jobs[0].Tasks != 2 || jobs[0].Wait != 1 || jobs[0].ServiceLevel != 0.5 ||
		fmt.Sprintf("%.8f", jobs[0].Mean) != "2.08158353" {
		t.Errorf("got %+v", jobs)
	}
	if _, err := HybSFromSim(im.Workload, 2); err == nil {
		t.Error("service level 2 accepted")
	}
}

func FuzzReadHybS(f *testing.F) {
	f.Add("j1 4 10 1 0.5\nj2 2 2.5 1 1\n", false)
	f.Add("j1 4 10 1\n# x\nj2 0 1 1 1\n", true)
	f.Add("a 2147483647 1e9 1e9 1\n", false)
	f.Add("a 10000000 1 1 1\nb 10000000 1 1 1\n", true)
	f.Fuzz(func(t *testing.T, in string, skip bool) {
		jobs, im, err := ReadHybS(strings.NewReader(in), "w.txt", &HybSSettings{SkipBad: skip})
		if err != nil {
			var ie *model.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if len(jobs) != len(im.Workload.Jobs) {
			t.Fatalf("%d jobs, %d in the workload", len(jobs), len(im.Workload.Jobs))
		}
		var b bytes.Buffer
		if err := WriteHybS(&b, jobs); err != nil {
			t.Fatal(err)
		}
		back, _, err := ReadHybS(&b, "w.txt", nil)
		if err != nil || !slices.Equal(back, jobs) {
			t.Fatalf("written jobs do not read back: %v", err)
		}
	})
}
