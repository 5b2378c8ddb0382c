package traces

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files saved with a UTF-8 byte order mark read like the same files without
// it: simulation and packer workload files, topologies and traces, plain or
// gzipped.
func TestReadersAcceptBOM(t *testing.T) {
	const bom = "\ufeff"
	dir := t.TempDir()
	simFile := filepath.Join(dir, "s.json")
	if err := os.WriteFile(simFile, []byte(bom+`{"jobs": [{"name": "a", "maps": {"count": 2, "mean": 5}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if tasks, _, _, err := OpenForSimulation(simFile, nil); err != nil || len(tasks.Jobs) != 1 {
		t.Errorf("simulation workload with a BOM: %v", err)
	}
	modelFile := filepath.Join(dir, "m.json")
	if err := os.WriteFile(modelFile, []byte(bom+`{"jobs": [{"name": "a", "model": {"a": 10, "b": -1}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, jobs, _, err := OpenForSimulation(modelFile, nil); err != nil || jobs == nil || len(jobs.Jobs) != 1 {
		t.Errorf("packer workload with a BOM: %v", err)
	}
	topo := bom + `{"name": "<root>", "children": [{"name": "rack1", "children": [{"name": "h1"}, {"name": "h2"}]}]}`
	if top, err := ReadTopology(strings.NewReader(topo), "t.json"); err != nil || top.Hosts() != 2 {
		t.Errorf("topology with a BOM: %v", err)
	}
	// A SWIM line whose job ID would otherwise start with the mark.
	swim := bom + "job0\t0\t10\t1000000\t0\t0\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(swim))
	_ = zw.Close()
	for what, in := range map[string][]byte{"plain": []byte(swim), "gzipped": gz.Bytes()} {
		im, err := ReadSWIM(bytes.NewReader(in), "t.tsv", nil)
		if err != nil {
			t.Errorf("%s SWIM trace with a BOM: %v", what, err)
			continue
		}
		if got := im.Workload.Jobs[0].Name; got != "job0" {
			t.Errorf("%s SWIM trace with a BOM: job named %q, want job0", what, got)
		}
	}
}
