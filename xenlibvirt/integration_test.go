//go:build integration

// Integration tests against a real libvirtd with QEMU (KVM where /dev/kvm is
// usable, else TCG) and the tiny appliance test/itest/build-appliance.sh
// builds. test/itest/run.sh starts virtlogd and libvirtd by PID, runs these
// with -tags integration and stops the daemons by PID; `make itest` calls it.

package xenlibvirt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/xenlibvirt"
)

// itestEnv is the appliance directory and the libvirt URI, from
// PACKER_ITEST_APPLIANCE and PACKER_ITEST_URI.
func itestEnv(t *testing.T) (dir, uri string) {
	dir = os.Getenv("PACKER_ITEST_APPLIANCE")
	if dir == "" {
		dir = "/var/tmp/packer-itest"
	}
	uri = os.Getenv("PACKER_ITEST_URI")
	if uri == "" {
		uri = "qemu:///system"
	}
	for _, f := range []string{"vmlinuz", "initrd.img", "appliance.qcow2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("appliance incomplete (run test/itest/build-appliance.sh %s): %v", dir, err)
		}
	}
	return dir, uri
}

// transientPool creates a directory pool that vanishes when destroyed (at the
// test's end) or when libvirtd stops, so the tests leave nothing defined.
func transientPool(t *testing.T, conn *libvirt.Connect, name, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if old, err := conn.LookupStoragePoolByName(name); err == nil {
		// Left by a killed earlier run of this test: it is ours by name.
		_ = old.Destroy()
		old.Free()
	}
	p, err := conn.StoragePoolCreateXML(fmt.Sprintf("<pool type='dir'><name>%s</name><target><path>%s</path></target></pool>", name, dir), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Destroy(); p.Free() })
}

// itestSetup prepares two "hosts" that are two URIs of one local libvirtd,
// each with a transient disk pool, the appliance's pool, a foreign domain
// that must survive, and a two-phase plan for them.
func itestSetup(t *testing.T, cmdline string) (*xenlibvirt.Conn, *xenlibvirt.Inventory, *optimize.Plan, string) {
	dir, uri := itestEnv(t)
	conn, err := xenlibvirt.Open(uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	facts, err := conn.Facts()
	if err != nil {
		t.Fatal(err)
	}
	hv := xenlibvirt.QEMU
	for _, v := range facts.VirtTypes {
		if v == "kvm" {
			hv = xenlibvirt.KVM
		}
	}
	t.Logf("libvirt %s, %d CPUs, %d MiB, domain types %v: using %s", facts.Type, facts.CPUs, facts.MemoryMiB, facts.VirtTypes, hv)

	// Under the appliance directory, not t.TempDir (mode 0700): QEMU runs as
	// its own user and must reach the disks.
	work, err := os.MkdirTemp(dir, "work-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	transientPool(t, conn.Libvirt(), "packer-itest-images", dir)
	uris := []string{uri, strings.Replace(uri, "qemu://", "qemu+unix://", 1)}
	inv := &xenlibvirt.Inventory{
		Image: filepath.Join(dir, "appliance.qcow2"), Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img"),
		Cmdline: cmdline,
	}
	for i, u := range uris {
		pool := fmt.Sprintf("packer-itest-h%d-d0", i)
		transientPool(t, conn.Libvirt(), pool, filepath.Join(work, pool))
		inv.Hosts = append(inv.Hosts, xenlibvirt.InventoryHost{Name: fmt.Sprintf("h%d", i), URI: u, Hypervisor: hv,
			Cores: 1, MemoryMiB: 512, Disks: []string{pool}, Network: xenlibvirt.UserNetwork})
	}
	if err := inv.Validate(); err != nil {
		t.Fatal(err)
	}
	foreign, err := conn.Libvirt().DomainDefineXML(fmt.Sprintf("<domain type='%s'><name>packer-itest-foreign</name><memory unit='MiB'>64</memory>"+
		"<os><type arch='x86_64'>hvm</type></os></domain>", hv))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = foreign.Undefine(); foreign.Free() })

	// Two jobs, one after the other on P = 2 hosts × k = 1 disk: 2 phases of
	// 2 VMs with cores/k = 1 vCPU and 512 MiB / (1 + 1) = 256 MiB each.
	w := &model.Workload{Name: "itest", Jobs: []model.Job{
		{Name: "wordcount", Model: model.PowerLaw{A: 60, B: -0.5}, CPUIntensive: true},
		{Name: "sort", Model: model.PowerLaw{A: 90, B: -0.7}, IOIntensive: true},
	}}
	p, err := optimize.NewProblem(w, model.Cluster{Hosts: 2, DisksPerHost: 1, ExtraRatio: 1, Alpha: 1.3, CoresPerHost: 1, MemoryMiBPerHost: 512})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := optimize.NewPlan(p, optimize.Sequential(p), w.Name, "sequential")
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Phases) != 2 {
		t.Fatalf("%d phases, want 2", len(pl.Phases))
	}
	return conn, inv, pl, work
}

// assertOnlyForeign checks that only the foreign domain and no disk is left.
func assertOnlyForeign(t *testing.T, conn *xenlibvirt.Conn, work string) {
	t.Helper()
	doms, err := conn.Libvirt().ListAllDomains(0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range doms {
		n, _ := d.GetName()
		names = append(names, n)
		d.Free()
	}
	if len(names) != 1 || names[0] != "packer-itest-foreign" {
		t.Errorf("domains left: %v, want only packer-itest-foreign", names)
	}
	left, _ := filepath.Glob(filepath.Join(work, "packer-itest-h*-d0", "*"))
	if len(left) > 0 {
		t.Errorf("disks left: %v", left)
	}
}

// TestIntegrationTwoPhasesOnQEMU applies the two-phase plan: each phase boots
// two real VMs of the appliance, which runs its job and powers off; packer
// sees the power-offs through lifecycle events, tears the phase down and
// goes on to the next.
func TestIntegrationTwoPhasesOnQEMU(t *testing.T) {
	conn, inv, pl, work := itestSetup(t, "console=ttyS0 quiet panic=-1 packer.run=sleep,1")
	hs, err := xenlibvirt.Connect(pl, inv, xenlibvirt.Libvirt)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	state := filepath.Join(work, "state.json")
	start := time.Now()
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, PhaseTimeout: 5 * time.Minute, Log: testLog{t}})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	t.Logf("two phases of two VMs applied in %v", time.Since(start).Round(time.Second))
	if j.Status != xenlibvirt.StatusDone || len(j.VMs) != 4 || len(j.LiveVMs()) != 0 {
		t.Errorf("journal: %s, %d VMs, %d live", j.Status, len(j.VMs), len(j.LiveVMs()))
	}
	finished := 0
	for _, l := range j.Log {
		if strings.Contains(l, "powered off, job ") {
			finished++
		}
	}
	if finished != 4 {
		t.Errorf("%d guests powered off by themselves, want 4", finished)
	}
	assertOnlyForeign(t, conn, work)
}

// TestIntegrationInterruptThenResume interrupts apply while phase 0's two
// VMs run a long job: packer destroys them and journals the interruption.
// The operator then shortens the job and resumes: both phases complete.
func TestIntegrationInterruptThenResume(t *testing.T) {
	conn, inv, pl, work := itestSetup(t, "console=ttyS0 quiet panic=-1 packer.run=sleep,600")
	hs, err := xenlibvirt.Connect(pl, inv, xenlibvirt.Libvirt)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	state := filepath.Join(work, "state.json")
	started := 0
	log := hookLog{t: t, line: func(l string) {
		if strings.HasSuffix(l, ": started") {
			if started++; started == 2 {
				cancel() // as SIGINT would
			}
		}
	}}
	j, err := xenlibvirt.Apply(ctx, pl, hs, &xenlibvirt.Settings{StatePath: state, PhaseTimeout: 5 * time.Minute, Log: log})
	if !errors.Is(err, xenlibvirt.ErrInterrupted) {
		t.Fatalf("Apply: %v, want interrupted", err)
	}
	if j.Status != xenlibvirt.StatusInterrupted || len(j.LiveVMs()) != 0 {
		t.Errorf("journal %s with %d live VMs", j.Status, len(j.LiveVMs()))
	}
	assertOnlyForeign(t, conn, work)

	inv.Cmdline = "console=ttyS0 quiet panic=-1 packer.run=sleep,1"
	hs2, err := xenlibvirt.Connect(pl, inv, xenlibvirt.Libvirt)
	if err != nil {
		t.Fatal(err)
	}
	defer hs2.Close()
	j, err = xenlibvirt.Apply(context.Background(), pl, hs2, &xenlibvirt.Settings{StatePath: state, Resume: true, PhaseTimeout: 5 * time.Minute, Log: testLog{t}})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if j.Status != xenlibvirt.StatusDone || j.NextPhase() != 2 {
		t.Errorf("after resume: %s, next phase %d", j.Status, j.NextPhase())
	}
	assertOnlyForeign(t, conn, work)
}

type hookLog struct {
	t    *testing.T
	line func(string)
}

func (l hookLog) Write(b []byte) (int, error) {
	for _, s := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		l.t.Log(s)
		l.line(s)
	}
	return len(b), nil
}

// testLog sends the executor's lines to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
