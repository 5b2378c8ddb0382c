//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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

// TestIntegrationApplyRunsJobsCLI closes the loop with the real CLI:
// plan a workload whose jobs have run specs, apply it (phase 1: a two-VM
// job whose worker reaches its master by name; phase 2: a job whose
// commands exit 3), status, then fit the run's observations beside a
// profile's. apply exits 1 with one line naming job, VM, host and status,
// phase 1's record is kept, and nothing is left on the hosts.
func TestIntegrationApplyRunsJobsCLI(t *testing.T) {
	q := libvirttest.NewQEMUCluster(t, "console=ttyS0 quiet panic=-1")
	q.UseJobNetwork(t, "10.79.0.0/24")
	dir := t.TempDir()
	workload, inventory, plan := filepath.Join(dir, "jobs.json"), filepath.Join(dir, "inventory.json"), filepath.Join(dir, "plan.json")
	state := filepath.Join(dir, "packer-jobs.state.json")
	inv, err := json.MarshalIndent(q.Inventory, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string]string{
		workload: `{"name": "jobs", "jobs": [
  {"name": "hello", "model": {"a": 40, "b": -1}, "cpu_intensive": true, "run": {
    "master": "n=$(nc -l -p 7000 </dev/null); echo \"hello received $n\"",
    "workers": "for i in $(seq 1 60); do echo {hostname} | nc {master} 7000 && exit 0; sleep 1; done; exit 1"}},
  {"name": "fails", "model": {"a": 40, "b": -1}, "io_intensive": true, "run": {"command": "echo failing on {hostname}; exit 3"}}]}`,
		inventory: string(inv),
	} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := packer(t, "", "plan", "-w", workload, "-a", "sequential", "-P", "2", "-k", "1", "-r", "1", "--cores", "1", "--memory", "512", "-o", plan); code != 0 {
		t.Fatalf("plan: exit %d: %s%s", code, out, errs)
	}
	code, out, errs := packer(t, "", "apply", "--plan", plan, "--inventory", inventory, "--state", state, "--boot-allowance", "4m", "--auto-approve")
	t.Logf("$ packer apply …\n%s%s", out, errs)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	last := lines[len(lines)-1]
	if code != 1 || len(lines) != 1 || !regexp.MustCompile(`^packer: apply: job failed: job fails: VM fails-[01] \(packer-jobs-[0-9a-f]+-p2-fails-[01]\) on host h[01] exited with status 3; console log .*\.log \(journal: `).MatchString(last) {
		t.Errorf("apply: exit %d, stderr:\n%s", code, errs)
	}
	if !regexp.MustCompile(`(?m)^1 +hello +ok +2 +2 +20\.0 `).MatchString(out) || !regexp.MustCompile(`(?m)^2 +fails +exit 3 +2 +2 +20\.0 `).MatchString(out) {
		t.Errorf("apply's run record lacks hello ok and fails exit 3:\n%s", out)
	}
	q.AssertOnlyForeign(t)
	code, out, _ = packer(t, "", "status", "--state", state)
	runDir := filepath.Join(dir, "packer-jobs.run")
	if code != 0 || !strings.Contains(out, "run directory "+runDir+": consoles in console/") {
		t.Errorf("status: exit %d:\n%s", code, out)
	}
	logs, _ := filepath.Glob(filepath.Join(runDir, "console", "*-p1-hello-0.log"))
	if b, err := os.ReadFile(firstOf(logs)); err != nil || !strings.Contains(string(b), "hello received hello-1") {
		t.Errorf("hello's master console %v: %v\n%s", logs, err, b)
	}
	// profile → plan → apply → fit: the run measured hello on 2 VMs; with
	// profiled runs on 1 and 4 it fits.
	prof := filepath.Join(dir, "profile.csv")
	if err := os.WriteFile(prof, []byte("job,nodes,seconds\nhello,1,40\nhello,4,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = packer(t, "", "fit", "-i", prof, "-i", filepath.Join(runDir, "observations.csv"))
	if code != 0 || !strings.Contains(out, "Job hello: F(n) = ") || !strings.Contains(out, "fitted on 3 runs at 1–4 nodes") {
		t.Errorf("fit: exit %d: %s\n%s", code, errs, out)
	}
}

func firstOf(paths []string) string {
	if len(paths) == 0 {
		return "(none)"
	}
	return paths[0]
}
