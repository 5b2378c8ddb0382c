package xenlibvirt_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// renameJob gives job old the name new everywhere in the plan.
func renameJob(pl *plan.Plan, old, new string) {
	for i := range pl.Jobs {
		if pl.Jobs[i].Name == old {
			pl.Jobs[i].Name = new
		}
	}
	for p := range pl.Phases {
		for h := range pl.Phases[p].Hosts {
			for v := range pl.Phases[p].Hosts[h].VMs {
				if vm := &pl.Phases[p].Hosts[h].VMs[v]; vm.Job == old {
					vm.Job = new
				}
			}
		}
	}
}

// TestLongJobNamesStayWithinLimits: a 10,000-character job name, and a second
// one sharing its first 9,999 characters, make names a real host accepts
// (hostname ≤ 63, overlay file name ≤ 255 bytes) and that still differ, at
// deployment, before any host is touched.
func TestLongJobNamesStayWithinLimits(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	long := strings.Repeat("x", 10000)
	renameJob(pl, pl.Jobs[0].Name, long)
	renameJob(pl, pl.Jobs[1].Name, long[:9999]+"y")
	hs := connect(t, pl, c, nil)
	d, err := xenlibvirt.NewDeployment(pl, c.Inventory, hs.Facts)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, pd := range d.Phases {
		for _, vm := range pd.VMs {
			if len(vm.Hostname) > 63 || len(vm.Volume) > 255 || len(vm.Name) > 255 || seen[vm.Name] {
				t.Errorf("VM %s (%d bytes): hostname %d bytes, volume %d bytes, seen before %v",
					vm.Name[:min(80, len(vm.Name))], len(vm.Name), len(vm.Hostname), len(vm.Volume), seen[vm.Name])
			}
			seen[vm.Name] = true
		}
	}
	// And the plan applies on the test driver, which would take any length.
	libvirttest.NewAppliance(t, c, nil)
	if _, err := xenlibvirt.Apply(context.Background(), pl, hs, nil); err != nil {
		t.Fatal(err)
	}
}

// TestNameWithoutLettersIsBlamedOnItsJob: a job name that cleans up to
// nothing is refused naming that job, not a job "".
func TestNameWithoutLettersIsBlamedOnItsJob(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	renameJob(pl, pl.Jobs[0].Name, "!!!")
	hs := connect(t, pl, c, nil)
	probs := xenlibvirt.Check(pl, c.Inventory, hs.Facts)
	want := `job "!!!": no letter or digit to make a domain name from`
	if len(probs) != 1 || probs[0] != want {
		t.Errorf("Check: %q, want [%q]", probs, want)
	}
}

// TestStaleJournalTempsCleaned: the .STATE.tmp-* file a killed apply left is
// removed by the next run holding the state's lock; another file is not.
func TestStaleJournalTempsCleaned(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	libvirttest.NewAppliance(t, c, nil)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	stale := filepath.Join(dir, ".state.json.tmp-123456")
	other := filepath.Join(dir, ".other.json.tmp-1")
	for _, f := range []string{stale, other} {
		if err := os.WriteFile(f, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := &logHook{}
	if _, err := xenlibvirt.Apply(context.Background(), pl, connect(t, pl, c, nil), &xenlibvirt.Settings{StatePath: state, Log: log}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("%s still there", stale)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("%s removed: %v", other, err)
	}
	if !strings.Contains(log.String(), "removed "+stale+", left by a packer run that was killed") {
		t.Errorf("log does not say so:\n%s", log)
	}
}

// TestMissingTestDriverFileIsOneLine: a node file that does not exist is an
// error of one line, and nothing is written to the process's stderr (libxml2
// would add "I/O warning : failed to load external entity" there).
func TestMissingTestDriverFileIsOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h9.xml")
	captured := filepath.Join(t.TempDir(), "stderr")
	f, err := os.Create(captured)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := syscall.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup2(int(f.Fd()), 2); err != nil {
		t.Fatal(err)
	}
	_, openErr := xenlibvirt.Open("test://" + path)
	_ = syscall.Dup2(saved, 2)
	_ = syscall.Close(saved)
	f.Close()
	noise, _ := os.ReadFile(captured)
	if openErr == nil || strings.Contains(openErr.Error(), "\n") || !strings.Contains(openErr.Error(), path) ||
		!errors.Is(openErr, os.ErrNotExist) || len(noise) > 0 {
		t.Errorf("Open: %v; stderr %q", openErr, noise)
	}
}

// TestInactivePoolIsNotMissing: a pool that exists but is stopped is named
// "(inactive)" by hosts check, one that does not exist "(missing)".
func TestInactivePoolIsNotMissing(t *testing.T) {
	c := libvirttest.NewCluster(t, 1, xenlibvirt.KVM)
	p, err := c.Conns[0].Libvirt().LookupStoragePoolByName("disk1")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Destroy(); err != nil { // stops it; the definition stays
		t.Fatal(err)
	}
	p.Free()
	inv := *c.Inventory
	inv.Hosts = append([]xenlibvirt.InventoryHost(nil), inv.Hosts...)
	inv.Hosts[0].Disks = append(inv.Hosts[0].Disks, "/srv/nowhere")
	rep := xenlibvirt.CheckHosts(nil, &inv, c.Connector(nil))
	h := rep.Hosts[0]
	if !h.Reachable {
		t.Fatal(h.Error)
	}
	got := strings.Join(h.Facts.PoolLabels(inv.Hosts[0]), " ")
	if want := "disk0 disk1 (inactive) /srv/nowhere (missing)"; got != want {
		t.Errorf("pools %q, want %q", got, want)
	}
}

// TestDryRunReadsTheStateFile: with a state file listing VMs a run left, the
// dry run refuses as apply would; with --resume it lists what it would clear
// first and goes on from the phase that failed.
func TestDryRunReadsTheStateFile(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	libvirttest.NewAppliance(t, c, func(string) bool { return true }) // jobs never end
	state := filepath.Join(t.TempDir(), "state.json")
	hs := connect(t, pl, c, nil)
	set := xenlibvirt.Settings{StatePath: state, PhaseTimeout: 500 * time.Millisecond, KeepOnFailure: true}
	if _, err := xenlibvirt.Apply(context.Background(), pl, hs, &set); !errors.Is(err, xenlibvirt.ErrPhaseTimeout) {
		t.Fatalf("apply: %v, want a phase timeout", err)
	}
	dry := &logHook{}
	_, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, DryRun: true, Log: dry})
	if !errors.Is(err, xenlibvirt.ErrStateExists) {
		t.Errorf("dry run over live VMs: %v, want ErrStateExists", err)
	}
	dry = &logHook{}
	if _, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, DryRun: true, Resume: true, Log: dry}); err != nil {
		t.Fatal(err)
	}
	out := dry.String()
	// Phase 1 (6 VMs on W2's 2 hosts) was kept: cleared first, then run again.
	if n := strings.Count(out, ": left by the last run (running): destroy, undefine, delete disk"); n != 6 {
		t.Errorf("dry run lists %d VMs to clear first, want 6:\n%s", n, out)
	}
	if !strings.Contains(out, "## phase 1: 6 VMs") || !strings.Contains(out, "# state file "+state+": failed") {
		t.Errorf("dry run output:\n%s", out)
	}
}

// TestDestroyOnADeadHost: destroy removes what it can reach, reports the dead
// host by name, keeps its VMs journaled as live, and finishes them once the
// host is back.
func TestDestroyOnADeadHost(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	libvirttest.NewAppliance(t, c, func(string) bool { return true })
	state := filepath.Join(t.TempDir(), "state.json")
	set := xenlibvirt.Settings{StatePath: state, PhaseTimeout: 500 * time.Millisecond, KeepOnFailure: true}
	j, err := xenlibvirt.Apply(context.Background(), pl, connect(t, pl, c, nil), &set)
	if !errors.Is(err, xenlibvirt.ErrPhaseTimeout) {
		t.Fatalf("apply: %v", err)
	}
	dead := c.Connector(func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		if i == 1 {
			return nil // h1 unreachable
		}
		return hv
	})
	res, err := xenlibvirt.Destroy(j, dead, state, nil)
	if err == nil || !strings.Contains(err.Error(), "host h1") {
		t.Fatalf("destroy with h1 dead: %v", err)
	}
	onDisk, rerr := xenlibvirt.ReadJournalFile(state)
	if rerr != nil {
		t.Fatal(rerr)
	}
	for _, v := range onDisk.LiveVMs() {
		if v.Host != "h1" {
			t.Errorf("%s on %s still live", v.Name, v.Host)
		}
	}
	if len(onDisk.LiveVMs()) == 0 || onDisk.Status != xenlibvirt.StatusFailed || res.Removed != 6-len(onDisk.LiveVMs()) {
		t.Errorf("journal %s with %d live, %d removed", onDisk.Status, len(onDisk.LiveVMs()), res.Removed)
	}
	res, err = xenlibvirt.Destroy(onDisk, c.Connector(nil), state, nil)
	if err != nil || res.Gone != 0 || len(onDisk.LiveVMs()) != 0 {
		t.Errorf("destroy with h1 back: %v, %+v, %d live", err, res, len(onDisk.LiveVMs()))
	}
	assertEmpty(t, c)
}
