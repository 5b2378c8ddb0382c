package solverbench

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestSettingsValidate(t *testing.T) {
	var s Settings
	if err := s.validate(); err != nil || s.Particles != 1500 || s.Iterations != 200 || s.Random != 50 {
		t.Errorf("zero settings: %+v, %v; want the paper's 1500 × 200 and 50 workloads", s, err)
	}
	bad := Settings{Iterations: -1}
	if err := bad.validate(); err == nil || !strings.Contains(err.Error(), "Iterations") {
		t.Errorf("negative iterations: %v, want an error naming Iterations", err)
	}
}

// TestRunStopsOnEmitError: the report starts with the settings line (Quick
// caps 1500 × 200 at 100 × 20) and the first section's title, and an error
// from emit ends the run at once, before any solver runs.
func TestRunStopsOnEmitError(t *testing.T) {
	stop := errors.New("stop")
	var got []Block
	err := Run(Settings{Quick: true, Seed: 4}, func(b Block) error {
		got = append(got, b)
		if len(got) == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Run returned %v, want emit's error", err)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0].Text, "packer bench: 100 particles × 20 iterations, seed 4, ") ||
		got[1].Text != "\n1. Exact solver vs cbc on the exported LP (same instances, one core each)\n" {
		t.Errorf("blocks %q", got)
	}
}

func TestStatistics(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	// Median: halfway between 2 and 3; 90th percentile: index 0.9·3 = 2.7,
	// so 3 + 0.7·(4 − 3) = 3.7.
	for _, c := range []struct{ got, want float64 }{
		{quantile(xs, 0.5), 2.5}, {quantile(xs, 0.9), 3.7}, {quantile(xs, 1), 4},
		{mean(xs), 2.5}, {gap(105, 100), 5},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	if !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("the quantile of nothing must be NaN")
	}
}

// TestStepsChooseTheMeasurements: Steps runs only the steps named, and a
// step past the last is refused, naming the field.
func TestStepsChooseTheMeasurements(t *testing.T) {
	bad := Settings{Steps: []int{8}}
	if err := bad.validate(); err == nil || !strings.Contains(err.Error(), "Steps") || !strings.Contains(err.Error(), "8") {
		t.Errorf("step 8: %v, want an error naming Steps and 8", err)
	}
	// emit ends the run at the first title after the settings line: step
	// 7's, if the steps before it were left out.
	stop := errors.New("stop")
	var titles []string
	err := Run(Settings{Quick: true, Steps: []int{7}}, func(b Block) error {
		titles = append(titles, b.Text)
		if len(titles) == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || len(titles) != 2 || !strings.HasPrefix(titles[1], "\n7. auto as packer plan runs it") {
		t.Errorf("%v, titles %q: want the settings line, then step 7's title", err, titles)
	}
}

// TestPlanningStepLongerNeverWorse: step 7 in a quick run plans under work
// limits, so its "no worse" column is exact, not timing: the longer limit
// follows the same search further, and every instance must count. Each
// ratio is plan ÷ bound, at least 1, and the longer limit's median is no
// larger.
func TestPlanningStepLongerNeverWorse(t *testing.T) {
	b := &bencher{quick: true}
	var rows [][]string
	b.emit = func(bl Block) error {
		rows = append(rows, bl.Rows...)
		return nil
	}
	if err := b.planning(); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("rows %q, want one (20 jobs on 9 hosts)", rows)
	}
	r := rows[0]
	if r[0] != "20" || r[1] != "9" || r[4] != "2 of 2" || r[5] != "100000–100000" {
		t.Errorf("row %q: want 20 jobs, 9 hosts, 2 of 2 no worse, 100,000 units each", r)
	}
	var m1, w1, m2, w2 float64
	if _, err := fmt.Sscanf(r[2], "%f (%f)", &m1, &w1); err != nil {
		t.Fatalf("%q: %v", r[2], err)
	}
	if _, err := fmt.Sscanf(r[3], "%f (%f)", &m2, &w2); err != nil {
		t.Fatalf("%q: %v", r[3], err)
	}
	if m1 < 1 || w1 < m1 || m2 < 1 || w2 < m2 || m2 > m1 || w2 > w1 {
		t.Errorf("ratios %v (%v) then %v (%v): want ≥ 1, worst ≥ median, the longer limit no larger", m1, w1, m2, w2)
	}
}
