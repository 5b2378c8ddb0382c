//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// TestIntegrationReadmeWalkthrough runs the README's "Applying a plan" steps
// with the real CLI on a real libvirtd + QEMU: plan, hosts check (with a boot
// canary on each host), dry run,
// apply (two phases of two appliance VMs that run their job and power off),
// status and destroy. The foreign domain beside them survives.
func TestIntegrationReadmeWalkthrough(t *testing.T) {
	q := libvirttest.NewQEMUCluster(t, "console=ttyS0 quiet panic=-1 packer.run=sleep,1")
	dir := t.TempDir()
	workload := filepath.Join(dir, "small.json")
	inventory := filepath.Join(dir, "inventory.json")
	plan := filepath.Join(dir, "plan.json")
	state := filepath.Join(dir, "state.json")
	inv, err := json.MarshalIndent(q.Inventory, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string]string{
		workload: `{"name": "small", "jobs": [
  {"name": "wordcount", "model": {"a": 60, "b": -0.5}, "cpu_intensive": true},
  {"name": "sort", "model": {"a": 90, "b": -0.7}, "io_intensive": true}]}`,
		inventory: string(inv),
	} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	step := func(want string, args ...string) string {
		t.Helper()
		code, out, errs := packer(t, "", args...)
		t.Logf("$ packer %s\n%s%s", strings.Join(args, " "), out, errs)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("packer %s: exit %d, output lacks %q", strings.Join(args, " "), code, want)
		}
		return out
	}
	step("Makespan", "plan", "-w", workload, "-a", "sequential", "-P", "2", "-k", "1", "-r", "1", "--cores", "1", "--memory", "512", "-o", plan)
	// The canary boots each host's hypervisor as the inventory names it
	// (the harness chose KVM only if its own canary proved it).
	out := step("fits: 2 hosts × 1 disks, 1 vCPUs and 256 MiB per VM", "hosts", "check", "--inventory", inventory, "--plan", plan,
		"--canary", "--canary-timeout", "3m")
	if n := strings.Count(out, "powered off in"); n != 2 {
		t.Errorf("hosts check --canary: %d canaries powered off, want 2", n)
	}
	out = step("# dry run of plan small-", "apply", "--plan", plan, "--inventory", inventory, "--state", state, "--dry-run")
	if n := strings.Count(out, "<domain type="); n != 4 {
		t.Errorf("dry run shows %d domains, want 4", n)
	}
	q.AssertOnlyForeign(t)
	step("done; 4 VMs run, none left", "apply", "--plan", plan, "--inventory", inventory, "--state", state, "--auto-approve")
	step(": done (step ", "status", "--state", state)
	step("0 VMs removed, 0 already gone; nothing of it left", "destroy", "--state", state, "--auto-approve")
	q.AssertOnlyForeign(t)
}
