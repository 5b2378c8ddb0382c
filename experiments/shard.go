package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
)

// ShardFile is one shard's share of a run of experiments, as `packer
// experiment run --shard i/N --out DIR` writes it: the whole selection, so
// that a merge can tell what is missing, and the results of the experiments
// this shard owns (those at positions p of the selection with p mod N = i).
type ShardFile struct {
	Selection []string  `json:"selection"`
	Seeds     int       `json:"seeds"`
	Shard     int       `json:"shard"`
	Shards    int       `json:"shards"`
	Results   []*Result `json:"results"`
}

// ShardFileName is the name of shard i of n's file in a results directory.
func ShardFileName(i, n int) string { return fmt.Sprintf("experiments-%d-of-%d.json", i, n) }

// Owned is the selection the names stand for (all experiments for none or
// "all") and the experiments in it that shard i of n runs.
func Owned(names []string, i, n int) (selection, owned []string, err error) {
	chosen, err := Select(names)
	if err != nil {
		return nil, nil, err
	}
	for p, e := range chosen {
		selection = append(selection, e.Name)
		if p%n == i {
			owned = append(owned, e.Name)
		}
	}
	return selection, owned, nil
}

// ErrIncomplete is returned by Merge when a shard's results are missing.
var ErrIncomplete = errors.New("experiments: shards missing")

// Merge joins the shards' files into the results of the whole run, in the
// selection's order: the same results the run without shards gives. The
// files must be of one run (selection, seeds and shard count); a shard with
// no file, or a file without all its experiments, is named (ErrIncomplete).
func Merge(files []ShardFile) ([]*Result, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no shard files", ErrIncomplete)
	}
	first := files[0]
	byName := map[string]*Result{}
	seen := make([]bool, first.Shards)
	for _, f := range files {
		if !slices.Equal(f.Selection, first.Selection) || f.Seeds != first.Seeds || f.Shards != first.Shards {
			return nil, fmt.Errorf("experiments: shard %d of %d is of another run (its selection, seeds or shard count differ from shard %d's)",
				f.Shard, f.Shards, first.Shard)
		}
		if f.Shard < 0 || f.Shard >= f.Shards || seen[f.Shard] {
			return nil, fmt.Errorf("experiments: shard %d of %d: out of range or given twice", f.Shard, f.Shards)
		}
		seen[f.Shard] = true
		for _, r := range f.Results {
			byName[r.Name] = r
		}
	}
	var missing []string
	out := make([]*Result, 0, len(first.Selection))
	for p, name := range first.Selection {
		r, ok := byName[name]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s (shard %d)", name, p%first.Shards))
			continue
		}
		out = append(out, r)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %d of %d shards' files, no results for %s; re-run those shards",
			ErrIncomplete, len(files), first.Shards, strings.Join(missing, ", "))
	}
	return out, nil
}

// MaxShardFileBytes bounds one shard's file as ReadShards reads it: a full
// run's results are about 100 KiB.
const MaxShardFileBytes = 64 << 20

// WriteShard writes f into dir (made if missing) as ShardFileName names it,
// whole or not at all, and returns its path.
func WriteShard(dir string, f ShardFile) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, ShardFileName(f.Shard, f.Shards))
	return path, safefile.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadShards reads every shard file in dir, each bounded and decoded
// strictly; an error names the file.
func ReadShards(dir string) ([]ShardFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "experiments-*-of-*.json"))
	if err != nil {
		return nil, err
	}
	files := make([]ShardFile, len(paths))
	for i, path := range paths {
		data, err := model.ReadFileLimit(path, MaxShardFileBytes, "shard results")
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&files[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if f := files[i]; f.Shards < 1 || f.Shard < 0 || f.Shard >= f.Shards {
			return nil, fmt.Errorf("%s: shard %d of %d is no shard", path, f.Shard, f.Shards)
		}
	}
	return files, nil
}
