//go:build integration

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// TestIntegrationProfileCtrlC builds packer, profiles a guest command that
// does nothing (true) at 1 and 2 VMs of a real libvirtd + QEMU, and sends
// the packer process SIGINT once both VMs of the second VM count have
// started: it exits 130, its output has the run at 1 VM (on stdout, as
// observations packer fit reads) and says it kept it, and no packer domain, volume or disk is left on the host.
func TestIntegrationProfileCtrlC(t *testing.T) {
	begin := time.Now()
	q := libvirttest.NewQEMUCluster(t, "console=ttyS0 quiet panic=-1")
	dir := t.TempDir()
	bin, inventory := filepath.Join(dir, "packer"), filepath.Join(dir, "inventory.json")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	inv, err := json.Marshal(q.Inventory)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inventory, inv, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "profile", "--inventory", inventory, "--job", "noop", "--nodes", "1,2", "--run", "true",
		"--run-timeout", "5m")
	cmd.Dir = dir // where its journal, packer-profile-noop.state.json, goes
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sent := false
	started := 0
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		// Both of the second count's VMs running: the run is as deployed as
		// it gets, domains, disks and all.
		if strings.Contains(line, "packer-profile-n2-r1-p1-noop-") && strings.HasSuffix(line, ": started") {
			if started++; started == 2 && !sent {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				sent = true
			}
		}
	}
	err = cmd.Wait()
	t.Logf("stderr:\n%s", log.String())
	var exit *exec.ExitError
	if !sent || !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("interrupt sent %v; packer ended with %v, want exit 130", sent, err)
	}
	for _, want := range []string{`profile noop: 1 VMs, repeat 1: [0-9.]+ s, CPU [0-9.]+ s`,
		"profile noop: 2 VMs, repeat 1: interrupted, torn down", "keeping the 1 runs measured"} {
		if !regexp.MustCompile(want).MatchString(log.String()) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Too little to fit, the run at 1 VM is kept on stdout as observations.
	if !regexp.MustCompile(`^job,nodes,seconds,cpu_util,io_mbps\nnoop,1,[0-9.e+-]+,[0-9.e+-]+,[0-9.e+-]+\n$`).MatchString(stdout.String()) {
		t.Errorf("stdout is not the run at 1 VM as observations:\n%s", stdout.String())
	}
	q.AssertNothingLeft(t)
	// Torn down on Ctrl-C, the run's journal lists nothing live.
	if j, err := xenlibvirt.ReadJournalFile(filepath.Join(dir, "packer-profile-noop.state.json")); err != nil || len(j.LiveVMs()) > 0 {
		t.Errorf("journal: %v, live VMs %v", err, j)
	}
	t.Logf("TOOK %v", time.Since(begin).Round(time.Second))
}
