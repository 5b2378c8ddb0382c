package sim

import "testing"

// CompareEngines is compareEngines for the tests of package sim_test, which
// may import what imports sim (the trace importers).
func CompareEngines(t *testing.T, label string, w *Workload, set *Settings) {
	t.Helper()
	compareEngines(t, label, w, set, builtinPolicies(t))
}

// CompareEnginesFor is compareEngines for the given policies.
func CompareEnginesFor(t *testing.T, label string, w *Workload, set *Settings, ps ...Policy) {
	t.Helper()
	compareEngines(t, label, w, set, ps)
}
