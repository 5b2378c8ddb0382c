package progress

import (
	"io"
	"strings"
	"testing"
	"time"
)

// clock is a fake clock the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newFake(terminal bool) (*Line, *strings.Builder, *clock) {
	var b strings.Builder
	c := &clock{t: time.Unix(0, 0)}
	l := New(&b)
	l.now, l.terminal, l.last = c.now, terminal, c.t
	l.every = LogEvery
	if terminal {
		l.every = TerminalEvery
	}
	return l, &b, c
}

// On a pipe: reports 0 s and 9 s are swallowed, 10 s and 20.5 s are written
// as whole lines, a forced one always; nothing to clear at the end.
func TestLineOnAPipe(t *testing.T) {
	l, b, c := newFake(false)
	var shown []bool
	for _, s := range []float64{0, 9, 10, 15, 20.5} {
		c.t = time.Unix(0, 0).Add(time.Duration(s * float64(time.Second)))
		shown = append(shown, l.Report(false, "at %g s", s))
	}
	shown = append(shown, l.Report(true, "done"))
	l.Done()
	if got, want := b.String(), "at 10 s\nat 20.5 s\ndone\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	want := []bool{false, false, true, false, true, true}
	for i := range want {
		if shown[i] != want[i] {
			t.Errorf("report %d shown %v, want %v", i, shown[i], want[i])
		}
	}
}

// On a terminal: redrawn in place every 100 ms at most, cleared by Done.
func TestLineOnATerminal(t *testing.T) {
	l, b, c := newFake(true)
	c.t = c.t.Add(50 * time.Millisecond)
	l.Report(false, "a") // too soon
	c.t = c.t.Add(60 * time.Millisecond)
	l.Report(false, "b")
	l.Done()
	if got, want := b.String(), "\r\033[Kb\r\033[K"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// A nil line is silent, so callers need no checks.
func TestNilLine(t *testing.T) {
	var l *Line
	if l.Report(true, "x") {
		t.Error("a nil line reported")
	}
	l.Done()
}

// Reader: the bytes pass through unchanged, and the line says how far
// through the file the reading is, or the bytes alone when the size is not
// known.
func TestReader(t *testing.T) {
	for _, tc := range []struct {
		size int64
		want string
	}{{8 << 20, "import: read 2 of 8 MB (25 %)\n"}, {0, "import: read 2 MB\n"}} {
		l, b, c := newFake(false)
		data := strings.Repeat("x", 2<<20)
		r := Reader(strings.NewReader(data), tc.size, l, "import")
		got, err := io.ReadAll(r) // within the first ten seconds: nothing shown
		if err != nil || string(got) != data || b.Len() != 0 {
			t.Fatalf("read %d bytes, %v; shown %q", len(got), err, b.String())
		}
		c.t = c.t.Add(LogEvery) // ten seconds on, the next read is reported
		if n, err := r.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Fatalf("read past the end: %d, %v", n, err)
		}
		if b.String() != tc.want {
			t.Errorf("size %d: reported %q, want %q", tc.size, b.String(), tc.want)
		}
	}
}
