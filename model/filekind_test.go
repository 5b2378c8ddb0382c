package model

import (
	"errors"
	"testing"
)

func TestSniffFile(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want FileKind
	}{
		{`{"version": 1, "jobs": [{"name": "a", "model": {"a": 1, "b": 0}}], "makespan": 5, "phases": []}`, FilePlan},
		{`{"name": "w", "jobs": [{"name": "a", "model": {"a": 1, "b": 0}}]}`, FileWorkload},
		{"\ufeff" + `{"name": "w", "jobs": [{"name": "a", "model": {"a": 1, "b": 0}}]}`, FileWorkload},
		{`{"cluster": {}, "jobs": [{"name": "a", "maps": {"count": 1, "mean": 2}}]}`, FileSimWorkload},
		{`{"jobs": [{"name": "a", "reduces": {"count": 1, "mean": 2}}]}`, FileSimWorkload},
		{`{"seed": 1, "results": [{"policy": "fifo"}]}`, FileSimResults},
		{`{"policies": [{"policy": "fifo"}]}`, FileSimResults},
		{`[{"policy": "fifo"}]`, FileSimResults},
		{`{"image": "x.qcow2", "hosts": [{"name": "h", "uri": "test:///default"}]}`, FileInventory},
		{`{"jobs": []}`, FileUnknown},
		{`[1, 2]`, FileUnknown},
		{`not json`, FileUnknown},
	} {
		if got := SniffFile([]byte(tc.doc)); got != tc.want {
			t.Errorf("SniffFile(%s) = %q, want %q", tc.doc, got, tc.want)
		}
	}
}

func TestParseWorkloadRefusesAPlanDocument(t *testing.T) {
	doc := `{"version": 1, "id": "w-1", "jobs": [{"name": "a", "model": {"a": 1, "b": 0}}], "makespan": 1, "phases": []}`
	_, err := ParseWorkload([]byte(doc), "p.json")
	var wrong *WrongFileError
	if !errors.As(err, &wrong) || wrong.Got != FilePlan || wrong.Want != FileWorkload {
		t.Fatalf("plan document read as a workload: got %v", err)
	}
	if want := "p.json: a plan document (from packer plan --output), not a packer workload file (job models)"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	// Unknown shapes are left to the decoder, which names what is wrong.
	if err := WrongFile([]byte(`{"x": 1}`), FileWorkload); err != nil {
		t.Errorf("unknown shape: %v", err)
	}
}
