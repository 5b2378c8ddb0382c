//go:build linux

package main

import (
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/packer-sched/packer/model"
)

// profileOpenPTY opens a pseudo-terminal pair with plain syscalls: the master to
// read what was written, the slave to write to as if it were a terminal.
func profileOpenPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Fatalf("unlock pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Fatalf("pty number: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// With stderr a terminal, packer profile shows progress there, one line per
// run overwritten in place, and stdout (the JSON profile here) stays clean.
func TestProfileProgressOnTerminal(t *testing.T) {
	t.Setenv(profileHelperEnv, "1")
	master, slave := profileOpenPTY(t)
	var out strings.Builder
	code := run(append([]string{"packer", "profile", "--job", "p", "--nodes", "1,2,4", "--format", "json"},
		profileHelperCommand("divide", "40")...), strings.NewReader(""), &out, slave)
	slave.Close()
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	tty, _ := io.ReadAll(master) // ends with EIO once the slave is closed
	got := string(tty)
	// The times themselves depend on how fast the runs went on this machine;
	// only their form is fixed.
	for _, want := range []string{`\rrun 1 of 3 \(1 nodes, repeat 1\), elapsed \d+:\d\d, about \d+:\d\d left`,
		`\rrun 3 of 3 \(4 nodes, repeat 1\), elapsed \d+:\d\d, about \d+:\d\d left`} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("terminal shows %q, lacks %s", got, want)
		}
	}
	var w model.Workload
	if err := json.Unmarshal([]byte(out.String()), &w); err != nil || len(w.Jobs) != 1 {
		t.Errorf("stdout is not the profile alone: %v\n%s", err, out.String())
	}
}

// With stderr a terminal, packer experiment run shows how many of its runs
// (experiments × seeds) are done; stdout keeps only the results.
func TestExperimentProgressOnTerminal(t *testing.T) {
	master, slave := profileOpenPTY(t)
	var out strings.Builder
	code := run([]string{"packer", "experiment", "run", "dp-shares", "--seeds", "2"}, strings.NewReader(""), &out, slave)
	slave.Close()
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	tty, _ := io.ReadAll(master)
	if want := regexp.MustCompile(`\r\x1b\[Kexperiment: 2 of 2 runs done \(last: dp-shares\)`); !want.Match(tty) {
		t.Errorf("terminal shows %q, lacks %s", tty, want)
	}
	if strings.Contains(out.String(), "runs done") {
		t.Errorf("progress reached stdout:\n%s", out.String())
	}
}
