package solverbench

import (
	"errors"
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
