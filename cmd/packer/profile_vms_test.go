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
