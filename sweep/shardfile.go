package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/internal/safefile"
)

// Header is a shard file's first line: which sweep and which shard the
// lines after it are.
type Header struct {
	Sweep  string `json:"sweep"`
	Digest string `json:"digest"`
	Run    string `json:"run"`
	Shard  int    `json:"shard"`
	Shards int    `json:"shards"`
	Points int    `json:"points"`
	// File is the sweep file as the shard was given it, for messages.
	File string `json:"file"`
}

// FileName is shard s's file in a results directory.
func FileName(s Shard) string { return fmt.Sprintf("shard-%d-of-%d.jsonl", s.Index, s.Count) }

var fileNamePattern = regexp.MustCompile(`^shard-(\d+)-of-(\d+)\.jsonl$`)

// shardFile is a shard file as read: its header and its lines by index.
type shardFile struct {
	path   string
	header Header
	lines  map[int][]byte
	bad    string // why a line could not be read, if one could not
}

// readShardFile reads a shard file, keeping the lines up to the first one
// that is not a result of this shard (a file cut short by a copy).
func readShardFile(path string) (*shardFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	f := &shardFile{path: path, lines: map[int][]byte{}}
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &f.header) != nil || f.header.Shards < 1 || f.header.Points < 0 {
		return nil, fmt.Errorf("%s: line 1 is not a shard file's header", path)
	}
	s := Shard{f.header.Shard, f.header.Shards}
	for n := 2; sc.Scan(); n++ {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || !s.Owns(l.Index) || l.Index >= f.header.Points || f.lines[l.Index] != nil {
			f.bad = fmt.Sprintf("line %d unreadable", n)
			break
		}
		f.lines[l.Index] = slices.Clone(sc.Bytes())
	}
	if sc.Err() != nil && f.bad == "" {
		f.bad = sc.Err().Error()
	}
	return f, nil
}

// ShardWriter keeps a shard's file: after every point the whole file is
// written anew beside it and renamed over it (safefile), so that the file
// always holds whole lines, and a shard killed half-way leaves the points
// it finished.
type ShardWriter struct {
	path   string
	header Header
	lines  map[int][]byte
}

// ErrDirInUse is a results directory that holds shard files merge could
// not join with the new one's.
var ErrDirInUse = errors.New("results directory in use")

// OpenShard starts shard sh of s in dir. A file the shard left before,
// of the same sweep, is kept: its points are done (Done), so a rerun goes
// on where it stopped. It refuses a directory that holds shard files of
// another sweep, or of this one cut into another number of shards, since
// merge could not join them.
func OpenShard(dir string, s *Sweep, sh Shard) (*ShardWriter, error) {
	h := Header{Sweep: s.Name, Digest: s.Digest, Run: s.Run, Shard: sh.Index, Shards: sh.Count, Points: len(s.points), File: s.Path}
	others, err := shardFiles(dir)
	if err != nil {
		return nil, err
	}
	w := &ShardWriter{path: filepath.Join(dir, FileName(sh)), header: h, lines: map[int][]byte{}}
	for _, path := range others {
		f, err := readShardFile(path)
		if err != nil {
			return nil, err
		}
		switch {
		case f.header.Digest != h.Digest:
			return nil, fmt.Errorf("%w: %s holds %s, a shard of another sweep (%s, digest %s; this one is %s): give another directory or remove it",
				ErrDirInUse, dir, filepath.Base(path), f.header.Sweep, f.header.Digest, h.Digest)
		case f.header.Shards != h.Shards:
			return nil, fmt.Errorf("%w: %s holds %s, this sweep cut into %d shards, not %d: use the same count (rerunning one shard: --shard %d/%d) or another directory",
				ErrDirInUse, dir, filepath.Base(path), f.header.Shards, h.Shards, sh.Index, f.header.Shards)
		case path == w.path:
			w.lines = f.lines
		}
	}
	return w, nil
}

// shardFiles lists dir's shard files, which must be a directory.
func shardFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if fileNamePattern.MatchString(e.Name()) && e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// Done says whether the point of that index is in the file already.
func (w *ShardWriter) Done(index int) bool { return w.lines[index] != nil }

// Path is the shard's file.
func (w *ShardWriter) Path() string { return w.path }

// Add records a point's line and rewrites the file.
func (w *ShardWriter) Add(index int, line []byte) error {
	w.lines[index] = line
	return w.Flush()
}

// Flush writes the file: the header, then the lines in index order.
func (w *ShardWriter) Flush() error {
	h, _ := json.Marshal(w.header)
	var b bytes.Buffer
	b.Write(h)
	b.WriteByte('\n')
	for _, i := range sortedKeys(w.lines) {
		b.Write(w.lines[i])
		b.WriteByte('\n')
	}
	return safefile.WriteFile(w.path, b.Bytes(), 0o644)
}

func sortedKeys(m map[int][]byte) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// Gap is one shard that has not finished: its file is missing, cut
// short, or lacks points.
type Gap struct {
	Shard   Shard
	File    string // the file's path, present or not
	Missing []int  // the point indexes it lacks
	Why     string // "no file", or what is wrong with it
}

// MissingError is a merge of shards some of which have not finished. Its
// Error is one line naming each such shard and its points.
type MissingError struct {
	Dir  string
	Gaps []Gap
}

// listed is how many point indexes a message names before it counts the rest.
const listed = 8

func (e *MissingError) Error() string {
	parts := make([]string, len(e.Gaps))
	for i, g := range e.Gaps {
		idx := make([]string, 0, listed)
		for _, m := range g.Missing[:min(listed, len(g.Missing))] {
			idx = append(idx, strconv.Itoa(m))
		}
		more := ""
		if len(g.Missing) > listed {
			more = fmt.Sprintf(" and %d more", len(g.Missing)-listed)
		}
		parts[i] = fmt.Sprintf("shard %s (%s, %s) lacks %d points: %s%s", g.Shard, filepath.Base(g.File), g.Why, len(g.Missing), strings.Join(idx, ", "), more)
	}
	return fmt.Sprintf("%s: %d of %d shards not finished: %s", e.Dir, len(e.Gaps), e.Gaps[0].Shard.Count, strings.Join(parts, "; "))
}

// ErrNoShards is a merge of a directory that holds no shard file.
var ErrNoShards = errors.New("no shard files (shard-I-of-N.jsonl)")

// Merge joins the shard files in dir into the sweep's results: every
// point's line in index order, the same bytes as an unsharded run. The
// files must be of one sweep and one shard count; a shard whose file is
// missing or lacks points is a *MissingError naming it and them.
func Merge(dir string) (*Header, *Results, error) {
	paths, err := shardFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("%s: %w", dir, ErrNoShards)
	}
	files := map[int]*shardFile{}
	var first *shardFile
	for _, path := range paths {
		f, err := readShardFile(path)
		if err != nil {
			return nil, nil, err
		}
		h := f.header
		if first == nil {
			first = f
		} else if fh := first.header; h.Digest != fh.Digest || h.Shards != fh.Shards || h.Points != fh.Points || h.Run != fh.Run {
			return nil, nil, fmt.Errorf("%s: %s (sweep %s, digest %s, %d shards) and %s (sweep %s, digest %s, %d shards) are not of one run: merge one sweep's shards of one count",
				dir, filepath.Base(first.path), fh.Sweep, fh.Digest, fh.Shards, filepath.Base(path), h.Sweep, h.Digest, h.Shards)
		}
		if filepath.Base(path) != FileName(Shard{h.Shard, h.Shards}) {
			return nil, nil, fmt.Errorf("%s: its header says shard %d of %d", path, h.Shard, h.Shards)
		}
		files[h.Shard] = f
	}
	h := first.header
	res := &Results{Run: h.Run}
	missing := &MissingError{Dir: dir}
	for k := range h.Shards {
		sh := Shard{k, h.Shards}
		f := files[k]
		g := Gap{Shard: sh, File: filepath.Join(dir, FileName(sh)), Why: "no file"}
		for _, i := range sh.Indexes(h.Points) {
			if f == nil || f.lines[i] == nil {
				g.Missing = append(g.Missing, i)
			}
		}
		if f != nil {
			g.Why = "cut short: " + f.bad
			if f.bad == "" {
				g.Why = "unfinished: still running, or stopped"
			}
		}
		if len(g.Missing) > 0 {
			missing.Gaps = append(missing.Gaps, g)
		}
	}
	if len(missing.Gaps) > 0 {
		return &h, nil, missing
	}
	for i := range h.Points {
		raw := files[i%h.Shards].lines[i]
		var l Line
		_ = json.Unmarshal(raw, &l) // read once already
		res.Lines, res.Raw = append(res.Lines, l), append(res.Raw, raw)
	}
	return &h, res, nil
}
