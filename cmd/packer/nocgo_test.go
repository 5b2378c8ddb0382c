package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildsWithoutCgo: planning needs no C tool chain and no libvirt-dev.
// A CGO_ENABLED=0 build plans W1, and its apply says in one line how to get
// a build that reaches libvirt, with exit 1.
func TestBuildsWithoutCgo(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "packer")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "plan").Output()
	if err != nil || !strings.Contains(string(out), "Plan w1-") || !strings.Contains(string(out), "Phase 1:") {
		t.Fatalf("plan without cgo: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "apply", "--plan", "../../examples/small.plan.json", "--inventory", "../../examples/testdriver/inventory.json", "--dry-run")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("apply without cgo: %v, want exit 1", err)
	}
	if msg := stderr.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "built without cgo") || !strings.Contains(msg, "libvirt-dev") {
		t.Errorf("apply without cgo said %q, want one line naming cgo and libvirt-dev", msg)
	}
}
