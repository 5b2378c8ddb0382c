package model

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sparseFile makes a file of size bytes that takes no disk: a hole.
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadInputIsBounded: an endless input (/dev/zero), standard input of
// zeros and a file one byte over the limit each end in one line naming the
// file and the limit, within a second or two, having read at most
// MaxWorkloadBytes+1 bytes (the sparse file: none).
func TestReadInputIsBounded(t *testing.T) {
	for _, c := range []struct {
		path  string
		stdin io.Reader
		name  string
	}{
		{"/dev/zero", nil, "/dev/zero"},
		{"-", zeros{}, "<stdin>"},
		{sparseFile(t, MaxWorkloadBytes+1), nil, ""},
	} {
		if c.name == "" {
			c.name = c.path
		}
		start := time.Now()
		_, _, err := ReadInput(c.path, c.stdin)
		var in *InputError
		want := c.name + ": too large: a workload file may be at most 256 MiB"
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &in) || err.Error() != want {
			t.Errorf("ReadInput(%s): %v, want %q", c.name, err, want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("ReadInput(%s) took %v", c.name, d)
		}
	}
	// At the limit, a file is read: a sparse file's zeros are no workload,
	// but the refusal is the parser's, not the size's.
	if _, _, err := ReadInput(sparseFile(t, 4096), nil); err != nil {
		t.Errorf("a 4 KiB file: %v", err)
	}
}

// zeros reads as an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 10 bytes: read at a limit of 10, refused at 9, by size before reading.
	if data, err := ReadFileLimit(path, 10, "a test file"); err != nil || string(data) != "0123456789" {
		t.Errorf("limit 10: %q, %v", data, err)
	}
	if _, err := ReadFileLimit(path, 9, "a test file"); err == nil || err.Error() != path+": too large: a test file may be at most 9 bytes" {
		t.Errorf("limit 9: %v", err)
	}
	// Through a pipe the size is unknown: refused at the 10th byte read.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.Write([]byte("0123456789")); w.Close() }()
	defer r.Close()
	if _, err := ReadFileLimit("/dev/fd/"+strconv.Itoa(int(r.Fd())), 9, "a test file"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a pipe over the limit: %v", err)
	}
	if _, err := ReadFileLimit(filepath.Join(dir, "missing"), 9, "a test file"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestLimitReader(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int64
		ok    bool
	}{{"", 0, true}, {"a", 0, false}, {"abc", 3, true}, {"abcd", 3, false}, {strings.Repeat("x", 100000), 99999, false}} {
		// Read in small pieces too: the bound counts across reads.
		for _, r := range []io.Reader{LimitReader(strings.NewReader(c.in), c.limit, "a test"),
			LimitReader(io.MultiReader(strings.NewReader(c.in[:len(c.in)/2]), strings.NewReader(c.in[len(c.in)/2:])), c.limit, "a test")} {
			got, err := io.ReadAll(r)
			if c.ok && (err != nil || string(got) != c.in) || !c.ok && (!errors.Is(err, ErrTooLarge) || int64(len(got)) != c.limit) {
				t.Errorf("%d bytes, limit %d: read %d, %v", len(c.in), c.limit, len(got), err)
			}
		}
	}
	if _, err := io.ReadAll(LimitReader(bytes.NewReader(nil), 1<<30, "a trace")); err != nil {
		t.Errorf("empty: %v", err)
	}
	if err := TooLargeError(16<<30, "a trace"); err.Error() != "too large: a trace may be at most 16 GiB" {
		t.Errorf("TooLargeError: %q", err)
	}
}
