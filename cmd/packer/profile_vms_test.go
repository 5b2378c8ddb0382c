package main

import (
	"strings"
	"testing"
)

// TestProfileInventoryDryRun shows the VMs packer profile --inventory would
// make, on simulated hosts, and changes nothing.
func TestProfileInventoryDryRun(t *testing.T) {
	c, _, inv, _ := simulated(t)
	code, out, errs := packer(t, "", "profile", "--inventory", inv, "--job", "sort", "--nodes", "1,3",
		"--run", "sha256sum /dev/vda", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"packer.run=sha256sum,/dev/vda", "## 3 VMs (plan profile-n3-r1", "h1 packer-profile-n3-r1-p1-sort-1: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for i := range c.Conns {
		for _, d := range c.Domains(t, i) {
			if strings.HasPrefix(d, "packer-") {
				t.Errorf("domain %s made by a dry run", d)
			}
		}
	}
	code, _, errs = packer(t, "", "profile", "--inventory", inv, "--job", "sort", "--nodes", "99", "--run", "x", "--dry-run")
	if code == 0 || !strings.Contains(errs, "99 VMs: the inventory has room for") {
		t.Errorf("99 VMs: exit %d, %s", code, errs)
	}
}

// TestProfilePointsChooseNodes: --points picks the counts (profile.ChooseNodes)
// and says why; the dry run on the inventory shows the VMs of those only.
// Amdahl over 1..4 with 3 points: det XᵀX is Σ over pairs of (1/a − 1/b)²,
// 0.4444 + 0.5625 + 0.0069 = 1.014 for 1, 3, 4, above 0.875 for 1, 2, 4
// (0.25 + 0.5625 + 0.0625) and 0.72 for 1, 2, 3.
func TestProfilePointsChooseNodes(t *testing.T) {
	_, _, inv, _ := simulated(t)
	code, out, errs := packer(t, "", "profile", "--inventory", inv, "--job", "sort", "--nodes", "4", "--points", "3",
		"--model", "amdahl", "--run", "true", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"node counts 1,3,4: the D-optimal design for the amdahl form", "3 runs: VM counts 1,3,4",
		"## 3 VMs (plan profile-n3-r1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "## 2 VMs") {
		t.Errorf("dry run shows 2 VMs, not chosen:\n%s", out)
	}
	code, _, errs = packer(t, "", "profile", "--inventory", inv, "--job", "sort", "--nodes", "4", "--points", "5", "--run", "true", "--dry-run")
	if code == 0 || !strings.Contains(errs, "5 points wanted from 4 candidate node counts") {
		t.Errorf("5 of 4: exit %d, %s", code, errs)
	}
}
