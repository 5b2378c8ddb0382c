package xenlibvirt_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/workloads"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// testPlan plans a built-in workload with seed 003's pair scheduler on P
// paper hosts (4 cores, 8192 MiB, k = r = 2).
func testPlan(t testing.TB, workload string, hosts int) *optimize.Plan {
	t.Helper()
	w, err := workloads.Get(workload)
	if err != nil {
		t.Fatal(err)
	}
	c := model.PaperCluster()
	c.Hosts = hosts
	p, err := optimize.NewProblem(w, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := optimize.NewPlan(p, res.Schedule, w.Name, "pair")
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// planVMs counts the plan's VMs per phase.
func planVMs(pl *optimize.Plan) []int {
	var out []int
	for _, ph := range pl.Phases {
		n := 0
		for _, h := range ph.Hosts {
			n += len(h.VMs)
		}
		out = append(out, n)
	}
	return out
}

func connect(t testing.TB, pl *optimize.Plan, c *libvirttest.Cluster, wrap func(int, xenlibvirt.Hypervisor) xenlibvirt.Hypervisor) *xenlibvirt.Hosts {
	t.Helper()
	hs, err := xenlibvirt.Connect(pl, c.Inventory, c.Connector(wrap))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.Close)
	return hs
}

// assertEmpty checks that no packer domain or disk is left on any host.
func assertEmpty(t *testing.T, c *libvirttest.Cluster) {
	t.Helper()
	for i := range c.Conns {
		for _, d := range c.Domains(t, i) {
			if strings.HasPrefix(d, "packer-") {
				t.Errorf("host %d: domain %s left behind", i, d)
			}
		}
		if v := c.Volumes(t, i); len(v) > 0 {
			t.Errorf("host %d: disks left behind: %v", i, v)
		}
	}
}

func TestApplyRunsEveryPhaseInOrder(t *testing.T) {
	// W2 on 2 hosts: phase 0 is s-srt-1 on 4 host VMs with s-kmns-1 on 2
	// extra VMs (6 VMs), phase 1 s-srt-2 (1) + s-dsim-1 (3), phase 2 s-inv-1
	// on 4: 6 + 4 + 4 = 14 VMs in 3 phases.
	pl := testPlan(t, "W2", 2)
	if got, want := planVMs(pl), []int{6, 4, 4}; !slices.Equal(got, want) {
		t.Fatalf("plan's VMs per phase = %v, want %v", got, want)
	}
	for _, parallel := range []int{1, 3, 16} {
		t.Run(fmt.Sprintf("parallel=%d", parallel), func(t *testing.T) {
			c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
			app := libvirttest.NewAppliance(t, c, nil)
			state := filepath.Join(t.TempDir(), "state.json")
			hs := connect(t, pl, c, nil)
			var log bytes.Buffer
			j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{Parallel: parallel, StatePath: state, Log: &log})
			if err != nil {
				t.Fatalf("Apply: %v\n%s", err, log.String())
			}
			if j.Status != xenlibvirt.StatusDone {
				t.Errorf("status %s, want done", j.Status)
			}
			for _, p := range j.Phases {
				if p.Status != xenlibvirt.StatusDone {
					t.Errorf("phase %d: %s", p.Index, p.Status)
				}
			}
			if len(j.VMs) != 14 || len(j.LiveVMs()) != 0 {
				t.Errorf("journal lists %d VMs, %d live; want 14, 0", len(j.VMs), len(j.LiveVMs()))
			}
			// Phases in order: every boot of phase p before any of p+1.
			started := app.Started()
			if len(started) != 14 {
				t.Fatalf("%d boots, want 14: %v", len(started), started)
			}
			last := -1
			for _, name := range started {
				p := phaseOf(t, pl.ID, name)
				if p < last {
					t.Errorf("boot of %s after phase %d had begun", name, last)
				}
				last = max(last, p)
			}
			assertEmpty(t, c)
			// The journal on disk is the one returned.
			onDisk, err := xenlibvirt.ReadJournalFile(state)
			if err != nil {
				t.Fatal(err)
			}
			if onDisk.Step != j.Step || onDisk.Status != xenlibvirt.StatusDone {
				t.Errorf("state file at step %d status %s, journal at %d", onDisk.Step, onDisk.Status, j.Step)
			}
		})
	}
}

func phaseOf(t *testing.T, plan, name string) int {
	t.Helper()
	var p int
	rest := strings.TrimPrefix(name, "packer-"+plan+"-p")
	if _, err := fmt.Sscanf(rest, "%d-", &p); err != nil {
		t.Fatalf("domain %s: no phase in its name", name)
	}
	return p
}

var _ = errors.Is
var _ = os.Remove
var _ = sort.Strings
var _ sync.Mutex
var _ = time.Second
