package workloads_test

// An external test package: plantest imports workloads, so workloads' own
// tests cannot import plantest.

import (
	"testing"

	"github.com/packer-sched/packer/internal/plantest"
)

func TestPairPlansSave(t *testing.T) {
	// Every built-in workload's pair plan beats running its jobs one by one on
	// the packing paper's clusters (9 hosts for W1–W3, 10 for W4–W6), by the margins the
	// chosen models give (README, "Planning"); the plans verify.
	for _, c := range []struct {
		name  string
		hosts int
		min   float64 // saving in percent, at least
	}{
		{"W1", 9, 15}, {"W2", 9, 11}, {"W3", 9, 12}, {"W4", 10, 2}, {"W5", 10, 9}, {"W6", 10, 7},
	} {
		pl := plantest.PaperPair(t, c.name, c.hosts)
		if err := pl.Verify(); err != nil {
			t.Fatal(err)
		}
		if pl.SavingPercent < c.min || pl.SavingPercent >= 50 {
			t.Errorf("%s on %d hosts: saving %.2f %%, want at least %v %%", c.name, c.hosts, pl.SavingPercent, c.min)
		}
	}
}
