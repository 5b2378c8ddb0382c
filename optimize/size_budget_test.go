package optimize

import (
	"testing"
	"time"
)

// TestSizeBudgetNeverOverrun: however many plans the upward search must
// make past the shared ones, the time limits Size gives its plans add up
// to at most the budget (and a microsecond a plan, the least any gets:
// a limit of 0 would be none), and every plan it must make gets a limit.
func TestSizeBudgetNeverOverrun(t *testing.T) {
	for _, budget := range []time.Duration{time.Second, 15 * time.Second, time.Hour} {
		z := &sizer{set: SizeSettings{Method: MethodSwarm, Budget: budget}}
		var sum time.Duration
		for z.paid = 0; z.paid < 80; z.paid++ {
			s, ok := z.settings(true)
			if !ok || s.TimeLimit <= 0 {
				t.Fatalf("budget %v, plan %d: time limit %v, made %v", budget, z.paid, s.TimeLimit, ok)
			}
			sum += s.TimeLimit
		}
		if sum > budget+80*time.Microsecond {
			t.Errorf("budget %v: 80 plans were given %v in all", budget, sum)
		}
	}
}
