package traces

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
)

// TestDevZeroEndsQuickly: every importer, and the topology reader, refuses
// /dev/zero in one line within a second or two. Rumen used to look for the
// next record's '{' for ever; with SkipBad it still looks, a buffer at a
// time, but gives up after maxRecord bytes.
func TestDevZeroEndsQuickly(t *testing.T) {
	for _, c := range []struct {
		name string
		read func(io.Reader) error
		want string
	}{
		{"swim", func(r io.Reader) error { _, err := ReadSWIM(r, "/dev/zero", nil); return err }, "line 1: longer than"},
		{"rumen", func(r io.Reader) error { _, err := ReadRumen(r, "/dev/zero", nil); return err }, `want a JSON object, found '\x00'`},
		{"rumen, skip bad", func(r io.Reader) error {
			_, err := ReadRumen(r, "/dev/zero", &RumenSettings{SkipBad: true})
			return err
		}, "no JSON object in the 1073741824 bytes after it"},
		{"hybs", func(r io.Reader) error { _, _, err := ReadHybS(r, "/dev/zero", nil); return err }, "/dev/zero: line 1"},
		{"topology", func(r io.Reader) error { _, err := ReadTopology(r, "/dev/zero"); return err }, "topology at byte 0"},
	} {
		f, err := os.Open("/dev/zero")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = c.read(f)
		f.Close()
		if err == nil || !strings.HasPrefix(err.Error(), "/dev/zero: ") || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", c.name, d)
		}
	}
}

// TestTraceBytesAreBounded: past the limit, of the file or of its
// decompressed stream (a gzip bomb), the reading fails with ErrTooLarge
// rather than ending quietly as if the trace ended there.
func TestTraceBytesAreBounded(t *testing.T) {
	plain := bytes.Repeat([]byte("x\n"), 1000) // 2,000 bytes
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write(bytes.Repeat([]byte{'\n'}, 1<<20)) // 1 MiB of line ends in about a kilobyte
	z.Close()
	for _, c := range []struct {
		name  string
		in    []byte
		limit int64
		want  string
	}{
		{"plain, at the limit", plain, 2000, ""},
		{"plain, over", plain, 1999, "too large: a trace may be at most 1999 bytes"},
		{"gzipped, over when decompressed", gz.Bytes(), 1 << 19, "too large: a trace, decompressed, may be at most 512 KiB"},
		{"gzipped, within", gz.Bytes(), 1 << 20, ""},
	} {
		r, err := maybeGzip(bytes.NewReader(c.in), c.limit, "a trace")
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, model.ErrTooLarge) || err.Error() != c.want):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
