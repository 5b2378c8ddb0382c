package main

import (
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/workloads"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// simulated points packer's connector at two simulated paper hosts for the
// test and writes W2's plan for them and their inventory into dir.
func simulated(t *testing.T, specs ...libvirttest.HostSpec) (c *libvirttest.Cluster, planPath, invPath string, pl *plan.Plan) {
	t.Helper()
	c = libvirttest.NewCluster(t, 2, xenlibvirt.KVM, specs...)
	old := connector
	connector = c.Connector(nil)
	t.Cleanup(func() { connector = old })
	w, err := workloads.Get("W2")
	if err != nil {
		t.Fatal(err)
	}
	cl := model.PaperCluster()
	cl.Hosts = 2
	p, err := model.NewProblem(w, cl)
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := optimize.NewSolution(p, res.Schedule, "pair")
	if err != nil {
		t.Fatal(err)
	}
	pl, err = plan.New(p, w.Name, sol)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc, err := pl.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	planPath = filepath.Join(dir, "plan.json")
	invPath = filepath.Join(dir, "inventory.json")
	inv, err := json.MarshalIndent(c.Inventory, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string][]byte{planPath: doc, invPath: inv} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return c, planPath, invPath, pl
}

// scrub replaces the temporary directory in output with $DIR and squeezes
// the table's padding, whose width follows the directory's length, so that
// the golden file holds on any machine.
func scrub(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "$DIR")
	s = regexp.MustCompile(`─+`).ReplaceAllString(s, "─")
	return regexp.MustCompile(` +│`).ReplaceAllString(s, " │")
}

func TestHostsCheckApplyStatusDestroy(t *testing.T) {
	c, planPath, invPath, pl := simulated(t)
	libvirttest.NewAppliance(t, c, nil)
	dir := filepath.Dir(c.Inventory.Hosts[0].URI[len("test://"):])
	state := filepath.Join(t.TempDir(), "state.json")

	code, out, errs := packer(t, "", "hosts", "check", "--inventory", invPath, "--plan", planPath)
	if code != 0 || errs != "" {
		t.Fatalf("hosts check: exit %d: %s", code, errs)
	}
	golden(t, "hosts-check.txt", scrub(out, dir))

	code, out, errs = packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state, "--dry-run")
	if code != 0 || errs != "" {
		t.Fatalf("dry run: exit %d: %s", code, errs)
	}
	// W2 on 2 hosts: 6 + 4 + 4 = 14 domains.
	if n := strings.Count(out, "<domain type=\"kvm\">"); n != 14 {
		t.Errorf("dry run shows %d domains, want 14", n)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("dry run wrote %s", state)
	}

	code, out, errs = packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state)
	if code != 0 || errs != "" {
		t.Fatalf("apply: exit %d: %s\n%s", code, errs, out)
	}
	if !strings.HasSuffix(out, "plan "+pl.ID+": done; 14 VMs run, none left (journal "+state+")\n") {
		t.Errorf("apply output ends:\n%s", out[max(0, len(out)-300):])
	}
	for _, p := range []string{"p0", "p1", "p2"} {
		if !strings.Contains(out, "phase "+p[1:]+" done") {
			t.Errorf("apply output lacks %q", "phase "+p[1:]+" done")
		}
	}

	code, out, errs = packer(t, "", "status", "--state", state)
	if code != 0 || errs != "" {
		t.Fatalf("status: exit %d: %s", code, errs)
	}
	golden(t, "status-done.txt", regexp.MustCompile(`step \d+`).ReplaceAllString(out, "step N"))

	code, out, errs = packer(t, "", "destroy", "--state", state)
	if code != 0 || errs != "" || out != "destroy done\nplan "+pl.ID+": 0 VMs removed, nothing of it left (journal "+state+")\n" {
		t.Fatalf("destroy: exit %d: %s\n%s", code, errs, out)
	}
}

func TestApplyBadInputExits2(t *testing.T) {
	c, planPath, invPath, _ := simulated(t, libvirttest.HostSpec{}, libvirttest.HostSpec{MemoryMiB: 4096})
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"image": "/x", "hosts": [{"name": "h0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", "--plan", planPath, "--inventory", bad},
			"packer: " + bad + `: invalid inventory: hosts[0].uri: "" is not a libvirt URI (like qemu:///system)`},
		// h1 reports 4096 MiB: phase 0's 3 VMs × 2730 MiB = 8190 do not fit.
		{[]string{"apply", "--plan", planPath, "--inventory", invPath},
			"packer: " + planPath + " and " + invPath + ": plan does not fit the hosts: host h1: phase 0 needs 8190 MiB of memory (3 VMs × 2730), the inventory says 4096 (and 1 more; see packer hosts check)"},
		{[]string{"apply", "--plan", planPath, "--inventory", invPath, "--phase", "3"}, "packer: --phase: 3, plan w2-045a8bb1 has phases 0..2"},
		{[]string{"status", "--state", bad}, "packer: " + bad + ": invalid state file: version: 0, this packer reads version 1"},
		{[]string{"apply", "--plan", planPath, "--inventory", invPath, "--resume", "--state", filepath.Join(filepath.Dir(bad), "none.json")},
			"packer: --resume: no state file " + filepath.Join(filepath.Dir(bad), "none.json") + " to resume from (--state names it)"},
	} {
		code, out, errs := packer(t, "", tc.args...)
		if code != 2 || strings.TrimSpace(errs) != tc.want || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr\n got %q\nwant %q\nstdout %s", tc.args, code, errs, tc.want, out)
		}
	}
	assertNoPackerDomains(t, c)
}

func assertNoPackerDomains(t *testing.T, c *libvirttest.Cluster) {
	t.Helper()
	for i := range c.Conns {
		for _, d := range c.Domains(t, i) {
			if strings.HasPrefix(d, "packer-") {
				t.Errorf("host %d: %s", i, d)
			}
		}
		if v := c.Volumes(t, i); len(v) > 0 {
			t.Errorf("host %d: disks %v", i, v)
		}
	}
}

// TestApplyInterruptKeepsThenDestroy sends packer SIGINT once phase 0's six
// VMs are up, with --keep-on-interrupt: it exits 1 leaving them running and
// journaled; status lists them; destroy removes them.
func TestApplyInterruptKeepsThenDestroy(t *testing.T) {
	c, planPath, invPath, pl := simulated(t)
	// Should the signal ever outlive packer's own handler, it must not
	// kill the test binary.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	var mu sync.Mutex
	booted := 0
	libvirttest.NewAppliance(t, c, func(string) bool {
		mu.Lock()
		defer mu.Unlock()
		if booted++; booted == 6 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
		return true // jobs never end
	})
	state := filepath.Join(t.TempDir(), "state.json")
	code, _, errs := packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state, "--keep-on-interrupt")
	if code != 1 || !strings.HasPrefix(errs, "packer: apply: interrupted") {
		t.Fatalf("apply: exit %d, stderr %q", code, errs)
	}
	code, out, _ := packer(t, "", "status", "--state", state)
	if code != 0 || !strings.Contains(out, "plan "+pl.ID+": interrupted") || !strings.Contains(out, "6 VMs may still exist") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
	code, out, errs = packer(t, "", "destroy", "--state", state)
	if code != 0 || !strings.HasSuffix(out, "6 VMs removed, nothing of it left (journal "+state+")\n") {
		t.Errorf("destroy: exit %d %s\n%s", code, errs, out)
	}
	assertNoPackerDomains(t, c)
}

func TestHostsCheckUnreachableAndMisfit(t *testing.T) {
	c, planPath, _, pl := simulated(t, libvirttest.HostSpec{}, libvirttest.HostSpec{CPUs: 2})
	// A third inventory host that no connection reaches, and h1 declaring
	// the 4 cores its libvirt does not have.
	inv := *c.Inventory
	inv.Hosts = append(append([]xenlibvirt.InventoryHost(nil), inv.Hosts...), xenlibvirt.InventoryHost{Name: "h2", URI: "test:///nowhere.xml",
		Hypervisor: "kvm", Cores: 4, MemoryMiB: 8192, Disks: []string{"disk0", "disk1"}, Network: "default"})
	inv.Hosts[1].Cores = 4
	data, err := json.Marshal(&inv)
	if err != nil {
		t.Fatal(err)
	}
	invPath := filepath.Join(t.TempDir(), "inventory.json")
	if err := os.WriteFile(invPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := packer(t, "", "hosts", "check", "--inventory", invPath, "--plan", planPath)
	// h1: phase 0 puts 2 host VMs × 2 vCPUs = 4 on its 2 CPUs.
	wantErr := "packer: hosts check: plan " + pl.ID + " does not fit (1 problems)\n"
	if code != 1 || errs != wantErr {
		t.Errorf("exit %d, stderr %q, want 1, %q", code, errs, wantErr)
	}
	for _, want := range []string{"│ h2   │ test:///nowhere.xml │ no: no simulated host with URI test:///nowhere.xml",
		"plan " + pl.ID + " does not fit:\n  host h1: phase 0 needs 4 CPUs (2 VMs × 2), libvirt says 2\n"} {
		if !strings.Contains(regexp.MustCompile(` +│`).ReplaceAllString(out, " │"), regexp.MustCompile(` +│`).ReplaceAllString(want, " │")) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Without the plan only reachability counts.
	code, _, errs = packer(t, "", "hosts", "check", "--inventory", invPath, "--format", "json")
	if code != 1 || errs != "packer: hosts check: 1 of 3 hosts unreachable\n" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestStatusJSONIsTheJournal(t *testing.T) {
	c, planPath, invPath, pl := simulated(t)
	libvirttest.NewAppliance(t, c, nil)
	state := filepath.Join(t.TempDir(), "state.json")
	if code, _, errs := packer(t, "", "apply", "--plan", planPath, "--inventory", invPath, "--state", state, "--phase", "1"); code != 0 {
		t.Fatalf("apply --phase 1: %s", errs)
	}
	code, out, _ := packer(t, "", "status", "--state", state, "--format", "json")
	onDisk, err := os.ReadFile(state)
	if code != 0 || err != nil || out != string(onDisk) {
		t.Fatalf("status --format json (exit %d) differs from the state file", code)
	}
	j, err := xenlibvirt.ParseJournal([]byte(out), "status")
	if err != nil {
		t.Fatal(err)
	}
	// Only phase 1 (s-srt-2 on 1 VM, s-dsim-1 on 3) ran.
	if j.Plan != pl.ID || j.Status != "pending" || j.Phases[1].Status != "done" || len(j.VMs) != 4 {
		t.Errorf("journal: plan %s status %s phase 1 %s, %d VMs", j.Plan, j.Status, j.Phases[1].Status, len(j.VMs))
	}
}
