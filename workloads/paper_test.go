package workloads

import (
	"math"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

func TestTableOne(t *testing.T) {
	// Packing paper, Table 1, job counts per workload.
	want := map[string]map[string]int{
		"W1": {"s-srt": 2, "s-kmns": 2, "s-inv": 1},
		"W2": {"s-srt": 2, "s-kmns": 1, "s-inv": 1, "s-dsim": 1},
		"W3": {"s-srt": 3, "s-kmns": 2, "s-inv": 1, "s-dsim": 1},
		"W4": {"s-srt": 1, "b-srt": 1, "b-inv": 2},
		"W5": {"b-srt": 2, "b-kmns": 2, "b-inv": 1},
		"W6": {"b-srt": 2, "b-kmns": 2, "b-inv": 2},
	}
	if got := strings.Join(Names(), ","); got != "W1,W2,W3,W4,W5,W6" {
		t.Errorf("names %s", got)
	}
	for name, counts := range want {
		w, err := Get(strings.ToLower(name))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		got := map[string]int{}
		for _, j := range w.Jobs {
			got[j.Name[:strings.LastIndex(j.Name, "-")]]++
		}
		for job, n := range counts {
			if got[job] != n {
				t.Errorf("%s: %d × %s, want %d", name, got[job], job, n)
			}
		}
		if len(got) != len(counts) {
			t.Errorf("%s: jobs %v", name, got)
		}
	}
	if _, err := Get("W7"); err == nil || !strings.Contains(err.Error(), "W1, W2") {
		t.Errorf("unknown workload: %v", err)
	}
}

func TestPaperJobsMatchThePaper(t *testing.T) {
	get := func(name string) model.Job {
		j, ok := PaperJob(name)
		if !ok {
			t.Fatalf("no job %s", name)
		}
		return j
	}
	// Sort is I/O-bound, k-means CPU-bound (packing paper, section 3).
	for _, n := range []string{"s-srt", "b-srt"} {
		if j := get(n); !j.CanHost() {
			t.Errorf("%s must be I/O-intensive only, is %s", n, j.Class())
		}
	}
	for _, n := range []string{"s-kmns", "b-kmns"} {
		if j := get(n); !j.CanBeExtra() {
			t.Errorf("%s must be CPU-intensive only, is %s", n, j.Class())
		}
	}
	// Figure 1: more VMs always help the small jobs, with diminishing returns:
	// each extra VM saves less than the one before.
	for _, n := range []string{"s-srt", "s-kmns", "s-inv", "s-dsim"} {
		j := get(n)
		prevGain := math.Inf(1)
		for v := 1; v < 22; v++ {
			gain := j.Seconds(v) - j.Seconds(v+1)
			if gain <= 0 || gain >= prevGain {
				t.Errorf("%s: going from %d to %d VMs saves %v s after %v s", n, v, v+1, gain, prevGain)
				break
			}
			prevGain = gain
		}
	}
	// Models are defined at the reference size: F(6) as documented.
	for n, at6 := range map[string]float64{"s-srt": 600, "s-kmns": 480, "s-inv": 160, "s-dsim": 1500, "b-srt": 4000, "b-kmns": 2000, "b-inv": 2400} {
		if got := get(n).Seconds(6); math.Abs(got-at6) > 1e-9*at6 {
			t.Errorf("%s: F(6) = %v, want %v", n, got, at6)
		}
	}
}
