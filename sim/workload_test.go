package sim

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

func TestParseWorkloadFile(t *testing.T) {
	data, err := os.ReadFile("testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	w, err := ParseWorkload(data, "small.json")
	if err != nil {
		t.Fatal(err)
	}
	// 24 + 2 + 4 + 1 + 2 + 3 + 40 tasks.
	if len(w.Jobs) != 5 || w.Tasks() != 76 || w.Cluster.Nodes != 8 || w.Jobs[1].Priority != 1 {
		t.Errorf("parsed %d jobs, %d tasks, %d nodes, priority %d; want 5, 76, 8, 1", len(w.Jobs), w.Tasks(), w.Cluster.Nodes, w.Jobs[1].Priority)
	}
}

// TestParseWorkloadErrors: every kind of bad input the issue lists gives one
// line naming the file and the field and value.
func TestParseWorkloadErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"jobs": [{"name": "a", "arrival": -1, "maps": {"count": 1, "mean": 1}}]}`, `jobs[0] ("a"): arrival must be finite, not negative and at most 1e+09 s, got -1`},
		{`{"cluster": {"map_slots": 0}, "jobs": [{"maps": {"count": 1, "mean": 1}}]}`, `cluster.map_slots must be at least 1, got 0`},
		{`{"cluster": {"reduce_slots": 0}, "jobs": [{"maps": {"count": 1, "mean": 1}}]}`, `cluster.reduce_slots must be at least 1, got 0`},
		{`{"jobs": [{"name": "a", "maps": {"count": 3}}]}`, `jobs[0] ("a"): maps.mean must be positive and at most 1e+09 s for 3 tasks, got 0`},
		{`{"jobs": [{"name": "a", "maps": {"durations": [1, 0]}}]}`, `maps.durations[1] must be positive and at most 1e+09 s, got 0`},
		{`{"jobs": [{"name": "a"}]}`, `jobs[0] ("a"): maps and reduces: the job has no tasks`},
		{`{"jobs": [{"name": "a", "maps": {"count": 1, "mean": 1}, "shuffle": -2}]}`, `shuffle must be finite, not negative and at most 1e+09 s, got -2`},
		{`{"jobs": []}`, `jobs: the workload has no jobs`},
		{`{"cluster": {"nodes": 2000000}, "jobs": [{"maps": {"count": 1, "mean": 1}}]}`, `cluster.nodes must be between 1 and 1000000, got 2000000`},
		{`{"cluster": {"map_slots": 40000}, "jobs": [{"maps": {"count": 1, "mean": 1}}]}`, `cluster.map_slots must be between 1 and 1000, got 40000`},
		{`{"jobs": [{"maps": {"count": 90000000, "mean": 1}}, {"maps": {"count": 20000000, "mean": 1}}]}`, `jobs[1]: the workload has more than 100000000 tasks`},
		{`{"jobs": [{"arrival": 2e9, "maps": {"count": 1, "mean": 1}}]}`, `arrival must be finite, not negative and at most 1e+09 s, got 2e+09`},
		{`{"cluster": {"nodes": 2}, "jobs": [{"maps": {"count": 1, "mean": 1}, "blocks": [[5]]}]}`, `blocks[0][0]: node 5 outside 0..1`},
		{`{"cluster": {"nodes": 2, "replication": 3}, "jobs": [{"maps": {"count": 1, "mean": 1}}]}`, `cluster.replication must be between 1 and nodes (2) and at most 10, got 3`},
		{`{"jobs": [{"maps": {"count": "x"}}]}`, `field jobs.maps.count at line 1, column 33`},
		{"{\n\"jobs\": [,]}", `malformed JSON at line 2, column 11`},
		{`{"jobs": [{"name": "a", "model": {"a": 1, "b": -1}}]}`, `packer workload file`},
	} {
		_, err := ParseWorkload([]byte(c.json), "w.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "w.json: ") {
			t.Errorf("%s: error %v, want one naming w.json and containing %q", c.json, err, c.want)
			continue
		}
		var in *model.InputError
		if !errors.As(err, &in) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q is not a one-line *model.InputError", c.json, err)
		}
	}
}

// FuzzParseWorkload: no input makes the reader panic, and whatever it
// accepts, Run accepts too and simulates to the end.
func FuzzParseWorkload(f *testing.F) {
	data, err := os.ReadFile("testdata/small.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"jobs": [{"maps": {"count": 1, "mean": 1}}]}`))
	f.Add([]byte(`{"cluster": {"nodes": 3, "racks": 3}, "jobs": [{"maps": {"durations": [1, 2]}, "reduces": {"count": 1, "mean": 3}, "blocks": [[0, 1], [2]]}]}`))
	f.Add([]byte(`{"jobs": [{"arrival": 1e9, "maps": {"count": 1, "mean": 1e-300}}]}`))
	f.Add([]byte(`{"jobs": [{"name": "a", "model": {"a": 1, "b": -1}}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkload(data, "fuzz.json")
		if err != nil {
			var in *model.InputError
			if !errors.As(err, &in) {
				t.Fatalf("error %v is not an InputError", err)
			}
			return
		}
		if w.Tasks() > 2000 || w.Cluster.Nodes > 500 {
			return // valid but too big to simulate in a fuzz iteration
		}
		if _, err := Run(w, &Fair{Delay: 2}, nil); err != nil {
			t.Fatalf("accepted workload does not run: %v", err)
		}
	})
}
