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

// Intervals between reports: a terminal redraw, and a line to a file or pipe.
const (
	TerminalEvery = 100 * time.Millisecond
	LogEvery      = 10 * time.Second
)

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
