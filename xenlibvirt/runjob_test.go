package xenlibvirt_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// guestHV plays what the test driver cannot: each VM's console, which
// prints transcript(name) and ends, and the seed volumes' contents, which
// it keeps (the test driver creates them empty).
type guestHV struct {
	xenlibvirt.Hypervisor
	transcript func(name string) string
	mu         *sync.Mutex
	uploads    map[string][]byte
}

func (g guestHV) Console(name string, w io.Writer) (func(), <-chan error, error) {
	_, _ = w.Write([]byte(g.transcript(name)))
	done := make(chan error, 1)
	done <- nil
	return func() {}, done, nil
}

func (g guestHV) UploadVolume(pool, name string, data []byte) (string, error) {
	g.mu.Lock()
	g.uploads[name] = data
	g.mu.Unlock()
	return g.Hypervisor.UploadVolume(pool, name, data)
}

// runCluster is two test-driver hosts on subnet 10.77.0.0/24 and a
// sequential plan of two jobs with run specs on them: phase 1 runs sum on
// 2 VMs (one a host), phase 2 sort on 2. Their models make phases of 0.2 s.
type runCluster struct {
	pl      *plan.Plan
	c       *libvirttest.Cluster
	app     *libvirttest.Appliance
	hs      *xenlibvirt.Hosts
	uploads map[string][]byte
}

func newRunCluster(t *testing.T, transcript func(name string) string, hold func(name string) bool) *runCluster {
	t.Helper()
	w := &model.Workload{Name: "run", Jobs: []model.Job{
		{Name: "sum", Model: model.PowerLaw{A: 0.4, B: -1}, CPUIntensive: true,
			Run: &model.RunSpec{Master: "sum-server {vms}", Workers: "send {master} {index}", Env: map[string]string{"PORT": "7000"}}},
		{Name: "sort", Model: model.PowerLaw{A: 0.4, B: -1}, IOIntensive: true, Run: &model.RunSpec{Command: "sort-part {index} of {vms}"}},
	}}
	pl := plantest.Sequential(t, w, model.Cluster{Hosts: 2, DisksPerHost: 1, ExtraRatio: 1, Alpha: 1.3, CoresPerHost: 1, MemoryMiBPerHost: 512})
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	c.Inventory.Subnet = "10.77.0.0/24"
	if err := c.Inventory.Validate(); err != nil {
		t.Fatal(err)
	}
	rc := &runCluster{pl: pl, c: c, uploads: map[string][]byte{}}
	rc.app = libvirttest.NewAppliance(t, c, hold)
	mu := &sync.Mutex{}
	rc.hs = connect(t, pl, c, func(_ int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		return guestHV{Hypervisor: hv, transcript: transcript, mu: mu, uploads: rc.uploads}
	})
	return rc
}

func exitsWith(codes map[string]string) func(string) string {
	return func(name string) string {
		for suffix, line := range codes {
			if strings.HasSuffix(name, suffix) {
				return "booting\r\n" + line + "\r\n"
			}
		}
		return "booting\r\npacker-job: running\r\npacker-status: exit 0 seconds 1.50\r\n"
	}
}

func TestApplyRunsTheJobsAndRecordsTheirStatus(t *testing.T) {
	rc := newRunCluster(t, exitsWith(nil), nil)
	dir := t.TempDir()
	state := filepath.Join(dir, "packer-run.state.json")
	runDir := xenlibvirt.RunDir(state)
	var log bytes.Buffer
	j, err := xenlibvirt.Apply(context.Background(), rc.pl, rc.hs, &xenlibvirt.Settings{StatePath: state, RunDir: runDir, Log: &log})
	if err != nil {
		t.Fatalf("Apply: %v\n%s", err, log.String())
	}
	if j.Status != xenlibvirt.StatusDone || len(j.VMs) != 4 {
		t.Fatalf("journal: %s with %d VMs", j.Status, len(j.VMs))
	}
	for _, v := range j.VMs {
		if v.Exit == nil || *v.Exit != 0 || *v.Seconds != 1.5 || v.Started == nil || v.Stopped == nil {
			t.Errorf("%s: exit %v seconds %v started %v stopped %v", v.Name, v.Exit, v.Seconds, v.Started, v.Stopped)
		}
		if v.Seed != filepath.Join(libvirttest.DiskDir(v.Host, 0), xenlibvirt.SeedVolumeName(v.Name)) {
			t.Errorf("%s: seed %q", v.Name, v.Seed)
		}
		b, err := os.ReadFile(v.Console)
		if err != nil || !strings.Contains(string(b), "packer-status: exit 0") {
			t.Errorf("%s: console log %s: %q, %v", v.Name, v.Console, b, err)
		}
	}
	if len(rc.uploads) != 4 {
		t.Errorf("%d seed volumes uploaded, want 4", len(rc.uploads))
	}
	// Seeds and overlays are gone with the domains.
	assertEmpty(t, rc.c)
	obs, err := os.ReadFile(filepath.Join(runDir, xenlibvirt.ObservationsFile))
	if want := "job,nodes,seconds\nsum,2,1.50\nsort,2,1.50\n"; err != nil || string(obs) != want {
		t.Errorf("observations %q, %v; want %q", obs, err, want)
	}
	if !strings.Contains(log.String(), "phase 1 running; timeout 5m1s (2 × predicted 0.2 s + boot allowance 5m0s)") {
		t.Errorf("log does not give phase 1's derived timeout:\n%s", log.String())
	}
}

func TestAFailedJobFailsItsPhaseAndStopsTheRun(t *testing.T) {
	for _, keep := range []bool{false, true} {
		rc := newRunCluster(t, exitsWith(map[string]string{"-sum-1": "packer-status: exit 3 seconds 0.25"}), nil)
		state := filepath.Join(t.TempDir(), "state.json")
		j, err := xenlibvirt.Apply(context.Background(), rc.pl, rc.hs, &xenlibvirt.Settings{StatePath: state, KeepOnFailure: keep})
		name := xenlibvirt.DomainName(rc.pl.ID, 0, "sum", 1)
		want := "job failed: job sum: VM sum-1 (" + name + ") on host h1 exited with status 3"
		if !errors.Is(err, xenlibvirt.ErrJobFailed) || !strings.Contains(err.Error(), want) {
			t.Fatalf("keep %v: Apply: %v\nwant %q", keep, err, want)
		}
		for _, s := range rc.app.Started() {
			if strings.Contains(s, "-p2-") {
				t.Errorf("keep %v: phase 2's %s started after phase 1 failed", keep, s)
			}
		}
		if j.Phases[0].Status != xenlibvirt.StatusFailed || j.Phases[1].Status != xenlibvirt.StatusPending {
			t.Errorf("keep %v: phases %s, %s", keep, j.Phases[0].Status, j.Phases[1].Status)
		}
		if !keep {
			assertEmpty(t, rc.c)
			continue
		}
		// Kept: both VMs with their overlays and seeds, until destroy.
		if v := rc.c.Volumes(t, 1); len(v) != 2 {
			t.Errorf("kept on h1: %v, want an overlay and a seed", v)
		}
		res, err := xenlibvirt.Destroy(j, rc.c.Connector(nil), state, nil)
		if err != nil || res.Removed != 2 {
			t.Errorf("destroy: %+v, %v", res, err)
		}
		assertEmpty(t, rc.c)
	}
}

func TestAJobWithoutAStatusLineFails(t *testing.T) {
	rc := newRunCluster(t, exitsWith(map[string]string{"-sum-0": "Kernel panic - not syncing"}), nil)
	_, err := xenlibvirt.Apply(context.Background(), rc.pl, rc.hs, nil)
	if !errors.Is(err, xenlibvirt.ErrJobFailed) || !strings.Contains(err.Error(), "powered off without reporting an exit status") {
		t.Fatalf("Apply: %v", err)
	}
	assertEmpty(t, rc.c)
}

// TestDerivedPhaseTimeout: sum-0 never powers off; phase 1 is predicted to
// last 0.2 s, so with a boot allowance of 1 s it is stopped after
// 2 × 0.2 s, rounded up to 1 s, + 1 s = 2 s.
func TestDerivedPhaseTimeout(t *testing.T) {
	rc := newRunCluster(t, exitsWith(nil), func(name string) bool { return strings.HasSuffix(name, "-sum-0") })
	_, err := xenlibvirt.Apply(context.Background(), rc.pl, rc.hs, &xenlibvirt.Settings{BootAllowance: time.Second})
	want := "phase timed out after 2s (2 × predicted 0.2 s + boot allowance 1s): 1 VMs still running: " +
		xenlibvirt.DomainName(rc.pl.ID, 0, "sum", 0) + " (job sum, host h0)"
	if !errors.Is(err, xenlibvirt.ErrPhaseTimeout) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Apply: %v\nwant %q", err, want)
	}
	assertEmpty(t, rc.c)
}

func TestDerivedPhaseTimeoutRule(t *testing.T) {
	for _, c := range []struct {
		pred  float64
		allow time.Duration
		want  time.Duration
	}{
		{0.2, time.Second, 2 * time.Second},                  // ⌈0.4⌉ s + 1 s
		{62, 5 * time.Minute, 7*time.Minute + 4*time.Second}, // 124 s + 300 s
		{0, time.Minute, time.Minute},
	} {
		if got := xenlibvirt.DerivedPhaseTimeout(c.pred, c.allow); got != c.want {
			t.Errorf("DerivedPhaseTimeout(%v, %v) = %v, want %v", c.pred, c.allow, got, c.want)
		}
	}
}

// TestDeploymentAddressesAndMACs: W2 on 2 hosts has 6 + 4 + 4 = 14 VMs;
// on 10.77.0.0/24 from offset 10 they get .10 to .23 in deployment order,
// and every MAC of the plan differs, across phases too. A /28 holds 5 VM
// addresses (offsets 10 to 14), too few: the plan is refused before
// anything is touched, naming the subnet.
func TestDeploymentAddressesAndMACs(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	c.Inventory.Subnet = "10.77.0.0/24"
	if err := c.Inventory.Validate(); err != nil {
		t.Fatal(err)
	}
	hs := connect(t, pl, c, nil)
	d, err := xenlibvirt.NewDeployment(pl, c.Inventory, hs.Facts)
	if err != nil {
		t.Fatal(err)
	}
	macs := map[string]string{}
	v := 0
	for _, pd := range d.Phases {
		for _, vm := range pd.VMs {
			if want := fmt.Sprintf("10.77.0.%d/24", 10+v); vm.Address.String() != want {
				t.Errorf("%s: address %s, want %s", vm.Name, vm.Address, want)
			}
			if other, dup := macs[vm.MAC]; dup {
				t.Errorf("MAC %s of %s is %s's too", vm.MAC, vm.Name, other)
			}
			macs[vm.MAC] = vm.Name
			if !strings.Contains(vm.XML, "<mac address=\""+vm.MAC+"\"></mac>") && !strings.Contains(vm.XML, "<mac address=\""+vm.MAC+"\"/>") {
				t.Errorf("%s: domain XML lacks its MAC", vm.Name)
			}
			v++
		}
	}
	if v != 14 {
		t.Fatalf("%d VMs, want 14", v)
	}
	c.Inventory.Subnet = "10.77.0.16/28"
	problems := xenlibvirt.Check(pl, c.Inventory, hs.Facts)
	want := "subnet 10.77.0.16/28 has 5 VM addresses (from first_address 10 to the last before the broadcast), the plan has 14 VMs; give a larger subnet"
	if len(problems) != 1 || problems[0] != want {
		t.Errorf("Check on a /28: %q\nwant %q", problems, want)
	}
}

// TestHostsCheckNetworkAndBridge: a host whose libvirt has no network of
// the inventory's name, or no bridge of its name, fails the check naming it.
func TestHostsCheckNetworkAndBridge(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM, libvirttest.HostSpec{}, libvirttest.HostSpec{Bridge: "br-packer"})
	c.Inventory.Hosts[0].Network = "packer"
	c.Inventory.Hosts[1].Network, c.Inventory.Hosts[1].Bridge = "", "br-packer"
	rep := xenlibvirt.CheckHosts(pl, c.Inventory, c.Connector(nil))
	want := "host h0: network packer: not found: no libvirt network named packer (virsh net-list --all)"
	if *rep.Fits || len(rep.Problems) != 1 || rep.Problems[0] != want {
		t.Errorf("problems %q\nwant [%q]", rep.Problems, want)
	}
	c.Inventory.Hosts[0].Network, c.Inventory.Hosts[0].Bridge = "", "br-nope"
	rep = xenlibvirt.CheckHosts(pl, c.Inventory, c.Connector(nil))
	want = "host h0: bridge br-nope: not found: the host has no network interface br-nope (ip link show br-nope)"
	if *rep.Fits || len(rep.Problems) != 1 || rep.Problems[0] != want {
		t.Errorf("problems %q\nwant [%q]", rep.Problems, want)
	}
}

// noConsole is a host that says it is QEMU/KVM (not the test driver) and
// cannot give a console.
type noConsole struct{ xenlibvirt.Hypervisor }

func (n noConsole) Facts() (xenlibvirt.HostFacts, error) {
	f, err := n.Hypervisor.Facts()
	f.Type, f.VirtTypes = "QEMU", []string{"kvm", "qemu"}
	return f, err
}

func (noConsole) Console(string, io.Writer) (func(), <-chan error, error) {
	return nil, nil, errors.New("console is in use by another client")
}

// TestAnUnreadableConsoleFailsAJob: on a real host whose console cannot be
// read, a job with a run spec cannot report its status, and fails.
func TestAnUnreadableConsoleFailsAJob(t *testing.T) {
	rc := newRunCluster(t, exitsWith(nil), nil)
	hs := connect(t, rc.pl, rc.c, func(_ int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor { return noConsole{hv} })
	var log bytes.Buffer
	_, err := xenlibvirt.Apply(context.Background(), rc.pl, hs, &xenlibvirt.Settings{Log: &log})
	if !errors.Is(err, xenlibvirt.ErrJobFailed) || !strings.Contains(err.Error(), "powered off, but its console could not be read for its exit status: console is in use by another client") {
		t.Fatalf("Apply: %v", err)
	}
	if !strings.Contains(log.String(), ": console not readable: console is in use by another client") {
		t.Errorf("log:\n%s", log.String())
	}
	assertEmpty(t, rc.c)
}
