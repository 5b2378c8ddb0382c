package model

import (
	"errors"
	"strings"
	"testing"
)

func TestNewProblemRefusesOverflowingTotals(t *testing.T) {
	c := PaperCluster() // 18 primary VMs, alpha 1.3
	big := func(name string) Job { return Job{Name: name, Model: PowerLaw{A: 1e306, B: 0}} }
	// Each job: alpha·F(n) = 1.3e306, finite on every n. Limit: MaxFloat64/18
	// ≈ 9.99e306, so the running sum passes it at the eighth job (8 × 1.3e306
	// = 1.04e307), jobs[7].
	jobs := make([]Job, 8)
	for i := range jobs {
		jobs[i] = big(string(rune('a' + i)))
	}
	// Such a job is past the plausibility bounds, so validation refuses it
	// first; checkTotals stays as a guard for jobs made in code.
	if _, err := NewProblem(&Workload{Name: "w", Jobs: jobs[:1]}, c); err == nil || !strings.Contains(err.Error(), "model.a must be between 0.001 and 1e+10 seconds, got 1e+306") {
		t.Errorf("a job of 1e306 s: %v", err)
	}
	err := checkTotals(jobs, c)
	if err == nil || !errors.Is(err, ErrInvalidWorkload) {
		t.Fatalf("8 jobs of 1.3e306 s on 18 VMs: got %v, want an invalid workload", err)
	}
	for _, want := range []string{"jobs[7].model.a: 1e+306:", "total runtime overflows"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// Seven fit: 7 × 1.3e306 = 9.1e306 < 9.99e306.
	if err := checkTotals(jobs[:7], c); err != nil {
		t.Errorf("7 jobs of 1.3e306 s: %v", err)
	}
}

func TestLargestParameter(t *testing.T) {
	for _, tc := range []struct {
		m     Model
		field string
		v     float64
	}{
		{PowerLaw{A: 5, B: -1}, "model.a", 5},
		{Amdahl{A: 5, C: 7}, "model.c", 7},
		{Amdahl{A: 9, C: 7}, "model.a", 9},
		{Ernest{Theta: [4]float64{1, 8, 2, 3}}, "model.theta[1]", 8},
		{&Table{Nodes: []int{1, 2, 4}, Times: []float64{10, 30, 20}}, "model.seconds[1]", 30},
	} {
		if f, v := largestParameter(tc.m); f != tc.field || v != tc.v {
			t.Errorf("%s: got %s = %v, want %s = %v", tc.m, f, v, tc.field, tc.v)
		}
	}
}
