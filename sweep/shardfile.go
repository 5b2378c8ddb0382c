package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
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
	// whole is how many bytes from the start hold the header and the
	// lines kept, each with its newline: where the next line goes.
	whole int64
	// unended is the index of a last line kept without its newline (a
	// write cut short just before it), or -1.
	unended int
}

// MaxShardFileBytes bounds a shard file: a result line is a few hundred
// bytes, so 256 MiB holds about a million points' results.
const MaxShardFileBytes = 256 << 20

// ErrBadShards is a results directory whose shard files merge cannot
// join: not shard files, or shards of different sweeps or counts.
var ErrBadShards = errors.New("not one sweep's shard files")

// readShardFile reads a shard file, keeping the lines up to the first one
// that is not a result of this shard (a file cut short by a copy, or by a
// kill in the middle of a line's write).
func readShardFile(path string) (*shardFile, error) {
	data, err := model.ReadFileLimit(path, MaxShardFileBytes, "a shard file")
	if err != nil {
		return nil, err
	}
	f := &shardFile{path: path, lines: map[int][]byte{}, unended: -1}
	first, rest, ended := cutLine(data)
	if json.Unmarshal(first, &f.header) != nil || f.header.Shards < 1 || f.header.Points < 0 || f.header.Shard < 0 || f.header.Shard >= f.header.Shards {
		return nil, fmt.Errorf("%w: %s: line 1 is not a shard file's header", ErrBadShards, path)
	}
	if ended {
		f.whole = int64(len(first) + 1)
	}
	s := Shard{f.header.Shard, f.header.Shards}
	for n := 2; len(rest) > 0 && ended; n++ {
		var raw []byte
		raw, rest, ended = cutLine(rest)
		var l Line
		if err := json.Unmarshal(raw, &l); err != nil || !s.Owns(l.Index) || l.Index >= f.header.Points || f.lines[l.Index] != nil {
			f.bad = fmt.Sprintf("line %d unreadable", n)
			break
		}
		f.lines[l.Index] = slices.Clone(raw)
		if ended {
			f.whole += int64(len(raw) + 1)
		} else {
			f.unended = l.Index
		}
	}
	return f, nil
}

// cutLine splits data at its first newline; ended says there was one.
func cutLine(data []byte) (line, rest []byte, ended bool) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:], true
	}
	return data, nil, false
}

// ShardWriter keeps a shard's file: each point's line is appended to it
// with its newline and synced to disk before the next point starts, so
// that a shard killed half-way leaves the points it finished. A kill in
// the middle of a write leaves at most the last line cut short, which
// readShardFile stops before and the next OpenShard cuts off.
type ShardWriter struct {
	path  string
	file  *os.File
	lines map[int][]byte
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
	w := &ShardWriter{path: filepath.Join(dir, FileName(sh)), lines: map[int][]byte{}}
	var mine *shardFile
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
			mine = f
		}
	}
	if err := w.open(h, mine); err != nil {
		return nil, err
	}
	return w, nil
}

// open opens the shard's file for appending. A file the shard left is cut
// after its last whole line (a line a kill cut short is dropped, to be
// run again); without one, the header is written first, whole (safefile),
// so that a shard that started says so even if it dies at once.
func (w *ShardWriter) open(h Header, old *shardFile) error {
	if old != nil && old.whole > 0 {
		w.lines = old.lines
		if old.unended >= 0 {
			delete(w.lines, old.unended)
		}
		if err := os.Truncate(w.path, old.whole); err != nil {
			return err
		}
	} else {
		head, _ := json.Marshal(h)
		if err := safefile.WriteFile(w.path, append(head, '\n'), 0o644); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	w.file = f
	return nil
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

// Add appends a point's line to the file, in one write, and syncs it.
func (w *ShardWriter) Add(index int, line []byte) error {
	if _, err := w.file.Write(append(slices.Clip(line), '\n')); err != nil {
		return err
	}
	if err := w.file.Sync(); err != nil {
		return err
	}
	w.lines[index] = line
	return nil
}

// Close closes the file.
func (w *ShardWriter) Close() error { return w.file.Close() }

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
			return nil, nil, fmt.Errorf("%w: %s: %s (sweep %s, digest %s, %d shards) and %s (sweep %s, digest %s, %d shards) are not of one run: merge one sweep's shards of one count",
				ErrBadShards, dir, filepath.Base(first.path), fh.Sweep, fh.Digest, fh.Shards, filepath.Base(path), h.Sweep, h.Digest, h.Shards)
		}
		if filepath.Base(path) != FileName(Shard{h.Shard, h.Shards}) {
			return nil, nil, fmt.Errorf("%w: %s: its header says shard %d of %d", ErrBadShards, path, h.Shard, h.Shards)
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
