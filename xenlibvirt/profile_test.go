package xenlibvirt_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/packer-sched/packer/profile"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// TestTallyArithmetic checks the sums by hand and what profile.Measure
// makes of them.
func TestTallyArithmetic(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := func(d float64) time.Time { return t0.Add(time.Duration(d * float64(time.Second))) }
	sec := func(d float64) time.Duration { return time.Duration(d * float64(time.Second)) }
	tally := xenlibvirt.Tally{
		// VM a: started at 0 s, off at 10 s, sampled from 0.1 s to 9.9 s; CPU 1 → 9 s, read 0 → 100 MB,
		// written 0 → 50 MB, its bytes moving between the samples at 2 s and 8 s; at 2 s its vCPUs had
		// run 3 s and waited 1 s, at 9.9 s run 9 s and waited 2 s.
		{Host: 0, Name: "a", Start: s(0), Stop: s(10), Sampled: true, IOFrom: s(2), IOTo: s(8),
			FirstAt: s(0.1), LastAt: s(9.9), JobAt: s(2),
			First: xenlibvirt.Counters{CPU: sec(1), VCPU: sec(1)},
			Job:   xenlibvirt.Counters{CPU: sec(3.5), VCPU: sec(3), Delay: sec(1)},
			Last:  xenlibvirt.Counters{CPU: sec(9), VCPU: sec(9), Delay: sec(2), ReadBytes: 100e6, WriteBytes: 50e6}},
		// VM b: started at 1 s, off at 12 s, its last sample at 6.5 s; read 10 → 30 MB between 3 s
		// and 11 s; from 3 s to 6.5 s its vCPUs ran 1 s and waited 10 s (more than they could have
		// run: the sampling's jitter).
		{Host: 1, Name: "b", Start: s(1), Stop: s(12), Sampled: true, IOFrom: s(3), IOTo: s(11),
			FirstAt: s(1.1), LastAt: s(6.5), JobAt: s(3),
			First: xenlibvirt.Counters{CPU: sec(2), VCPU: sec(2), ReadBytes: 10e6},
			Job:   xenlibvirt.Counters{CPU: sec(4), VCPU: sec(4), ReadBytes: 10e6},
			Last:  xenlibvirt.Counters{CPU: sec(12), VCPU: sec(5), Delay: sec(10), ReadBytes: 30e6}},
		// VM c: started at 1 s, off at 11 s, no bytes moved, so its window is all its samples,
		// 1.2 s to 10.7 s: its vCPUs ran 0.5 → 8.5 s and waited 0 → 5 s.
		{Host: 1, Name: "c", Start: s(1), Stop: s(11), Sampled: true,
			FirstAt: s(1.2), LastAt: s(10.7), JobAt: s(1.2),
			First: xenlibvirt.Counters{CPU: sec(1), VCPU: sec(0.5)},
			Job:   xenlibvirt.Counters{CPU: sec(1), VCPU: sec(0.5)},
			Last:  xenlibvirt.Counters{CPU: sec(10), VCPU: sec(8.5), Delay: sec(5)}},
	}
	r := tally.Run(2)
	// Wall: first start 0 s to last power-off 12 s = 12 s; read 100 + 20 = 120 MB; written 50 MB;
	// bytes moving from 2 s to 11 s = 9 s. vCPU time in the windows: a 9 − 3 = 6 s, b 5 − 4 = 1 s,
	// c 8.5 − 0.5 = 8 s, 15 s in all; offered, 2 vCPUs × window − waited: a 2 × 7.9 − 1 = 14.8 s,
	// b 2 × 3.5 − 10 = −3 s, raised to its 1 s of vCPU time, c 2 × 9.5 − 5 = 14 s, 29.8 s in all.
	want := profile.Run{Wall: sec(12), CPU: sec(15), CPUOffered: sec(29.8), ReadBytes: 120e6, WriteBytes: 50e6, IOSpan: sec(9)}
	if r != want {
		t.Fatalf("Run() = %+v, want %+v", r, want)
	}
	obs, err := profile.Measure(context.Background(), []string{"job"}, &profile.MeasureSettings{
		Nodes: []int{3}, VCPUsPerNode: 2, Executor: fixedRun{r}, Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	// Utilisation 15 s / 29.8 s offered = 0.50336 (not 15 s / (12 s × 3 VMs
	// × 2 vCPUs) = 0.2083); rate over the span the bytes moved in,
	// (120 + 50) MB / 9 s = 18.8889 MB/s.
	o := obs[0]
	if math.Abs(*o.CPUUtil-15/29.8) > 1e-12 || math.Abs(*o.IOMBps-170.0/9) > 1e-12 || o.Seconds != 12 || o.CPUSeconds != 15 {
		t.Errorf("observation %+v: util %v, rate %v", o, *o.CPUUtil, *o.IOMBps)
	}
}

type fixedRun struct{ r profile.Run }

func (f fixedRun) Execute(context.Context, []string, []string) (profile.Run, error) { return f.r, nil }

// guests plays the appliance on the test driver: every packer domain
// powers off after its job, which takes run (hold may keep one running);
// onStart sees each boot first.
func guests(t *testing.T, c *libvirttest.Cluster, run time.Duration, hold func(string) bool, onStart func(string)) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := false
	for _, conn := range c.Conns {
		lc := conn.Libvirt()
		stop, err := conn.OnLifecycle(func(name string, ev libvirt.DomainEventLifecycle) {
			if ev.Event != libvirt.DOMAIN_EVENT_STARTED || !strings.HasPrefix(name, "packer-") {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if done {
				return
			}
			if onStart != nil {
				onStart(name)
			}
			if hold != nil && hold(name) {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(run)
				if d, err := lc.LookupDomainByName(name); err == nil {
					_ = d.Shutdown()
					d.Free()
				}
			}()
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	t.Cleanup(func() {
		mu.Lock()
		done = true
		mu.Unlock()
		wg.Wait()
	})
}

func profileSettings(c *libvirttest.Cluster, nodes ...int) *xenlibvirt.ProfileSettings {
	return &xenlibvirt.ProfileSettings{Inventory: c.Inventory, Connector: c.Connector(nil), Job: "sort",
		Nodes: nodes, Poll: 20 * time.Millisecond, RunTimeout: time.Minute}
}

// TestProfileOnTestDriver profiles on libvirt's test driver, whose counters
// are fixed functions of the time of day: each vCPU's time is the time of
// day in ns / 10000 (virDomainGetVcpus; the driver reports no run delay),
// its disk's rd_bytes the time of day in µs / 20 and wr_bytes in µs / 40.
// Every VM's deltas keep written = read / 2 (one BlockStats call) and
// read = vCPU ns / 4 (2 vCPUs × 1/10000 against 1/20000) up to the time
// between the GetVcpus and BlockStats calls of a sample, which differs
// between the first and the last sample by a few ms on a loaded machine:
// 1.7 % of a 0.3 s window was seen, so 10 % is allowed; its bytes move
// far less than 1 MiB a poll, so its window is the whole run, whose vCPU
// time cannot exceed 2/10000 of the time it ran, and the utilisation is
// 2 vCPUs × 1/10000 over 2 vCPUs × 1, 1/10000.
func TestProfileOnTestDriver(t *testing.T) {
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM) // 2 hosts × 2 disks, 4 CPUs: VMs of 2 vCPUs
	const job = 300 * time.Millisecond
	guests(t, c, job, nil, nil)
	var log bytes.Buffer
	set := profileSettings(c, 1, 2, 3)
	set.Log = &log
	obs, err := xenlibvirt.Profile(context.Background(), []string{"sort-job", "{nodes}"}, set)
	if err != nil {
		t.Fatalf("Profile: %v\n%s", err, log.String())
	}
	if len(obs) != 3 {
		t.Fatalf("%d observations, want 3", len(obs))
	}
	for i, o := range obs {
		n := float64(i + 1)
		if o.Nodes != i+1 || o.Failed {
			t.Fatalf("run %d: %+v", i, o)
		}
		cpuNS := o.CPUSeconds * 1e9
		if rel(float64(o.ReadBytes)*4, cpuNS) > 0.1 || rel(float64(o.WriteBytes)*2, float64(o.ReadBytes)) > 0.01 {
			t.Errorf("%d VMs: read %d B, written %d B, vCPU %.7f s: want read = vCPU ns/4, written = read/2", o.Nodes, o.ReadBytes, o.WriteBytes, o.CPUSeconds)
		}
		// Each VM runs at least the job's 0.3 s and is sampled to within a
		// poll (20 ms) of its end; wall spans every VM. Its start is
		// stamped when the meter hears that libvirt's start returned, and
		// guests starts the job's clock at the started event, which libvirt
		// may deliver before that: the wall can fall short of the job by
		// that gap (0.299 s was seen on a busy CI run), so a poll is allowed.
		if o.Seconds < job.Seconds()-0.02 || o.CPUSeconds > n*2e-4*o.Seconds || o.CPUSeconds < n*2e-4*(job.Seconds()-0.1) {
			t.Errorf("%d VMs: wall %.3f s, vCPU %.7f s", o.Nodes, o.Seconds, o.CPUSeconds)
		}
		// The window is timed by when its samples' reads began, the counters
		// by when libvirt answered: 10 % of slack for a loaded machine.
		if u := *o.CPUUtil; rel(u, 1e-4) > 0.1 {
			t.Errorf("%d VMs: utilisation %.3g, want 1e-4", o.Nodes, u)
		}
		// The counters move all along: the rate is over at least the 0.3 s
		// job less a poll at either end, and at most the whole run.
		if r, mb := *o.IOMBps, float64(o.ReadBytes+o.WriteBytes)/1e6; r < mb/o.Seconds || r > mb/(job.Seconds()-0.05) {
			t.Errorf("%d VMs: rate %v", o.Nodes, r)
		}
	}
	for _, want := range []string{"packer-profile-n3-r1-p1-sort-2: started", "profile sort: 3 VMs, repeat 1: "} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	assertEmpty(t, c)
}

func rel(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300) }

// TestProfilePlanSpreadsOverHostsThenDisks: VM i on host i mod H, disk ⌊i/H⌋.
func TestProfilePlanSpreadsOverHostsThenDisks(t *testing.T) {
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	pl, err := xenlibvirt.ProfilePlan(c.Inventory, "sort", 3, 1, 2, 1024)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, hp := range pl.Phases[0].Hosts {
		for _, v := range hp.VMs {
			got += strings.Repeat(" ", min(len(got), 1)) + string(rune('0'+hp.Host)) + "/" + string(rune('0'+*v.Disk)) + ":" + string(rune('0'+v.Index))
		}
	}
	if got != "0/0:0 0/1:2 1/0:1" {
		t.Errorf("placement %q", got)
	}
	if _, err := xenlibvirt.ProfilePlan(c.Inventory, "sort", 5, 1, 2, 1024); err == nil || !strings.Contains(err.Error(), "room for 4 (2 hosts × 2 disks") {
		t.Errorf("5 VMs on 2 × 2: %v", err)
	}
}

func TestProfileDryRunChangesNothing(t *testing.T) {
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	var log bytes.Buffer
	set := profileSettings(c, 1, 3)
	set.DryRun, set.Log = true, &log
	obs, err := xenlibvirt.Profile(context.Background(), []string{"sha256sum", "/dev/vda"}, set)
	if err != nil || obs != nil {
		t.Fatalf("dry run: %v, %v", obs, err)
	}
	for _, want := range []string{"packer.run=sha256sum,/dev/vda", "## 3 VMs (plan profile-n3-r1", "h1 packer-profile-n3-r1-p1-sort-1: disk /srv/h1/disk0/"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, log.String())
		}
	}
	assertEmpty(t, c)
	set.DryRun, set.Nodes = true, []int{5}
	if _, err := xenlibvirt.Profile(context.Background(), []string{"x"}, set); err == nil {
		t.Error("5 VMs on 2 hosts × 2 disks accepted")
	}
	if _, err := xenlibvirt.Profile(context.Background(), []string{"a b"}, profileSettings(c, 1)); err == nil {
		t.Error("a word with a space accepted")
	}
}

// TestProfileRunTimeout: the guests at 2 VMs never power off; that run
// fails, naming its VMs, is torn down, and the next run goes on.
func TestProfileRunTimeout(t *testing.T) {
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	guests(t, c, 50*time.Millisecond, func(name string) bool { return strings.Contains(name, "-n2-") }, nil)
	set := profileSettings(c, 1, 2, 3)
	set.RunTimeout = 500 * time.Millisecond
	onlyMiddleRunFails(t, c, set, "2 VMs, repeat 1: phase timed out after 500ms (as given): 2 VMs still running: packer-profile-n2-r1-p1-sort-0 (job sort, host h0), packer-profile-n2-r1-p1-sort-1 (job sort, host h1)")
}

// TestProfileInterrupted: cancelled while the second VM count runs, Profile
// keeps the first count's run, drops the second and leaves nothing.
func TestProfileInterrupted(t *testing.T) {
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	guests(t, c, 50*time.Millisecond, func(name string) bool { return strings.Contains(name, "-n2-") },
		func(name string) {
			if strings.HasSuffix(name, "-n2-r1-p1-sort-1") {
				cancel() // as Ctrl-C would
			}
		})
	obs, err := xenlibvirt.Profile(ctx, []string{"x"}, profileSettings(c, 1, 2, 3))
	if !errors.Is(err, profile.ErrInterrupted) {
		t.Fatalf("err %v, want interrupted", err)
	}
	if len(obs) != 1 || obs[0].Nodes != 1 || obs[0].Failed {
		t.Errorf("observations %+v", obs)
	}
	assertEmpty(t, c)
}

// TestProfileHostLostMidRun: host h1's connection drops while the run at 2
// VMs waits; that run fails naming the host, is torn down, and the run at
// 3 VMs goes on.
func TestProfileHostLostMidRun(t *testing.T) {
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	guests(t, c, 100*time.Millisecond, nil, nil)
	var lost *lossyCounting
	set := profileSettings(c, 1, 2, 3)
	set.Connector = c.Connector(func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		if i != 1 {
			return hv
		}
		if lost == nil {
			lost = &lossyCounting{lossy: lossy{Hypervisor: hv, dropAt: 1}}
		}
		return lost
	})
	onlyMiddleRunFails(t, c, set, "2 VMs, repeat 1: host h1: connection to test:///h1.xml lost")
}

// onlyMiddleRunFails profiles "x" with set at three VM counts and checks that
// only the second run fails, with an error holding want, and that nothing
// is left on c.
func onlyMiddleRunFails(t *testing.T, c *libvirttest.Cluster, set *xenlibvirt.ProfileSettings, want string) {
	t.Helper()
	obs, err := xenlibvirt.Profile(context.Background(), []string{"x"}, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 3 || obs[0].Failed || !obs[1].Failed || obs[2].Failed {
		t.Fatalf("observations %+v", obs)
	}
	if e := obs[1].Error; !strings.Contains(e, want) {
		t.Errorf("error %q", e)
	}
	assertEmpty(t, c)
}

// lossyCounting is lossy that still reads counters.
type lossyCounting struct{ lossy }

func (l *lossyCounting) Counters(name string) (xenlibvirt.Counters, error) {
	return l.Hypervisor.(xenlibvirt.CounterReader).Counters(name)
}

// freezer stops a profile dead, as SIGKILL would: from the start of
// domain name on, every call that would change a host blocks for ever, so
// that what the journal on disk holds then is all that was made.
type freezer struct {
	name    string
	once    sync.Once
	reached chan struct{}
}

func (f *freezer) wrap(hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor { return &frozen{hv, f} }

func (f *freezer) stopped() bool {
	select {
	case <-f.reached:
		return true
	default:
		return false
	}
}

type frozen struct {
	xenlibvirt.Hypervisor
	f *freezer
}

func (h *frozen) block() {
	if h.f.stopped() {
		select {} // dead
	}
}

func (h *frozen) Counters(name string) (xenlibvirt.Counters, error) {
	return h.Hypervisor.(xenlibvirt.CounterReader).Counters(name)
}

func (h *frozen) CreateOverlay(pool, name, backing, format string, gib int) (string, error) {
	h.block()
	return h.Hypervisor.CreateOverlay(pool, name, backing, format, gib)
}

func (h *frozen) Define(xml string) error { h.block(); return h.Hypervisor.Define(xml) }

func (h *frozen) Start(name string) error {
	if name == h.f.name {
		h.f.once.Do(func() { close(h.f.reached) })
	}
	h.block()
	return h.Hypervisor.Start(name)
}

func (h *frozen) Destroy(name string) error   { h.block(); return h.Hypervisor.Destroy(name) }
func (h *frozen) Undefine(name string) error  { h.block(); return h.Hypervisor.Undefine(name) }
func (h *frozen) DeleteVolume(p string) error { h.block(); return h.Hypervisor.DeleteVolume(p) }

// settledFile returns path's content once it has not changed for quiet
// (failing after 20 s).
func settledFile(t *testing.T, path string, quiet time.Duration) []byte {
	t.Helper()
	last, since := []byte(nil), time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, last) {
			last, since = data, time.Now()
		} else if time.Since(since) >= quiet {
			return data
		}
	}
	t.Fatalf("%s still changing after 20 s", path)
	return nil
}

// TestProfileKilledMidRunDestroyFindsAll: with a journal (StatePath), a
// profile stopped dead in its second run when it starts a domain it has
// defined (every later change to the hosts blocked, as SIGKILL would leave
// them) has journaled every VM it made, and Destroy, which packer destroy
// --state runs, removes them all; a new profile refuses to start while the
// journal lists live VMs.
func TestProfileKilledMidRunDestroyFindsAll(t *testing.T) {
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	guests(t, c, 50*time.Millisecond, nil, nil)
	f := &freezer{name: "packer-profile-n2-r1-p1-sort-1", reached: make(chan struct{})}
	set := profileSettings(c, 1, 2)
	set.StatePath = filepath.Join(t.TempDir(), xenlibvirt.ProfileStateFile("sort"))
	set.Connector = c.Connector(func(_ int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor { return f.wrap(hv) })
	done := make(chan error, 1)
	go func() {
		_, err := xenlibvirt.Profile(context.Background(), []string{"x"}, set)
		done <- err
	}()
	select {
	case <-f.reached:
	case err := <-done:
		t.Fatalf("profile ended before its second run started: %v", err)
	}
	// The other host's deployment may be inside a step (a disk being made)
	// when the freeze comes; it journals that step and freezes at its next
	// call, as a process killed between steps would stand. Read the journal
	// once it has stopped changing.
	data := settledFile(t, set.StatePath, 500*time.Millisecond)
	// The dead process's lock went with it: Destroy works on a copy.
	killed := filepath.Join(t.TempDir(), "killed.state.json")
	if err := os.WriteFile(killed, data, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := xenlibvirt.ReadJournalFile(killed)
	if err != nil {
		t.Fatal(err)
	}
	live := j.LiveVMs()
	if j.Plan != "profile-n2-r1" || len(live) == 0 {
		t.Fatalf("journal of plan %s lists %d live VMs, want profile-n2-r1's", j.Plan, len(live))
	}
	if _, err := xenlibvirt.Profile(context.Background(), []string{"x"}, &xenlibvirt.ProfileSettings{Inventory: c.Inventory,
		Connector: c.Connector(nil), Job: "sort", Nodes: []int{1}, StatePath: killed}); !errors.Is(err, xenlibvirt.ErrStateExists) {
		t.Errorf("profile over a journal with live VMs: %v, want ErrStateExists", err)
	}
	res, err := xenlibvirt.Destroy(j, c.Connector(nil), killed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed+res.Gone != len(live) {
		t.Errorf("destroy removed %d and found %d gone of %d live VMs", res.Removed, res.Gone, len(live))
	}
	assertEmpty(t, c)
}
