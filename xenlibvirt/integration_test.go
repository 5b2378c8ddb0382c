//go:build integration

// Integration tests against a real libvirtd with QEMU (KVM where /dev/kvm is
// usable, else TCG) and the tiny appliance test/itest/build-appliance.sh
// builds. test/itest/run.sh starts virtlogd and libvirtd by PID, runs these
// with -tags integration and stops the daemons by PID; `make itest` calls it.

package xenlibvirt_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// itestSetup prepares the two QEMU "hosts" (libvirttest.NewQEMUCluster) and
// a two-phase plan for them: two jobs one after the other on P = 2 hosts ×
// k = 1 disk, 2 VMs per phase with cores/k = 1 vCPU and 512 MiB / (1 + 1) =
// 256 MiB each.
func itestSetup(t *testing.T, cmdline string) (*libvirttest.QEMUCluster, *plan.Plan) {
	q := libvirttest.NewQEMUCluster(t, cmdline)
	w := &model.Workload{Name: "itest", Jobs: []model.Job{
		{Name: "wordcount", Model: model.PowerLaw{A: 60, B: -0.5}, CPUIntensive: true},
		{Name: "sort", Model: model.PowerLaw{A: 90, B: -0.7}, IOIntensive: true},
	}}
	pl := plantest.Sequential(t, w, model.Cluster{Hosts: 2, DisksPerHost: 1, ExtraRatio: 1, Alpha: 1.3, CoresPerHost: 1, MemoryMiBPerHost: 512})
	if len(pl.Phases) != 2 {
		t.Fatalf("%d phases, want 2", len(pl.Phases))
	}
	return q, pl
}

// connectQEMU connects to inv's hosts for pl through libvirt, failing t if
// it cannot, and closes the connections when t ends.
func connectQEMU(t *testing.T, pl *plan.Plan, inv *xenlibvirt.Inventory) *xenlibvirt.Hosts {
	t.Helper()
	hs, err := xenlibvirt.Connect(pl, inv, xenlibvirt.Libvirt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	return hs
}

// TestIntegrationTwoPhasesOnQEMU applies the two-phase plan: each phase boots
// two real VMs of the appliance, which runs its job and powers off; packer
// sees the power-offs through lifecycle events, tears the phase down and
// goes on to the next.
func TestIntegrationTwoPhasesOnQEMU(t *testing.T) {
	q, pl := itestSetup(t, "console=ttyS0 quiet panic=-1 packer.run=sleep,1")
	hs := connectQEMU(t, pl, q.Inventory)
	state := filepath.Join(q.Work, "state.json")
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
	q.AssertOnlyForeign(t)
}

// TestIntegrationInterruptThenResume interrupts apply while phase 0's two
// VMs run a long job: packer destroys them and journals the interruption.
// The operator then shortens the job and resumes: both phases complete.
func TestIntegrationInterruptThenResume(t *testing.T) {
	q, pl := itestSetup(t, "console=ttyS0 quiet panic=-1 packer.run=sleep,600")
	inv := q.Inventory
	hs := connectQEMU(t, pl, inv)
	state := filepath.Join(q.Work, "state.json")
	j := interruptAtSecondStart(t, pl, hs, &xenlibvirt.Settings{StatePath: state, PhaseTimeout: 5 * time.Minute})
	if j.Status != xenlibvirt.StatusInterrupted || len(j.LiveVMs()) != 0 {
		t.Errorf("journal %s with %d live VMs", j.Status, len(j.LiveVMs()))
	}
	q.AssertOnlyForeign(t)

	inv.Cmdline = "console=ttyS0 quiet panic=-1 packer.run=sleep,1"
	hs2 := connectQEMU(t, pl, inv)
	j, err := xenlibvirt.Apply(context.Background(), pl, hs2, &xenlibvirt.Settings{StatePath: state, Resume: true, PhaseTimeout: 5 * time.Minute, Log: testLog{t}})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if j.Status != xenlibvirt.StatusDone || j.NextPhase() != 2 {
		t.Errorf("after resume: %s, next phase %d", j.Status, j.NextPhase())
	}
	q.AssertOnlyForeign(t)
}

// TestIntegrationResumeKeptOnOneConnection interrupts apply with phase 0's
// VMs kept running, then resumes on the same connections, as a library
// caller may: the resume destroys the kept VMs and starts their names
// again, so their "destroyed" stops can reach the phase that starts them;
// apply must take those for the earlier VMs' and complete both phases.
func TestIntegrationResumeKeptOnOneConnection(t *testing.T) {
	q, pl := itestSetup(t, "console=ttyS0 quiet panic=-1 packer.run=sleep,600")
	hs := connectQEMU(t, pl, q.Inventory)
	state := filepath.Join(q.Work, "state.json")
	j := interruptAtSecondStart(t, pl, hs, &xenlibvirt.Settings{StatePath: state, KeepOnInterrupt: true, PhaseTimeout: 5 * time.Minute})
	if live := j.LiveVMs(); len(live) != 2 {
		t.Fatalf("journal %s with %d live VMs, want phase 0's 2 kept", j.Status, len(live))
	}
	hs.Inventory.Cmdline = "console=ttyS0 quiet panic=-1 packer.run=sleep,1"
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, Resume: true, PhaseTimeout: 5 * time.Minute, Log: testLog{t}})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if j.Status != xenlibvirt.StatusDone || j.NextPhase() != 2 {
		t.Errorf("after resume: %s, next phase %d", j.Status, j.NextPhase())
	}
	q.AssertOnlyForeign(t)
}

// interruptAtSecondStart applies pl with set, cancelling the context (as
// SIGINT would) once two VMs have started, and returns the journal of the
// interrupted run.
func interruptAtSecondStart(t *testing.T, pl *plan.Plan, hs *xenlibvirt.Hosts, set *xenlibvirt.Settings) *xenlibvirt.Journal {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := 0
	set.Log = hookLog{t: t, line: func(l string) {
		if strings.HasSuffix(l, ": started") {
			if started++; started == 2 {
				cancel()
			}
		}
	}}
	j, err := xenlibvirt.Apply(ctx, pl, hs, set)
	if !errors.Is(err, xenlibvirt.ErrInterrupted) {
		t.Fatalf("Apply: %v, want interrupted", err)
	}
	return j
}

// hookLog sends the executor's lines to the test log and to line, one at a
// time. It holds no lock of its own: Apply writes its log under its own
// mutex (and Profile from its caller's goroutine), so line needs none.
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

// jobsSetup is the two QEMU "hosts" on one isolated libvirt network with
// static addresses in 10.77.0.0/24, and a two-phase plan of jobs with run
// specs: phase 1 runs sum on 2 VMs, one a host (its master on h0, its worker
// on h1), phase 2 then, whose commands finish at once. The models predict
// 20 s phases.
func jobsSetup(t *testing.T, sum, then model.RunSpec) (*libvirttest.QEMUCluster, *plan.Plan) {
	q := libvirttest.NewQEMUCluster(t, "console=ttyS0 quiet panic=-1")
	q.UseJobNetwork(t, "10.77.0.0/24")
	w := &model.Workload{Name: "itest-jobs", Jobs: []model.Job{
		{Name: "sum", Model: model.PowerLaw{A: 40, B: -1}, CPUIntensive: true, Run: &sum},
		{Name: "then", Model: model.PowerLaw{A: 40, B: -1}, IOIntensive: true, Run: &then},
	}}
	pl := plantest.Sequential(t, w, model.Cluster{Hosts: 2, DisksPerHost: 1, ExtraRatio: 1, Alpha: 1.3, CoresPerHost: 1, MemoryMiBPerHost: 512})
	if len(pl.Phases) != 2 || pl.Phases[0].Jobs[0].Name != "sum" || pl.Phases[0].Jobs[0].VMs != 2 {
		t.Fatalf("plan: %+v", pl.Phases)
	}
	return q, pl
}

// sumSpec is the multi-VM job: the master listens on TCP 7000 for one
// connection from every other VM of the job and adds up the numbers they
// send; each worker connects to the master by its host name (from
// /etc/hosts, which the seed volume fills) and sends 40 + its index, so
// that with one worker the master prints sum=41.
var sumSpec = model.RunSpec{
	Master: `total=0; i=1; while [ "$i" -lt {vms} ]; do n=$(nc -l -p "$PORT" </dev/null); echo "received $n"; total=$((total + n)); i=$((i + 1)); done; echo "sum=$total from {vms} VMs"`,
	Workers: `ip=$(awk -v h={master} '$2 == h { print $1 }' /etc/hosts); echo "{hostname}: {master} is $ip"; ` +
		`for try in $(seq 1 60); do echo $((40 + {index})) | nc "{master}" "$PORT" && exit 0; sleep 1; done; exit 1`,
	Env: map[string]string{"PORT": "7000"},
}

// TestIntegrationJobsRunAcrossVMs applies a two-phase plan whose first job
// is a real two-VM job across the two hosts: its master adds up what its
// worker sends over TCP, found by host name. The result is in the master's
// console log and the run record; phase 2 starts only after phase 1's jobs
// exited 0; nothing is left.
func TestIntegrationJobsRunAcrossVMs(t *testing.T) {
	q, pl := jobsSetup(t, sumSpec, model.RunSpec{Command: "echo then on {hostname} after {plan}"})
	hs := connectQEMU(t, pl, q.Inventory)
	state := filepath.Join(q.Work, "packer-jobs.state.json")
	runDir := xenlibvirt.RunDir(state)
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, RunDir: runDir, BootAllowance: 4 * time.Minute, Log: testLog{t}})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	rec := xenlibvirt.NewRunRecord(pl, j)
	var table strings.Builder
	_ = rec.WriteTable(&table)
	t.Logf("run record:\n%s", table.String())
	master := filepath.Join(runDir, "console", xenlibvirt.DomainName(pl.ID, 0, "sum", 0)+".log")
	b, err := os.ReadFile(master)
	if err != nil || !strings.Contains(string(b), "sum=41 from 2 VMs") {
		t.Errorf("the master's console %s lacks sum=41: %v\n%s", master, err, b)
	}
	for _, jr := range rec.Jobs {
		if jr.Status != "ok" || jr.RanVMs != 2 || jr.MeasuredSeconds == nil || len(jr.Consoles) != 2 {
			t.Errorf("run record: %+v", jr)
		}
	}
	// The record leads to the result: sum's master's console.
	if rec.Jobs[0].Consoles[0] != master {
		t.Errorf("the record names %q as sum's master's console, want %s", rec.Jobs[0].Consoles[0], master)
	}
	// Phase 2 began after phase 1 ended, and its VMs after phase 1's
	// powered off, each with exit 0.
	if p1, p2 := j.Phases[0], j.Phases[1]; p1.Ended == nil || p2.Started == nil || p2.Started.Before(*p1.Ended) {
		t.Errorf("phase 2 started %v, phase 1 ended %v", p2.Started, p1.Ended)
	}
	obs, err := os.ReadFile(filepath.Join(runDir, xenlibvirt.ObservationsFile))
	if err != nil || !strings.HasPrefix(string(obs), "job,nodes,seconds\nsum,2,") || !strings.Contains(string(obs), "\nthen,2,") {
		t.Errorf("observations: %v\n%s", err, obs)
	}
	t.Logf("observations:\n%s", obs)
	q.AssertOnlyForeign(t)
}

// TestIntegrationFailingJob: the worker's command exits 3. apply fails
// phase 1 naming job, VM, host and status; phase 2 never starts; with
// KeepOnFailure the VMs stay until Destroy removes them.
func TestIntegrationFailingJob(t *testing.T) {
	q, pl := jobsSetup(t, model.RunSpec{Master: "echo master done", Workers: "echo failing on purpose; exit 3"}, model.RunSpec{Command: "true"})
	hs := connectQEMU(t, pl, q.Inventory)
	state := filepath.Join(q.Work, "packer-fail.state.json")
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, RunDir: xenlibvirt.RunDir(state),
		KeepOnFailure: true, BootAllowance: 4 * time.Minute, Log: testLog{t}})
	want := "job sum: VM sum-1 (" + xenlibvirt.DomainName(pl.ID, 0, "sum", 1) + ") on host h1 exited with status 3"
	if !errors.Is(err, xenlibvirt.ErrJobFailed) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Apply: %v\nwant %q", err, want)
	}
	if j.Phases[1].Status != xenlibvirt.StatusPending {
		t.Errorf("phase 2 is %s", j.Phases[1].Status)
	}
	if _, err := xenlibvirt.Destroy(j, xenlibvirt.Libvirt, state, testLog{t}); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	q.AssertOnlyForeign(t)
}

// TestIntegrationDerivedTimeout: a guest that never powers off is stopped
// at the timeout derived from the plan, 2 × 20 s + a boot allowance of
// 20 s = 60 s, naming it; nothing is left.
func TestIntegrationDerivedTimeout(t *testing.T) {
	q, pl := jobsSetup(t, model.RunSpec{Master: "echo done", Workers: "sleep 3600"}, model.RunSpec{Command: "true"})
	hs := connectQEMU(t, pl, q.Inventory)
	_, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{BootAllowance: 20 * time.Second, Log: testLog{t}})
	want := "phase timed out after 1m0s (2 × predicted 20.0 s + boot allowance 20s): 1 VMs still running: " +
		xenlibvirt.DomainName(pl.ID, 0, "sum", 1) + " (job sum, host h1)"
	if !errors.Is(err, xenlibvirt.ErrPhaseTimeout) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Apply: %v\nwant %q", err, want)
	}
	q.AssertOnlyForeign(t)
}

// docBlock returns the shell block that follows the marker "<!-- itest:
// name" in docs/applying.md, its list indentation removed.
func docBlock(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "applying.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- itest: "+name+" ")
	if !ok {
		t.Fatalf("docs/applying.md has no itest marker %q", name)
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	body, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("itest block %q is not closed", name)
	}
	var out []string
	for _, l := range strings.Split(body, "\n") {
		out = append(out, strings.TrimPrefix(l, "   "))
	}
	return strings.Join(out, "\n")
}

// sh runs script with sh -e in dir, failing the test with its output.
func sh(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LIBVIRT_DEFAULT_URI="+libvirttest.QEMUURI())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v running:\n%s\n%s", err, script, out)
	}
}

// TestIntegrationBridgeWalkthrough runs docs/applying.md's steps for one
// network across hosts on this machine: step 1's bridge (over a veth pair
// standing in for eth1) and step 2's libvirt network, as written; then
// hosts check (which found the network missing before step 2) and apply of
// the two-VM job sum across the two test hosts on that network.
func TestIntegrationBridgeWalkthrough(t *testing.T) {
	q := libvirttest.NewQEMUCluster(t, "console=ttyS0 quiet panic=-1")
	if err := exec.Command("ip", "link", "show", "br-packer").Run(); err == nil {
		t.Fatal("a link br-packer exists already; this test creates and removes its own, and leaves that one alone")
	}
	if n, err := q.Conn.Libvirt().LookupNetworkByName("packer"); err == nil {
		n.Free()
		t.Fatal("a libvirt network packer exists already; this test defines and removes its own, and leaves that one alone")
	}
	w := &model.Workload{Name: "bridge-walk", Jobs: []model.Job{{Name: "sum", Model: model.PowerLaw{A: 40, B: -1}, CPUIntensive: true, Run: &sumSpec}}}
	pl := plantest.Sequential(t, w, model.Cluster{Hosts: 2, DisksPerHost: 1, ExtraRatio: 1, Alpha: 1.3, CoresPerHost: 1, MemoryMiBPerHost: 512})
	inv := q.Inventory
	inv.Subnet, inv.FirstAddress = "10.78.0.0/24", 0
	for i := range inv.Hosts {
		inv.Hosts[i].Network = "packer"
	}
	if err := inv.Validate(); err != nil {
		t.Fatal(err)
	}
	rep := xenlibvirt.CheckHosts(pl, inv, xenlibvirt.Libvirt)
	if *rep.Fits || !strings.Contains(strings.Join(rep.Problems, "\n"), "host h0: network packer: not found: no libvirt network named packer") {
		t.Errorf("hosts check before step 2: %v", rep.Problems)
	}

	sh(t, "", "ip link add pkit-veth0 type veth peer name pkit-veth1")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", "pkit-veth0").Run() })
	bridge := docBlock(t, "bridge")
	if !strings.HasPrefix(bridge, "NIC=eth1\n") {
		t.Fatalf("step 1 no longer starts NIC=eth1:\n%s", bridge)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", "br-packer").Run() })
	sh(t, "", strings.Replace(bridge, "NIC=eth1", "NIC=pkit-veth0", 1))
	t.Cleanup(func() {
		_ = exec.Command("virsh", "-c", libvirttest.QEMUURI(), "net-destroy", "packer").Run()
		_ = exec.Command("virsh", "-c", libvirttest.QEMUURI(), "net-undefine", "packer").Run()
	})
	sh(t, t.TempDir(), docBlock(t, "network"))

	rep = xenlibvirt.CheckHosts(pl, inv, xenlibvirt.Libvirt)
	if !*rep.Fits {
		t.Fatalf("hosts check after step 2: %v", rep.Problems)
	}
	hs := connectQEMU(t, pl, inv)
	state := filepath.Join(q.Work, "packer-bridge.state.json")
	runDir := xenlibvirt.RunDir(state)
	if _, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, RunDir: runDir, BootAllowance: 4 * time.Minute, Log: testLog{t}}); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	master := filepath.Join(runDir, "console", xenlibvirt.DomainName(pl.ID, 0, "sum", 0)+".log")
	if b, err := os.ReadFile(master); err != nil || !strings.Contains(string(b), "sum=41 from 2 VMs") {
		t.Errorf("the master's console %s lacks sum=41: %v\n%s", master, err, b)
	}
	q.AssertOnlyForeign(t)
}
