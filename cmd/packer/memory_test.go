package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxMemoryHeedsUlimit runs packer (this test binary as packer) under
// prlimit --as=8000000000 on one job of 10⁸ maps (about 10 GB by the
// estimate): where the Go runtime used to die with "fatal error: out of
// memory" and a goroutine dump, the default --max-memory is half that
// address-space limit, and the run is refused in one line naming it,
// exit 2.
func TestMaxMemoryHeedsUlimit(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Fatalf("prlimit (util-linux) is needed: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(w, []byte(`{"cluster": {"nodes": 100}, "jobs": [{"name": "huge", "maps": {"count": 100000000, "mean": 10}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("prlimit", "--as=8000000000", self, "simulate", "-w", w, "-p", "fifo")
	cmd.Env = append(os.Environ(), "PACKER_RUN_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	msg := strings.TrimSpace(stderr.String())
	if code != 2 || strings.Count(msg, "\n") > 0 || !strings.Contains(msg, "over the limit of 4.0 GB") ||
		!strings.Contains(msg, "the default limit: half of the address-space limit RLIMIT_AS, ulimit -v (8.0 GB)") {
		t.Errorf("exit %d (%v), stderr %q", code, err, msg)
	}
}
