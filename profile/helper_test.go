//go:build linux

package profile

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the commands the tests profile: with
// PACKER_PROFILE_TESTCMD set, TestMain runs that command instead of the tests.
// This is a real process with real children, started without a shell, which
// is what the profiler must measure.
const testCmdEnv = "PACKER_PROFILE_TESTCMD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(testCmdEnv); mode != "" {
		os.Exit(testCommand(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// helperArgv is the argv that runs the test binary as command mode with args.
// The mode travels as an argument because the profiler sets the environment.
func helperArgv(mode string, args ...string) []string {
	return append([]string{os.Args[0], "-test.run=^$", "--", mode}, args...)
}

// helperEnv is the environment that turns the test binary into a command.
// helperEnv is the environment of the test commands. Under -race a test
// binary sleeps a second at exit (GORACE atexit_sleep_ms); the profiled helper
// must not, or its wall time dwarfs its CPU time.
func helperEnv() []string {
	return append(os.Environ(), testCmdEnv+"=1", "GORACE=atexit_sleep_ms=0")
}

func testCommand(_ string, args []string) int {
	// os.Args: binary -test.run=^$ -- mode args...
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "helper: want -- mode args")
		return 2
	}
	mode, args := args[1], args[2:]
	nodes, _ := strconv.Atoi(os.Getenv("PACKER_NODES"))
	if nodes < 1 {
		nodes = 1
	}
	num := func(i int) int {
		v, err := strconv.Atoi(args[i])
		if err != nil {
			panic(err)
		}
		return v
	}
	switch mode {
	case "cpu": // cpu TOTAL_MS: TOTAL_MS of CPU work divided among PACKER_NODES child processes
		return children(nodes, "spin", strconv.Itoa(num(0)/nodes))
	case "spin": // spin MS: burn MS of this process's own CPU time
		spin(time.Duration(num(0)) * time.Millisecond)
		return 0
	case "io": // io DIR TOTAL_MIB: write then read TOTAL_MIB, divided among PACKER_NODES children
		return children(nodes, "iow", args[0], strconv.Itoa(num(1)/nodes))
	case "iow": // iow DIR MIB: write MIB with O_DIRECT, fsync, read it back with O_DIRECT
		if err := directIO(args[0], num(1)); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		return 0
	case "read": // read FILE: read FILE through the page cache
		if _, err := os.ReadFile(args[0]); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		return 0
	case "fail": // fail: complain and exit 3
		fmt.Fprintln(os.Stderr, "reading input\nboom: disk on fire")
		return 3
	case "failat": // failat N: fail when run on N nodes, else burn a little CPU
		if nodes == num(0) {
			fmt.Fprintln(os.Stderr, "cannot run on", nodes, "nodes")
			return 4
		}
		spin(5 * time.Millisecond)
		return 0
	case "sleep": // sleep MS
		time.Sleep(time.Duration(num(0)) * time.Millisecond)
		return 0
	case "args": // args N WORD: exit 0 only if N equals PACKER_NODES and WORD arrived whole
		if len(args) != 2 || args[0] != os.Getenv("PACKER_NODES") || args[1] != `a b'c` {
			fmt.Fprintf(os.Stderr, "arguments %q but PACKER_NODES=%q\n", args, os.Getenv("PACKER_NODES"))
			return 1
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "helper: unknown mode", mode)
	return 2
}

// children runs n copies of this binary in mode with args and waits for all:
// a process tree whose CPU and I/O are all in its children.
func children(n int, mode string, args ...string) int {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		cmd := exec.Command(os.Args[0], helperArgv(mode, args...)[1:]...)
		cmd.Stderr = os.Stderr
		wg.Go(func() { errs[i] = cmd.Run() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper child:", err)
			return 1
		}
	}
	return 0
}

// spin burns CPU until this process has used d of it, so the work is fixed in
// CPU seconds however busy the machine is.
func spin(d time.Duration) {
	x := 1.0
	for {
		for range 20000 {
			x = x*1.0000001 + 1e-9
		}
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return
		}
		if time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= d || x < 0 {
			return
		}
	}
}

// directIO writes mib MiB to a new file in dir bypassing the page cache
// (O_DIRECT with a page-aligned buffer), fsyncs it, and reads it back the
// same way, so every byte reaches the disk both ways. On a file system
// without O_DIRECT (EINVAL) it writes through the cache, fsyncs, drops the
// file's now-clean pages with fadvise(DONTNEED) and reads it back: the same
// bytes reach the disk, by a longer way.
func directIO(dir string, mib int) error {
	err := ioFile(dir, mib, syscall.O_DIRECT)
	if errors.Is(err, syscall.EINVAL) {
		err = ioFile(dir, mib, 0)
	}
	return err
}

func ioFile(dir string, mib, direct int) error {
	const chunk = 1 << 20
	buf, err := syscall.Mmap(-1, 0, chunk, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return err
	}
	defer syscall.Munmap(buf)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	f, err := os.CreateTemp(dir, "direct-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	w, err := os.OpenFile(name, os.O_WRONLY|direct, 0)
	if err != nil {
		return err
	}
	for range mib {
		if _, err := w.Write(buf); err != nil {
			w.Close()
			return err
		}
	}
	if err := w.Sync(); err != nil {
		w.Close()
		return err
	}
	w.Close()
	rfd, err := syscall.Open(name, syscall.O_RDONLY|direct, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(rfd)
	if direct == 0 {
		const fadvDontNeed = 4
		if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, uintptr(rfd), 0, 0, fadvDontNeed, 0, 0); e != 0 {
			return e
		}
	}
	for range mib {
		if _, err := syscall.Read(rfd, buf); err != nil {
			return err
		}
	}
	return nil
}
