package traces

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/packer-sched/packer/model"
)

func TestOpenForSimulationFieldTypos(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ doc, want string }{
		{`{"cluster": {"nodes": 4, "reduce_slot": 3}, "jobs": [{"name": "a", "maps": {"count": 2, "mean": 5}}]}`,
			`cluster: unknown field "reduce_slot" (did you mean "reduce_slots"?)`},
		{`{"jobs": [{"name": "a", "maps": {"count": 2, "mean": 5}}, {"name": "b", "arival": 3, "maps": {"count": 1, "mean": 5}}]}`,
			`jobs[1]: unknown field "arival" (did you mean "arrival"?)`},
		{`{"jobs": [{"name": "a", "maps": {"count": 2, "mean": 5, "durration": [1, 2]}}]}`,
			`jobs[0].maps: unknown field "durration" (did you mean "durations"?)`},
		// Named before the check that the missing mean would fail.
		{`{"jobs": [{"name": "a", "maps": {"count": 2, "maen": 5}}]}`,
			`jobs[0].maps: unknown field "maen" (did you mean "mean"?)`},
	} {
		path := filepath.Join(dir, "s.json")
		if err := os.WriteFile(path, []byte(tc.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := OpenForSimulation(path, nil)
		if want := path + ": invalid simulation workload: " + tc.want; err == nil || err.Error() != want || !errors.Is(err, model.ErrFieldTypo) {
			t.Errorf("%s:\n got %v\nwant %s", tc.doc, err, want)
		}
	}
	// Other extra fields stay allowed.
	path := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(path, []byte(`{"source": "x", "jobs": [{"name": "a", "queue": "q", "maps": {"count": 2, "mean": 5}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := OpenForSimulation(path, nil); err != nil {
		t.Errorf("extra fields: %v", err)
	}
}
