// Package progress reports long work on stderr the way people expect: on a
// terminal, one line redrawn in place (at most ten times a second) and
// cleared when done; on a file or pipe, a whole line at most every ten
// seconds, so a log shows the work is alive without drowning in it. Output
// that others parse never goes through it.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
)

// IsTerminal reports whether f is a terminal (a Cygwin or MSYS one too).
func IsTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && (isatty.IsTerminal(file.Fd()) || isatty.IsCygwinTerminal(file.Fd()))
}

// Line is a progress line. The zero value is unusable; make one with New. A
// nil *Line is valid and reports nothing, so callers need not check.
type Line struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	every    time.Duration
	now      func() time.Time
	last     time.Time
	drawn    bool
}

// TerminalEvery is the interval between redraws on a terminal.
const TerminalEvery = 100 * time.Millisecond

// LogEvery is the interval between lines to a file or pipe. It is a
// variable only so that a command's tests can shorten it (0: every report)
// instead of running for ten seconds; nothing else changes it.
var LogEvery = 10 * time.Second

// New reports on w: redrawn in place if w is a terminal, else a line every
// LogEvery.
func New(w io.Writer) *Line {
	l := &Line{w: w, terminal: IsTerminal(w), now: time.Now}
	l.every = LogEvery
	if l.terminal {
		l.every = TerminalEvery
	}
	l.last = l.now()
	return l
}

// Report shows the formatted state if its interval has passed since the last
// report (or force is set, for a final state worth showing); it tells
// whether it did.
func (l *Line) Report(force bool, format string, args ...any) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now()
	if !force && t.Sub(l.last) < l.every {
		return false
	}
	l.last = t
	msg := fmt.Sprintf(format, args...)
	if l.terminal {
		fmt.Fprintf(l.w, "\r\033[K%s", msg)
		l.drawn = true
	} else {
		fmt.Fprintln(l.w, msg)
	}
	return true
}

// Done clears a line drawn on a terminal; elsewhere lines stay, as a log.
func (l *Line) Done() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.terminal && l.drawn {
		fmt.Fprint(l.w, "\r\033[K")
		l.drawn = false
	}
}

// NewTerminal is New for a terminal only: on anything else it returns nil,
// which reports nothing, for work short enough that a log needs no sign of
// life.
func NewTerminal(w io.Writer) *Line {
	if !IsTerminal(w) {
		return nil
	}
	return New(w)
}

// Reader passes r's bytes on and reports on l how far through size bytes
// the reading is ("LABEL: read 120 of 800 MB (15 %)"): an importer that
// reads its input once is as far through its work as through its file.
// size ≤ 0 (a pipe) reports the bytes alone.
func Reader(r io.Reader, size int64, l *Line, label string) io.Reader {
	return &reader{r: r, size: size, l: l, label: label}
}

type reader struct {
	r     io.Reader
	n     int64
	size  int64
	l     *Line
	label string
}

func (p *reader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.size > 0 {
		p.l.Report(false, "%s: read %d of %d MB (%d %%)", p.label, p.n>>20, p.size>>20, 100*p.n/p.size)
	} else {
		p.l.Report(false, "%s: read %d MB", p.label, p.n>>20)
	}
	return n, err
}
