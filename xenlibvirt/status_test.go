package xenlibvirt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseStatus(t *testing.T) {
	for _, c := range []struct {
		console string
		want    JobStatus
		ok      bool
	}{
		{"boot\r\npacker-status: exit 0 seconds 12.34\r\n", JobStatus{0, 12.34}, true},
		{"packer-status: exit 3 seconds 0", JobStatus{3, 0}, true}, // no newline at the end
		// The last well-formed line counts: a job may print one itself.
		{"packer-status: exit 0 seconds 1\npacker-status: exit 7 seconds 2\n", JobStatus{7, 2}, true},
		{"packer-status: exit 9 seconds 2\npacker-status: garbled\n", JobStatus{9, 2}, true},
		// After other output on the line (a kernel message with no newline).
		{"[  3.1] random: crng initpacker-status: exit 1 seconds 4.5\n", JobStatus{1, 4.5}, true},
		{"", JobStatus{}, false},
		{"packer-status: exit 256 seconds 1\n", JobStatus{}, false},
		{"packer-status: exit -1 seconds 1\n", JobStatus{}, false},
		{"packer-status: exit 01 seconds 1\n", JobStatus{}, false},
		{"packer-status: exit 0 seconds -1\n", JobStatus{}, false},
		{"packer-status: exit 0 seconds NaN\n", JobStatus{}, false},
		{"packer-status: exit 0 seconds 1e12\n", JobStatus{}, false},
		{"packer-status: exit 0 seconds 1 extra\n", JobStatus{}, false},
		{"packer-status: exit 0\n", JobStatus{}, false},
	} {
		got, ok := ParseStatus([]byte(c.console))
		if got != c.want || ok != c.ok {
			t.Errorf("ParseStatus(%q) = %+v, %v; want %+v, %v", c.console, got, ok, c.want, c.ok)
		}
	}
}

// FuzzParseStatus: any console either gives no status or one in range that
// a line of exactly the script's form would give back.
func FuzzParseStatus(f *testing.F) {
	for _, s := range []string{"packer-status: exit 0 seconds 1.5\n", "x\rpacker-status: exit 255 seconds 0\r\n", "packer-status:", "packer-status: exit 1 seconds 2 packer-status: exit"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, console []byte) {
		st, ok := ParseStatus(console)
		if !ok {
			if st != (JobStatus{}) {
				t.Fatalf("no status, but %+v", st)
			}
			return
		}
		if st.Exit < 0 || st.Exit > 255 || !(st.Seconds >= 0 && st.Seconds <= maxStatusSeconds) {
			t.Fatalf("status out of range: %+v", st)
		}
		if !utf8.Valid(console) {
			return
		}
		i := strings.LastIndex(string(console), StatusPrefix)
		if i < 0 {
			t.Fatalf("a status %+v from a console without %q", st, StatusPrefix)
		}
	})
}

// TestStatusScan feeds a console in pieces: the status line split across
// writes, then 64 KiB of shutdown messages, which must not push it out.
func TestStatusScan(t *testing.T) {
	var s statusScan
	for _, piece := range []string{"boot\r\nrandom: crng init done\r\npacker-sta", "tus: exit 4 seconds 2.", "50\r\n"} {
		_, _ = s.Write([]byte(piece))
	}
	for i := 0; i < 1024; i++ {
		_, _ = s.Write([]byte("[  OK  ] Stopped target some-unit-with-a-long-name.target - The Long Description.\r\n"))
	}
	if st, ok := s.status(); !ok || st != (JobStatus{4, 2.5}) {
		t.Errorf("status %+v, %v; want exit 4 after 2.5 s", st, ok)
	}
	// A later line wins, even one the console never ended; a line of
	// 100 KiB without an end keeps its last bytes, where the status is.
	_, _ = s.Write([]byte(strings.Repeat("x", 100<<10) + "packer-status: exit 0 seconds 9"))
	if st, ok := s.status(); !ok || st != (JobStatus{0, 9}) {
		t.Errorf("status %+v, %v; want exit 0 after 9 s", st, ok)
	}
	var none statusScan
	_, _ = none.Write([]byte("no status here\n"))
	if _, ok := none.status(); ok {
		t.Error("a status from a console without one")
	}
}
