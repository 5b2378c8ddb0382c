package xenlibvirt_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// planVMs counts the plan's VMs per phase.
func planVMs(pl *plan.Plan) []int {
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

func connect(t testing.TB, pl *plan.Plan, c *libvirttest.Cluster, wrap func(int, xenlibvirt.Hypervisor) xenlibvirt.Hypervisor) *xenlibvirt.Hosts {
	t.Helper()
	hs, err := xenlibvirt.Connect(pl, c.Inventory, c.Connector(wrap))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.Close)
	return hs
}

// deployW2 connects to two test-driver hosts of the hypervisor and makes the
// deployment of W2's pair plan on them.
func deployW2(t testing.TB, hypervisor string) (*plan.Plan, *xenlibvirt.Hosts, *xenlibvirt.Deployment) {
	t.Helper()
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, hypervisor)
	hs := connect(t, pl, c, nil)
	d, err := xenlibvirt.NewDeployment(pl, c.Inventory, hs.Facts)
	if err != nil {
		t.Fatal(err)
	}
	return pl, hs, d
}

// assertEmpty checks that no packer domain or disk is left on any host.
func assertEmpty(t *testing.T, c *libvirttest.Cluster) { t.Helper(); c.AssertNoPackerLeft(t) }

func TestApplyRunsEveryPhaseInOrder(t *testing.T) {
	// W2 on 2 hosts: phase 0 is s-srt-1 on 4 host VMs with s-kmns-1 on 2
	// extra VMs (6 VMs), phase 1 s-srt-2 (1) + s-dsim-1 (3), phase 2 s-inv-1
	// on 4: 6 + 4 + 4 = 14 VMs in 3 phases.
	pl := plantest.PaperPair(t, "W2", 2)
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
	return p - 1 // names carry the phase's number, from 1
}

// faulty injects failures into one host's libvirt.
type faulty struct {
	xenlibvirt.Hypervisor
	define func(name string) error
	start  func(name string) error
}

func (f faulty) Define(xml string) error {
	if f.define != nil {
		name := xml[strings.Index(xml, "<name>")+6 : strings.Index(xml, "</name>")]
		if err := f.define(name); err != nil {
			return err
		}
	}
	return f.Hypervisor.Define(xml)
}

func (f faulty) Start(name string) error {
	if f.start != nil {
		if err := f.start(name); err != nil {
			return err
		}
	}
	return f.Hypervisor.Start(name)
}

func inPhase(pl *plan.Plan, p int) func(string) bool {
	prefix := fmt.Sprintf("packer-%s-p%d-", pl.ID, xenlibvirt.PhaseNumber(p))
	return func(name string) bool { return strings.HasPrefix(name, prefix) }
}

// logHook calls fn with each line the executor logs.
// afterStarts is a log that calls fn once, when the n-th VM has started: the
// tests' way to act mid-phase (interrupt, kill a VM) once a phase is up.
func afterStarts(n int, fn func()) *logHook {
	started := 0
	return &logHook{line: func(l string) {
		if strings.HasSuffix(l, ": started") {
			if started++; started == n {
				fn()
			}
		}
	}}
}

type logHook struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	line func(string)
}

func (h *logHook) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf.Write(b)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if h.line != nil {
			h.line(l)
		}
	}
	return len(b), nil
}

func (h *logHook) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

func TestHostUnreachableMidPhaseTearsDownThenResumeCompletes(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	state := filepath.Join(t.TempDir(), "state.json")
	// Phase 1's VMs stay up (their jobs run on) so that the ones h0 started
	// are really running when h1 fails; h1 then refuses every start of
	// phase 1 as a host gone away would.
	app := libvirttest.NewAppliance(t, c, inPhase(pl, 1))
	down := errors.New("unable to connect to server: connection refused (simulated)")
	hs := connect(t, pl, c, func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		if i != 1 {
			return hv
		}
		return faulty{Hypervisor: hv, start: func(name string) error {
			if inPhase(pl, 1)(name) {
				return down
			}
			return nil
		}}
	})
	log := &logHook{}
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{Parallel: 1, StatePath: state, Log: log})
	if err == nil {
		t.Fatal("Apply succeeded with host h1 refusing phase 1")
	}
	// Deployment order is by host: with Parallel 1, h0's phase-1 VMs
	// (s-srt-2's and s-dsim-1's share of 2) start before h1's first fails.
	want := "host h1: VM packer-" + pl.ID + "-p2-"
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error %q does not name host h1, a phase-1 VM and the cause", err)
	}
	if got := []string{j.Phases[0].Status, j.Phases[1].Status, j.Phases[2].Status}; !slices.Equal(got, []string{"done", "failed", "pending"}) {
		t.Errorf("phases %v, want done failed pending", got)
	}
	if j.Status != xenlibvirt.StatusFailed || !strings.Contains(j.Error, "host h1") {
		t.Errorf("journal status %s error %q", j.Status, j.Error)
	}
	if live := j.LiveVMs(); len(live) != 0 {
		t.Errorf("live after teardown: %v", live)
	}
	var tornDown int
	for _, l := range j.Log {
		if strings.Contains(l, "-p2-") && strings.Contains(l, " h0 ") && strings.HasSuffix(l, "destroyed and undefined") {
			tornDown++
		}
	}
	if tornDown != 2 {
		t.Errorf("%d of h0's phase-1 VMs torn down, want 2\n%s", tornDown, log)
	}
	assertEmpty(t, c)
	app.Stop()

	// The host is back: resume runs phases 1 and 2 only.
	app2 := libvirttest.NewAppliance(t, c, nil)
	hs2 := connect(t, pl, c, nil)
	j2, err := xenlibvirt.Apply(context.Background(), pl, hs2, &xenlibvirt.Settings{Resume: true, StatePath: state})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if j2.Status != xenlibvirt.StatusDone || j2.NextPhase() != 3 {
		t.Errorf("after resume: status %s, next phase %d", j2.Status, j2.NextPhase())
	}
	for _, name := range app2.Started() {
		if inPhase(pl, 0)(name) {
			t.Errorf("resume booted phase 0's %s again", name)
		}
	}
	// 4 + 4 boots: phases 1 and 2.
	if n := len(app2.Started()); n != 8 {
		t.Errorf("resume booted %d VMs, want 8", n)
	}
	assertEmpty(t, c)
}

func TestUnreachableHostFailsBeforeAnythingChanges(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	_, err := xenlibvirt.Connect(pl, c.Inventory, c.Connector(func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		if i == 1 {
			return nil
		}
		return hv
	}))
	if err == nil || !strings.HasPrefix(err.Error(), "host h1 (test://") || !strings.HasSuffix(err.Error(), "unreachable (simulated)") {
		t.Errorf("Connect: %v, want an error naming h1 and its URI", err)
	}
	assertEmpty(t, c)
}

func TestDefineFailures(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	victim := xenlibvirt.DomainName(pl.ID, 0, "s-srt-1", 3) // on h1
	t.Run("libvirt refuses", func(t *testing.T) {
		c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
		libvirttest.NewAppliance(t, c, nil)
		hs := connect(t, pl, c, func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
			return faulty{Hypervisor: hv, define: func(name string) error {
				if name == victim {
					return errors.New("XML error: out of memory (simulated)")
				}
				return nil
			}}
		})
		j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{Parallel: 2})
		if err == nil || !strings.Contains(err.Error(), "host h1: VM "+victim+": define: XML error") {
			t.Fatalf("Apply: %v", err)
		}
		if j.Phases[0].Status != xenlibvirt.StatusFailed || j.Phases[1].Status != xenlibvirt.StatusPending {
			t.Errorf("phases %+v", j.Phases)
		}
		assertEmpty(t, c)
	})
	t.Run("name taken by a foreign domain", func(t *testing.T) {
		c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
		c.Foreign(t, 1, victim, true) // before the appliance, which would power it off
		libvirttest.NewAppliance(t, c, nil)
		hs := connect(t, pl, c, nil)
		_, err := xenlibvirt.Apply(context.Background(), pl, hs, nil)
		if err == nil || !strings.Contains(err.Error(), "host h1: VM "+victim+": define: a domain named "+victim+" already exists; packer leaves it alone") {
			t.Fatalf("Apply: %v", err)
		}
		if got := c.Domains(t, 1); !slices.Equal(got, []string{victim + "*"}) {
			t.Errorf("h1 has %v, want only the foreign %s, still running", got, victim)
		}
		assertEmptyExcept(t, c, victim)
	})
}

// assertEmptyExcept is assertEmpty allowing the named foreign domains.
func assertEmptyExcept(t *testing.T, c *libvirttest.Cluster, keep ...string) {
	t.Helper()
	for i := range c.Conns {
		for _, d := range c.Domains(t, i) {
			if strings.HasPrefix(d, "packer-") && !slices.Contains(keep, strings.TrimSuffix(d, "*")) {
				t.Errorf("host %d: domain %s left behind", i, d)
			}
		}
		if v := c.Volumes(t, i); len(v) > 0 {
			t.Errorf("host %d: disks left behind: %v", i, v)
		}
	}
}

func TestInterrupt(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
			foreign := []string{c.Foreign(t, 0, "web", true), c.Foreign(t, 1, "packer-other-p0-x-0", true)}
			libvirttest.NewAppliance(t, c, func(string) bool { return true }) // jobs never end
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// SIGINT arrives once phase 0's 6 VMs are all up.
			log := afterStarts(6, cancel)
			state := filepath.Join(t.TempDir(), "state.json")
			hs := connect(t, pl, c, nil)
			j, err := xenlibvirt.Apply(ctx, pl, hs, &xenlibvirt.Settings{StatePath: state, KeepOnInterrupt: keep, Log: log})
			if !errors.Is(err, xenlibvirt.ErrInterrupted) {
				t.Fatalf("Apply: %v, want ErrInterrupted", err)
			}
			if j.Status != xenlibvirt.StatusInterrupted || j.Phases[0].Status != xenlibvirt.StatusInterrupted {
				t.Errorf("journal %s, phase 0 %s", j.Status, j.Phases[0].Status)
			}
			onDisk, err := xenlibvirt.ReadJournalFile(state)
			if err != nil {
				t.Fatal(err)
			}
			if !keep {
				if n := len(onDisk.LiveVMs()); n != 0 {
					t.Errorf("%d VMs live after interrupt", n)
				}
				assertEmptyExcept(t, c, foreign...)
				return
			}
			// Kept: 3 VMs running on each host (2 host + 1 extra), journaled.
			if n := len(onDisk.LiveVMs()); n != 6 {
				t.Errorf("%d VMs live, want 6 kept", n)
			}
			for i := range 2 {
				running := 0
				for _, d := range c.Domains(t, i) {
					if strings.HasPrefix(d, "packer-"+pl.ID) && strings.HasSuffix(d, "*") {
						running++
					}
				}
				if running != 3 {
					t.Errorf("host h%d runs %d of packer's VMs, want 3", i, running)
				}
			}
			// A new apply without --resume refuses to run over them.
			if _, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state}); !errors.Is(err, xenlibvirt.ErrStateExists) {
				t.Errorf("second apply: %v, want ErrStateExists", err)
			}
			if _, err := xenlibvirt.Destroy(onDisk, c.Connector(nil), state, nil); err != nil {
				t.Fatalf("Destroy: %v", err)
			}
			assertEmptyExcept(t, c, foreign...)
			for i, f := range foreign {
				if got := c.Domains(t, i); !slices.Equal(got, []string{f + "*"}) {
					t.Errorf("host h%d: %v, want only %s running", i, got, f)
				}
			}
			after, _ := xenlibvirt.ReadJournalFile(state)
			if after.Status != xenlibvirt.StatusDestroyed || len(after.LiveVMs()) != 0 {
				t.Errorf("after destroy: %s, %d live", after.Status, len(after.LiveVMs()))
			}
		})
	}
}

func TestForeignDomainsAndDisksSurviveApplyAndDestroy(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	var want [][]string
	for i := range 2 {
		c.Foreign(t, i, "db", true)
		c.Foreign(t, i, "packer-"+pl.ID+"-p9-other-0", false) // packer-like name, no metadata
		want = append(want, c.Domains(t, i))
	}
	foreignDisk, err := c.Conns[0].CreateOverlay("disk0", "keep.qcow2", libvirttest.Image, "qcow2", 0)
	if err != nil {
		t.Fatal(err)
	}
	libvirttest.NewAppliance(t, c, nil)
	state := filepath.Join(t.TempDir(), "state.json")
	j, err := xenlibvirt.Apply(context.Background(), pl, connect(t, pl, c, nil), &xenlibvirt.Settings{StatePath: state})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := xenlibvirt.Destroy(j, c.Connector(nil), state, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if got := c.Domains(t, i); !slices.Equal(got, want[i]) {
			t.Errorf("host h%d: %v, want %v", i, got, want[i])
		}
	}
	if got := c.Volumes(t, 0); !slices.Equal(got, []string{foreignDisk}) {
		t.Errorf("h0 disks %v, want only %s", got, foreignDisk)
	}
}

func TestDestroyLeavesAnImpostorWithPackersName(t *testing.T) {
	pl, c, j := keptAfterInterrupt(t)
	// Someone replaces one of packer's VMs with their own of the same name.
	victim := xenlibvirt.DomainName(pl.ID, 0, "s-srt-1", 0) // on h0
	dom, err := c.Conns[0].Libvirt().LookupDomainByName(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := dom.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := dom.Undefine(); err != nil {
		t.Fatal(err)
	}
	dom.Free()
	c.Foreign(t, 0, victim, true)
	_, err = xenlibvirt.Destroy(j, c.Connector(nil), "", nil)
	if err == nil || !strings.Contains(err.Error(), "host h0: VM "+victim+": domain "+victim+" carries no packer metadata for plan "+pl.ID+"; left alone") {
		t.Fatalf("Destroy: %v", err)
	}
	if got := c.Domains(t, 0); !slices.Equal(got, []string{victim + "*"}) {
		t.Errorf("h0: %v, want only the impostor", got)
	}
	// Its disk stays listed (live) and on the host: the impostor may use it.
	if live := j.LiveVMs(); len(live) != 1 || live[0].Name != victim {
		t.Errorf("live %v, want only %s", live, victim)
	}
	if got := c.Volumes(t, 1); len(got) != 0 {
		t.Errorf("h1 disks left: %v", got)
	}
}

func TestPhaseTimeoutTearsDown(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	libvirttest.NewAppliance(t, c, func(name string) bool { return strings.HasSuffix(name, "-s-kmns-1-1") })
	// Long enough for the other five guests to power off even on a loaded
	// machine (the simulated ones do so at once).
	_, err := xenlibvirt.Apply(context.Background(), pl, connect(t, pl, c, nil), &xenlibvirt.Settings{PhaseTimeout: 1500 * time.Millisecond})
	want := "phase timed out after 1.5s (as given): 1 VMs still running: " + xenlibvirt.DomainName(pl.ID, 0, "s-kmns-1", 1) + " (job s-kmns-1, host h1)"
	if !errors.Is(err, xenlibvirt.ErrPhaseTimeout) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Apply: %v\nwant %q", err, want)
	}
	assertEmpty(t, c)
}

func TestVMStoppedFromOutsideFailsThePhase(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	libvirttest.NewAppliance(t, c, func(string) bool { return true })
	victim := xenlibvirt.DomainName(pl.ID, 0, "s-srt-1", 1)
	log := afterStarts(6, func() {
		go func() {
			d, err := c.Conns[1].Libvirt().LookupDomainByName(victim)
			if err != nil {
				d, err = c.Conns[0].Libvirt().LookupDomainByName(victim)
			}
			if err == nil {
				_ = d.Destroy()
				d.Free()
			}
		}()
	})
	_, err := xenlibvirt.Apply(context.Background(), pl, connect(t, pl, c, nil), &xenlibvirt.Settings{Log: log})
	if err == nil || !strings.Contains(err.Error(), victim+" (job s-srt-1) destroyed before its job finished") {
		t.Fatalf("Apply: %v", err)
	}
	assertEmpty(t, c)
}

func TestDryRunChangesNothing(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.Xen)
	state := filepath.Join(t.TempDir(), "state.json")
	var out bytes.Buffer
	j, err := xenlibvirt.Apply(context.Background(), pl, connect(t, pl, c, nil), &xenlibvirt.Settings{DryRun: true, StatePath: state, Log: &out})
	if err != nil || j != nil {
		t.Fatalf("dry run: %v, journal %v", err, j)
	}
	// 14 VMs: one <domain> and one create, define, start, destroy line each.
	for _, s := range []string{"<domain type=\"xen\">", ": create disk ", ": define (", ": start, copy its console\n", ": destroy, undefine, delete disk "} {
		if n := strings.Count(out.String(), s); n != 14 {
			t.Errorf("%d × %q, want 14", n, s)
		}
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("dry run wrote the state file: %v", err)
	}
	assertEmpty(t, c)
}

func TestCheckFailureTouchesNothing(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM, libvirttest.HostSpec{}, libvirttest.HostSpec{CPUs: 2})
	c.Inventory.Hosts[1].Cores = 4 // the inventory claims more than libvirt reports
	state := filepath.Join(t.TempDir(), "state.json")
	_, err := xenlibvirt.Apply(context.Background(), pl, connect(t, pl, c, nil), &xenlibvirt.Settings{StatePath: state})
	// Phase 0 puts 2 host VMs (2 vCPUs each) and 1 extra on h1: 2 × 2 = 4 > 2.
	want := "plan does not fit the hosts: host h1: phase 1 needs 4 CPUs (2 VMs × 2), libvirt says 2"
	if !errors.Is(err, xenlibvirt.ErrDoesNotFit) || err.Error() != want {
		t.Fatalf("Apply: %v\nwant %s", err, want)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("failed check wrote the state file: %v", err)
	}
	assertEmpty(t, c)
}

func TestCheckOnSimulatedHosts(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2) // 2730 MiB per VM: 8192 / (2 primary + 1 extra)
	for _, tc := range []struct {
		name  string
		specs []libvirttest.HostSpec
		edit  func(inv *xenlibvirt.Inventory)
		want  []string
	}{
		{name: "fits", specs: []libvirttest.HostSpec{{}}},
		{name: "memory", specs: []libvirttest.HostSpec{{MemoryMiB: 4096}, {}}, want: []string{
			// 3 VMs × 2730 MiB = 8190 MiB > 4096; the inventory copied libvirt.
			"host h0: phase 1 needs 8190 MiB of memory (3 VMs × 2730), the inventory says 4096",
			"host h0: phase 1 needs 8190 MiB of memory (3 VMs × 2730), libvirt says 4096",
		}},
		{name: "image", specs: []libvirttest.HostSpec{{}, {NoImage: true}}, want: []string{
			"host h1: /var/lib/packer/images/appliance.qcow2 is in none of its storage pools",
			"host h1: /var/lib/packer/images/vmlinuz is in none of its storage pools",
			"host h1: /var/lib/packer/images/initrd.img is in none of its storage pools",
		}},
		{name: "disks", specs: []libvirttest.HostSpec{{Disks: 1}}, want: []string{
			"host h0: 1 disks, the plan puts VMs on 2", "host h1: 1 disks, the plan puts VMs on 2",
		}},
		{name: "pool", edit: func(inv *xenlibvirt.Inventory) { inv.Hosts[0].Disks[1] = "/srv/nowhere" }, want: []string{
			`host h0: disk 1 "/srv/nowhere": not found: no storage pool has target /srv/nowhere (virsh pool-define-as NAME dir --target /srv/nowhere; virsh pool-start NAME)`,
		}},
		{name: "hosts", edit: func(inv *xenlibvirt.Inventory) { inv.Hosts = inv.Hosts[:1] }, want: []string{
			"inventory has 1 hosts, the plan needs 2",
		}},
		{name: "memory override", edit: func(inv *xenlibvirt.Inventory) { inv.VMMemoryMiB = 3000 }, want: []string{
			// 3 × 3000 = 9000 > 8192 on both hosts, by both accounts.
			"host h0: phase 1 needs 9000 MiB of memory (3 VMs × 3000), the inventory says 8192",
			"host h0: phase 1 needs 9000 MiB of memory (3 VMs × 3000), libvirt says 8192",
			"host h1: phase 1 needs 9000 MiB of memory (3 VMs × 3000), the inventory says 8192",
			"host h1: phase 1 needs 9000 MiB of memory (3 VMs × 3000), libvirt says 8192",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM, tc.specs...)
			if tc.edit != nil {
				tc.edit(c.Inventory)
			}
			hs, err := xenlibvirt.Connect(pl, c.Inventory, c.Connector(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer hs.Close()
			got := xenlibvirt.Check(pl, c.Inventory, hs.Facts)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Check:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestXenDomainDefinesOnTestDriver defines every Xen domain of a plan on the
// test driver and reads packer's metadata back through the Hypervisor.
func TestXenDomainDefinesOnTestDriver(t *testing.T) {
	pl, hs, d := deployW2(t, xenlibvirt.Xen)
	for _, pd := range d.Phases {
		for _, vm := range pd.VMs {
			hv := hs.HVs[vm.Host]
			if err := hv.Define(vm.XML); err != nil {
				t.Fatalf("%s: define: %v\n%s", vm.Name, err, vm.XML)
			}
			st, err := hv.Domain(vm.Name)
			if err != nil {
				t.Fatal(err)
			}
			if !xenlibvirt.Owns(pl.ID, vm.Name, st.Meta) || st.Running {
				t.Errorf("%s: read back %+v running %v", vm.Name, st.Meta, st.Running)
			}
			if *st.Meta != vm.Meta {
				t.Errorf("%s: metadata %+v, want %+v", vm.Name, *st.Meta, vm.Meta)
			}
			if err := hv.Undefine(vm.Name); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestDeploymentIdentities checks, for every phase of W2 on 2 hosts, that
// each VM has its own name, MAC, UUID and disk, that exactly VM 0 of each job
// is its master, and that VMs follow the plan's hosts and disks.
func TestDeploymentIdentities(t *testing.T) {
	pl, _, d := deployW2(t, xenlibvirt.KVM)
	for i, pd := range d.Phases {
		seen := map[string]string{}
		masters := map[string]int{}
		n := 0
		for _, hp := range pl.Phases[i].Hosts {
			n += len(hp.VMs)
		}
		if len(pd.VMs) != n {
			t.Errorf("phase %d: %d VMs, plan has %d", i, len(pd.VMs), n)
		}
		for _, vm := range pd.VMs {
			for _, id := range []string{vm.Name, vm.MAC, vm.UUID, vm.DiskPath} {
				if other, dup := seen[id]; dup {
					t.Errorf("phase %d: %s shared by %s and %s", i, id, other, vm.Name)
				}
				seen[id] = vm.Name
			}
			if vm.Name != xenlibvirt.DomainName(pl.ID, i, vm.Meta.Job, vm.Meta.Index) {
				t.Errorf("name %s", vm.Name)
			}
			if vm.Meta.Master != (vm.Meta.Index == 0) {
				t.Errorf("%s: master %v", vm.Name, vm.Meta.Master)
			}
			if vm.Meta.Master {
				masters[vm.Meta.Job]++
			}
			want := libvirttest.DiskDir(vm.HostName, vm.DiskIndex) + "/" + vm.Name + ".qcow2"
			if vm.DiskPath != want {
				t.Errorf("%s: disk %s, want %s", vm.Name, vm.DiskPath, want)
			}
		}
		for _, j := range pl.Phases[i].Jobs {
			if masters[j.Name] != 1 {
				t.Errorf("phase %d: job %s has %d masters", i, j.Name, masters[j.Name])
			}
		}
	}
	// Phase 0 of W2: per host 2 host VMs on disks 0, 1 and 1 extra (no disk
	// of its own), whose overlay goes on disk 0 mod 2 = 0.
	for _, vm := range d.Phases[0].VMs {
		if vm.Meta.Role == "extra" && vm.DiskIndex != 0 {
			t.Errorf("extra %s on disk %d, want 0", vm.Name, vm.DiskIndex)
		}
	}
}

// TestOnePhaseAtATime drives the phases by hand, out of order (--phase N):
// each run boots only its phase's VMs and the journal gathers them; the
// plan is done once every phase is.
func TestOnePhaseAtATime(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	app := libvirttest.NewAppliance(t, c, nil)
	state := filepath.Join(t.TempDir(), "state.json")
	hs := connect(t, pl, c, nil)
	booted := 0
	for k, p := range []int{1, 0, 2} {
		j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{OnePhase: true, Phase: p, StatePath: state})
		if err != nil {
			t.Fatalf("phase %d: %v", p, err)
		}
		started := app.Started()[booted:]
		booted += len(started)
		// W2 phases have 6, 4, 4 VMs.
		if want := planVMs(pl)[p]; len(started) != want {
			t.Errorf("phase %d booted %d VMs, want %d", p, len(started), want)
		}
		for _, name := range started {
			if !inPhase(pl, p)(name) {
				t.Errorf("phase %d run booted %s", p, name)
			}
		}
		wantStatus := xenlibvirt.StatusPending
		if k == 2 {
			wantStatus = xenlibvirt.StatusDone
		}
		if j.Status != wantStatus || j.Phases[p].Status != xenlibvirt.StatusDone {
			t.Errorf("after phase %d: plan %s, phase %s", p, j.Status, j.Phases[p].Status)
		}
	}
	assertEmpty(t, c)
}

// lossy is a host whose connection drops (as libvirt's close callback
// reports) once its last VM of the phase has started.
type lossy struct {
	xenlibvirt.Hypervisor
	mu      sync.Mutex
	watch   func(xenlibvirt.Event)
	starts  int
	dropAt  int
	dropped bool
}

func (l *lossy) Watch(fn func(xenlibvirt.Event)) (func(), error) {
	l.mu.Lock()
	l.watch = fn
	l.mu.Unlock()
	return l.Hypervisor.Watch(fn)
}

func (l *lossy) Start(name string) error {
	err := l.Hypervisor.Start(name)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.starts++; l.starts == l.dropAt && !l.dropped {
		l.dropped = true
		l.watch(xenlibvirt.Event{Err: errors.New("connection to test:///h1.xml lost (reason 0)")})
	}
	return err
}

func TestConnectionLostWhileWaiting(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	libvirttest.NewAppliance(t, c, func(string) bool { return true }) // jobs still running
	// h1 carries 3 VMs of phase 0 (2 host, 1 extra); it drops after the third starts.
	hs := connect(t, pl, c, func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		if i == 1 {
			return &lossy{Hypervisor: hv, dropAt: 3}
		}
		return hv
	})
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, nil)
	if err == nil || err.Error() != "host h1: connection to test:///h1.xml lost (reason 0)" {
		t.Fatalf("Apply: %v", err)
	}
	if j.Phases[0].Status != xenlibvirt.StatusFailed || len(j.LiveVMs()) != 0 {
		t.Errorf("phase 0 %s, %d live", j.Phases[0].Status, len(j.LiveVMs()))
	}
	assertEmpty(t, c)
}

// TestResumeClearsKeptVMsFirst: VMs kept running at an interrupt are torn
// down by --resume before their phase runs again; the plan then completes.
// A disk someone swapped for their own (same path, other backing file) is
// left alone by the teardown and reported.
func TestResumeClearsKeptVMsFirst(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	hold := true
	var mu sync.Mutex
	app := libvirttest.NewAppliance(t, c, func(string) bool { mu.Lock(); defer mu.Unlock(); return hold })
	ctx, cancel := context.WithCancel(context.Background())
	log := afterStarts(6, cancel)
	state := filepath.Join(t.TempDir(), "state.json")
	hs := connect(t, pl, c, nil)
	if _, err := xenlibvirt.Apply(ctx, pl, hs, &xenlibvirt.Settings{StatePath: state, KeepOnInterrupt: true, Log: log}); !errors.Is(err, xenlibvirt.ErrInterrupted) {
		t.Fatal(err)
	}
	mu.Lock()
	hold = false
	mu.Unlock()
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{StatePath: state, Resume: true})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	var cleared int
	for _, l := range j.Log {
		if strings.HasSuffix(l, "undefined") {
			cleared++
		}
	}
	// 6 kept (destroyed and undefined) + 14 run (powered off: undefined) = 20 teardowns in the log; all phases done, boots 6 + 14.
	if cleared != 20 || j.Status != xenlibvirt.StatusDone || len(app.Started()) != 20 {
		t.Errorf("teardowns %d, status %s, boots %d; want 20, done, 20", cleared, j.Status, len(app.Started()))
	}
	assertEmpty(t, c)
}

func TestDestroyLeavesASwappedDisk(t *testing.T) {
	pl, c, j := keptAfterInterrupt(t)
	// Someone replaces h0's overlay of VM s-srt-1-0 with a volume of their own.
	victim := xenlibvirt.DomainName(pl.ID, 0, "s-srt-1", 0)
	disk := libvirttest.DiskDir("h0", 0) + "/" + victim + ".qcow2"
	if err := c.Conns[0].DeleteVolume(disk); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Conns[0].CreateOverlay("disk0", victim+".qcow2", libvirttest.Kernel, "raw", 1); err != nil {
		t.Fatal(err)
	}
	_, err := xenlibvirt.Destroy(j, c.Connector(nil), "", nil)
	want := "host h0: VM " + victim + ": disk " + disk + " is not an overlay of " + libvirttest.Image + "; left alone"
	if err == nil || err.Error() != want {
		t.Fatalf("Destroy: %v\nwant %s", err, want)
	}
	if got := c.Volumes(t, 0); !slices.Equal(got, []string{disk}) {
		t.Errorf("h0 disks %v, want only the swapped %s", got, disk)
	}
	for i := range c.Conns {
		for _, d := range c.Domains(t, i) {
			t.Errorf("host h%d: domain %s left", i, d)
		}
	}
	if got := c.Volumes(t, 1); len(got) > 0 {
		t.Errorf("h1 disks left: %v", got)
	}
}

// keptAfterInterrupt applies W2 on two simulated hosts whose guests never
// power off, interrupts it once phase 1's six VMs are up, and keeps them
// (KeepOnInterrupt); it returns the plan, the hosts and the journal.
func keptAfterInterrupt(t *testing.T) (*plan.Plan, *libvirttest.Cluster, *xenlibvirt.Journal) {
	t.Helper()
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	libvirttest.NewAppliance(t, c, func(string) bool { return true })
	ctx, cancel := context.WithCancel(context.Background())
	log := afterStarts(6, cancel)
	j, err := xenlibvirt.Apply(ctx, pl, connect(t, pl, c, nil), &xenlibvirt.Settings{KeepOnInterrupt: true, Log: log})
	if !errors.Is(err, xenlibvirt.ErrInterrupted) {
		t.Fatal(err)
	}
	return pl, c, j
}
