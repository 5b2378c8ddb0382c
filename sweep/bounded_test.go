package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// TestReadersAreBounded: a sweep file, a workload it names and a shard file
// are read up to a limit, so /dev/zero or a huge file is one error naming
// the file and the limit, not an out-of-memory crash (the sweep file was
// read whole: 3 GB of a sparse file, or /dev/zero for ever).
func TestReadersAreBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 3<<30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	for _, path := range []string{big, "/dev/zero"} {
		_, err := Load(path, All)
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != path || !strings.Contains(err.Error(), "too large: a sweep file may be at most 1 MiB") {
			t.Errorf("Load(%s): %v, want an InputError naming it and the limit", path, err)
		}
	}

	// A workload the sweep names is hashed within the workload files' limit.
	s := &Sweep{paths: map[string]string{}, sizes: map[string]int64{}}
	if got := s.find(dir, "/dev/zero"); got != "built-in /dev/zero" {
		t.Errorf("find(/dev/zero) = %q, want it left to the workload reader", got)
	}

	res := filepath.Join(dir, "res")
	if err := os.Mkdir(res, 0o755); err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(res, FileName(Shard{0, 1}))
	if err := os.WriteFile(shard, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(shard, MaxShardFileBytes+1); err != nil {
		t.Fatal(err)
	}
	_, _, err := Merge(res)
	var in *model.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), shard+": too large: a shard file may be at most 256 MiB") {
		t.Errorf("Merge of a too large shard file: %v", err)
	}
}

// TestMergeOfNoShards: a directory without shard files is ErrNoShards,
// which the command reports as bad input.
func TestMergeOfNoShards(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Merge(dir); !errors.Is(err, ErrNoShards) {
		t.Errorf("Merge(empty dir): %v, want ErrNoShards", err)
	}
}
