package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalRemovesUnfinishedOutputs runs packer (this test binary as
// packer) on a simulation of 2 million map tasks with --trace, which takes
// seconds, and stops it with SIGINT and with SIGTERM, once as soon as the
// trace's temporary file appears and once when it holds a megabyte: each
// time packer must exit with 128 + the signal's number (130, 143), say so in
// one line, and leave neither the temporary file nor a trace.
func TestSignalRemovesUnfinishedOutputs(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// 2 jobs × 1,000,000 maps of 10 s on 50 nodes: about 2 s and 130 MB of
	// trace when run to the end.
	workload := `{"name": "big", "cluster": {"nodes": 50}, "jobs": [
		{"name": "a", "arrival": 0, "maps": {"count": 1000000, "mean": 10}, "reduces": {"count": 1, "mean": 1}},
		{"name": "b", "arrival": 5, "maps": {"count": 1000000, "mean": 10}, "reduces": {"count": 1, "mean": 1}}]}`
	if err := os.WriteFile(filepath.Join(dir, "big.json"), []byte(workload), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig     syscall.Signal
		atBytes int64 // send the signal once the temporary file holds this much
		name    string
	}{{syscall.SIGINT, 0, "SIGINT"}, {syscall.SIGTERM, 1 << 20, "SIGTERM"}, {syscall.SIGINT, 1 << 20, "SIGINT"}} {
		cmd := exec.Command(self, "simulate", "-w", "big.json", "-p", "fifo", "--trace", "t.csv")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PACKER_RUN_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		if !waitForTemp(dir, c.atBytes, exited) {
			<-exited
			t.Fatalf("%s at %d bytes: packer ended (exit %d) before the trace's temporary file held them; stderr %q",
				c.name, c.atBytes, cmd.ProcessState.ExitCode(), stderr.String())
		}
		cmd.Process.Signal(c.sig)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%s: packer still running 20 s after the signal", c.name)
		}
		if code := cmd.ProcessState.ExitCode(); code != 128+int(c.sig) {
			t.Errorf("%s at %d bytes: exit %d, want %d; stderr %q", c.name, c.atBytes, code, 128+int(c.sig), stderr.String())
		}
		if want := "packer: stopped by " + c.name + "; unfinished outputs removed\n"; !strings.HasSuffix(stderr.String(), want) {
			t.Errorf("%s: stderr %q, want it to end in %q", c.name, stderr.String(), want)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"big.json"}) {
			t.Errorf("%s at %d bytes: the directory holds %q, want only big.json", c.name, c.atBytes, names)
		}
	}
}

// waitForTemp waits until a temporary file of the trace exists in dir with
// more than size bytes, and reports whether it did before packer exited.
func waitForTemp(dir string, size int64, exited <-chan struct{}) bool {
	for {
		temps, _ := filepath.Glob(filepath.Join(dir, ".t.csv.tmp-*"))
		for _, tmp := range temps {
			if st, err := os.Stat(tmp); err == nil && st.Size() > size {
				return true
			}
		}
		select {
		case <-exited:
			return false
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// TestOwnSignalsAreTheCommandsThatCatchThem: the commands left their own
// signal handling are exactly those whose files (cmd.go, cmd_*.go) register
// for signals (signal.NotifyContext or signal.Notify; main.go's handler is
// everyone else's), so that a new one is not stopped halfway through its
// teardown.
func TestOwnSignalsAreTheCommandsThatCatchThem(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var catch []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmd, _, _ := strings.Cut(strings.TrimSuffix(f, ".go"), "_")
		if !strings.HasSuffix(f, "_test.go") && f != "main.go" && bytes.Contains(data, []byte("signal.Notify")) && !slices.Contains(catch, cmd) {
			catch = append(catch, cmd)
		}
	}
	if !slices.Equal(catch, ownSignals) {
		t.Errorf("files that catch signals: %q; ownSignals: %q", catch, ownSignals)
	}
}
