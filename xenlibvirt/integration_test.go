//go:build integration

// Integration tests against a real libvirtd with QEMU (KVM where /dev/kvm is
// usable, else TCG) and the tiny appliance test/itest/build-appliance.sh
// builds. test/itest/run.sh starts virtlogd and libvirtd by PID, runs these
// with -tags integration and stops the daemons by PID; `make itest` calls it.

package xenlibvirt_test

import (
	"context"
	"errors"
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

// TestIntegrationTwoPhasesOnQEMU applies the two-phase plan: each phase boots
// two real VMs of the appliance, which runs its job and powers off; packer
// sees the power-offs through lifecycle events, tears the phase down and
// goes on to the next.
func TestIntegrationTwoPhasesOnQEMU(t *testing.T) {
	q, pl := itestSetup(t, "console=ttyS0 quiet panic=-1 packer.run=sleep,1")
	hs, err := xenlibvirt.Connect(pl, q.Inventory, xenlibvirt.Libvirt)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
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
	hs, err := xenlibvirt.Connect(pl, inv, xenlibvirt.Libvirt)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	state := filepath.Join(q.Work, "state.json")
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
	q.AssertOnlyForeign(t)

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
	q.AssertOnlyForeign(t)
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
