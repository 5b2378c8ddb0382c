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

	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// errCrashed is what a crashed process's calls return once the test lets
// its goroutines go: nothing more reaches libvirt.
var errCrashed = errors.New("the process crashed here (simulated)")

// crash is one point where apply dies: the nth call of method naming
// target (a domain, volume or path containing it), before the call reaches
// libvirt or, if after, once libvirt has done it and before apply hears
// back. Whatever is in the state file then is what a killed process
// leaves. Calls other goroutines had already made when it died run to
// their end first, as libvirtd finishes the requests it has received
// when their sender dies: without that, a domain another launch was
// defining at the crash could appear only after the test had destroyed
// what the journal names (TestCrashWithParallelLaunchesLeavesNothing,
// one run in many).
type crash struct {
	method string
	target string
	nth    int
	after  bool

	mu       sync.Mutex
	calls    int
	dead     bool
	inFlight sync.WaitGroup
	reached  chan struct{}
	release  chan struct{}
}

func newCrash(method, target string, nth int, after bool) *crash {
	return &crash{method: method, target: target, nth: nth, after: after,
		reached: make(chan struct{}), release: make(chan struct{})}
}

// at runs do, the call method makes with arg, unless the process has died
// or dies here.
func (c *crash) at(method, arg string, do func() error) error {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return errCrashed
	}
	hit := false
	if method == c.method && strings.Contains(arg, c.target) {
		c.calls++
		hit = c.calls == c.nth
	}
	if !hit {
		c.inFlight.Add(1)
		c.mu.Unlock()
		defer c.inFlight.Done()
		return do()
	}
	c.dead = true
	c.mu.Unlock()
	if c.after {
		_ = do()
	}
	c.inFlight.Wait()
	close(c.reached)
	<-c.release
	return errCrashed
}

// crashing is a host's libvirt in a process that dies at c.
type crashing struct {
	xenlibvirt.Hypervisor
	c *crash
}

func (h crashing) CreateOverlay(pool, name, backing, format string, gib int) (path string, err error) {
	err = h.c.at("CreateOverlay", name, func() error {
		path, err = h.Hypervisor.CreateOverlay(pool, name, backing, format, gib)
		return err
	})
	return path, err
}

func (h crashing) UploadVolume(pool, name string, data []byte) (path string, err error) {
	err = h.c.at("UploadVolume", name, func() error {
		path, err = h.Hypervisor.UploadVolume(pool, name, data)
		return err
	})
	return path, err
}

func (h crashing) Define(xml string) error {
	return h.c.at("Define", xml, func() error { return h.Hypervisor.Define(xml) })
}

func (h crashing) Start(name string) error {
	return h.c.at("Start", name, func() error { return h.Hypervisor.Start(name) })
}

func (h crashing) Destroy(name string) error {
	return h.c.at("Destroy", name, func() error { return h.Hypervisor.Destroy(name) })
}

func (h crashing) Undefine(name string) error {
	return h.c.at("Undefine", name, func() error { return h.Hypervisor.Undefine(name) })
}

func (h crashing) DeleteVolume(path string) error {
	return h.c.at("DeleteVolume", path, func() error { return h.Hypervisor.DeleteVolume(path) })
}

// crashCluster is the run cluster (two hosts; phase 1 runs sum on 2 VMs,
// each with a seed volume; phase 2 sort on 2) with a foreign domain on each
// host, one running and one defined, that nothing of packer's may touch.
type crashCluster struct {
	*runCluster
	foreign [][]string // per host, as Domains lists them
}

func newCrashCluster(t *testing.T) *crashCluster {
	t.Helper()
	rc := newRunCluster(t, exitsWith(nil), nil)
	cc := &crashCluster{runCluster: rc}
	for i := range rc.c.Conns {
		rc.c.Foreign(t, i, fmt.Sprintf("bystander-%d", i), i == 0)
		rc.c.Foreign(t, i, fmt.Sprintf("idle-%d", i), false)
		cc.foreign = append(cc.foreign, rc.c.Domains(t, i))
	}
	return cc
}

// hosts connects to the cluster again, each host's libvirt wrapped by wrap
// (nil: as it is) over the consoles the run cluster plays.
func (cc *crashCluster) hosts(t *testing.T, wrap func(xenlibvirt.Hypervisor) xenlibvirt.Hypervisor) *xenlibvirt.Hosts {
	t.Helper()
	return connect(t, cc.pl, cc.c, func(_ int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		hv = guestHV{Hypervisor: hv, transcript: exitsWith(nil), mu: &sync.Mutex{}, uploads: map[string][]byte{}}
		if wrap != nil {
			hv = wrap(hv)
		}
		return hv
	})
}

// assertClean fails the test if anything packer made is left on a host or
// a foreign domain changed.
func (cc *crashCluster) assertClean(t *testing.T) {
	t.Helper()
	assertEmpty(t, cc.c)
	for i := range cc.c.Conns {
		if got := cc.c.Domains(t, i); !slices.Equal(got, cc.foreign[i]) {
			t.Errorf("host %d: domains %v, want the foreign ones as they were: %v", i, got, cc.foreign[i])
		}
	}
}

// crashApply applies cc's plan in a process that dies at c, one VM
// operation at a time so that the crash point is exact, and returns a copy
// of the state file as the dead process left it (its lock went with it).
// The dead process's goroutines are let go when the test ends.
func crashApply(t *testing.T, cc *crashCluster, c *crash) string {
	t.Helper()
	return crashApplyParallel(t, cc, c, 1)
}

// crashApplyParallel is crashApply with parallel VM operations at a time:
// the other workers' calls in flight when the process dies complete, and
// every later call fails, as in a process that died; their journal writes
// go to disk together (a group commit).
func crashApplyParallel(t *testing.T, cc *crashCluster, c *crash, parallel int) string {
	t.Helper()
	hs := cc.hosts(t, func(hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor { return crashing{hv, c} })
	dir := t.TempDir()
	state := filepath.Join(dir, "packer-run.state.json")
	done := make(chan error, 1)
	go func() {
		_, err := xenlibvirt.Apply(context.Background(), cc.pl, hs, &xenlibvirt.Settings{Parallel: parallel, StatePath: state, RunDir: xenlibvirt.RunDir(state)})
		done <- err
	}()
	t.Cleanup(func() { close(c.release); <-done })
	select {
	case <-c.reached:
	case err := <-done:
		done <- err
		t.Fatalf("apply ended before the crash at %s of %s: %v", c.method, c.target, err)
	case <-time.After(time.Minute):
		t.Fatalf("apply never reached %s of %s", c.method, c.target)
	}
	// The dead process shares the hosts' connections with the next one,
	// which must not be handed its late events.
	cc.c.Flush(t)
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join(t.TempDir(), "packer-run.state.json")
	if err := os.WriteFile(killed, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return killed
}

// record returns the journal's record of the named VM.
func record(t *testing.T, j *xenlibvirt.Journal, name string) xenlibvirt.VMRecord {
	t.Helper()
	for _, r := range j.VMs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("the journal has no record of %s: %+v", name, j.VMs)
	return xenlibvirt.VMRecord{}
}

// hostHas reports whether any host has a domain or volume whose name holds
// s.
func hostHas(t *testing.T, c *libvirttest.Cluster, s string) bool {
	t.Helper()
	for i := range c.Conns {
		for _, x := range append(c.Domains(t, i), c.Volumes(t, i)...) {
			if strings.Contains(x, s) {
				return true
			}
		}
	}
	return false
}

// crashPoints are the places apply may die at, with the state the crashed
// VM's record must then be in. The launch's points are at phase 1's second
// VM (the first is by then running); the teardown's at its second too (the
// first is by then removed). Destroy is not among them: the appliance's
// guests power off, so teardown has nothing to destroy.
var crashPoints = []struct {
	method string
	nth    int
	state  string
}{
	{"CreateOverlay", 1, xenlibvirt.StateCreating},
	{"UploadVolume", 1, xenlibvirt.StateSeeding},
	{"Define", 1, xenlibvirt.StateDefining},
	{"Start", 1, xenlibvirt.StateStarting},
	{"Undefine", 1, xenlibvirt.StateFinished},
	{"DeleteVolume", 1, xenlibvirt.StateUndefined}, // the overlay
	{"DeleteVolume", 2, xenlibvirt.StateUndefined}, // the seed volume
}

// TestCrashAtEveryStepLeavesNothing kills apply at every call that changes a
// host, before libvirt has done it and after, and checks that the state
// file then names what may exist (the intent is on disk before the call),
// and that both destroy and apply --resume, working from that file alone,
// leave nothing packer made on any host and every foreign domain as it was.
func TestCrashAtEveryStepLeavesNothing(t *testing.T) {
	for _, p := range crashPoints {
		for _, after := range []bool{false, true} {
			for _, then := range []string{"destroy", "resume"} {
				name := fmt.Sprintf("%s-%d/after=%v/%s", p.method, p.nth, after, then)
				t.Run(name, func(t *testing.T) {
					cc := newCrashCluster(t)
					d, err := xenlibvirt.NewDeployment(cc.pl, cc.c.Inventory, cc.hs.Facts)
					if err != nil {
						t.Fatal(err)
					}
					vm := d.Phases[0].VMs[1]
					killed := crashApply(t, cc, newCrash(p.method, vm.Name, p.nth, after))
					j, err := xenlibvirt.ReadJournalFile(killed)
					if err != nil {
						t.Fatal(err)
					}
					if r := record(t, j, vm.Name); r.State != p.state || r.Disk != vm.DiskPath || r.Pool != vm.Pool || r.Volume != vm.Volume || r.UUID != vm.UUID {
						t.Errorf("record of the crashed VM %+v: want state %s, disk %s (volume %s in pool %s), UUID %s", r, p.state, vm.DiskPath, vm.Volume, vm.Pool, vm.UUID)
					}
					if p.method == "CreateOverlay" && hostHas(t, cc.c, vm.Name) != after {
						t.Errorf("crash %s creating its disk: the host has it: %v", map[bool]string{false: "before", true: "after"}[after], !after)
					}
					switch then {
					case "destroy":
						var log bytes.Buffer
						live := len(j.LiveVMs())
						res, err := xenlibvirt.Destroy(j, cc.c.Connector(nil), killed, &log)
						if err != nil {
							t.Fatalf("destroy: %v\n%s", err, log.String())
						}
						if res.Removed+res.Gone != live || live == 0 {
							t.Errorf("destroy: %+v of %d live VMs", res, live)
						}
						after, err := xenlibvirt.ReadJournalFile(killed)
						if err != nil {
							t.Fatal(err)
						}
						if live := after.LiveVMs(); len(live) != 0 || after.Status != xenlibvirt.StatusDestroyed {
							t.Errorf("journal after destroy: %s, live %+v", after.Status, live)
						}
					case "resume":
						j, err := xenlibvirt.Apply(context.Background(), cc.pl, cc.hosts(t, nil), &xenlibvirt.Settings{Resume: true, StatePath: killed})
						if err != nil {
							t.Fatalf("resume: %v", err)
						}
						if j.Status != xenlibvirt.StatusDone || len(j.LiveVMs()) != 0 {
							t.Errorf("resumed: %s with %d live VMs", j.Status, len(j.LiveVMs()))
						}
					}
					cc.assertClean(t)
				})
			}
		}
	}
}

// TestIntentNeverClaimsWhatIsNotPackers: what an unconfirmed intent names
// is removed only if it is packer's. A domain someone else defined under the
// announced name, and a volume someone else made at the announced path,
// survive destroy, which says so and fails; the same holds for an apply
// that finds them there before it begins.
func TestIntentNeverClaimsWhatIsNotPackers(t *testing.T) {
	for _, tc := range []struct {
		method string
		squat  func(t *testing.T, cc *crashCluster, host int, vm xenlibvirt.VMDeploy)
		want   string
	}{
		{"Define", func(t *testing.T, cc *crashCluster, host int, vm xenlibvirt.VMDeploy) {
			cc.c.Foreign(t, host, vm.Name, false)
		}, "carries no packer metadata"},
		{"CreateOverlay", func(t *testing.T, cc *crashCluster, host int, vm xenlibvirt.VMDeploy) {
			if _, err := cc.c.Conns[host].UploadVolume(vm.Pool, vm.Volume, []byte("theirs")); err != nil {
				t.Fatal(err)
			}
		}, "is not an overlay of"},
		{"UploadVolume", func(t *testing.T, cc *crashCluster, host int, vm xenlibvirt.VMDeploy) {
			if _, err := cc.c.Conns[host].CreateOverlay(vm.Pool, vm.SeedVolume, "/var/lib/packer/images/vmlinuz", "raw", 0); err != nil {
				t.Fatal(err)
			}
		}, "so packer did not make it; left alone"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			cc := newCrashCluster(t)
			d, err := xenlibvirt.NewDeployment(cc.pl, cc.c.Inventory, cc.hs.Facts)
			if err != nil {
				t.Fatal(err)
			}
			vm := d.Phases[0].VMs[1]
			killed := crashApply(t, cc, newCrash(tc.method, vm.Name, 1, false))
			before := squatters(t, cc.c, vm.Host, vm.Name)
			tc.squat(t, cc, vm.Host, vm)
			squatted := squatters(t, cc.c, vm.Host, vm.Name)
			squatted = slices.DeleteFunc(squatted, func(x string) bool { return slices.Contains(before, x) })
			j, err := xenlibvirt.ReadJournalFile(killed)
			if err != nil {
				t.Fatal(err)
			}
			_, err = xenlibvirt.Destroy(j, cc.c.Connector(nil), killed, nil)
			if err == nil || !strings.Contains(err.Error(), vm.Name) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("destroy: %v, want an error naming %s and saying %q", err, vm.Name, tc.want)
			}
			if got := squatters(t, cc.c, vm.Host, vm.Name); len(squatted) != 1 || !slices.Contains(got, squatted[0]) {
				t.Errorf("what others made under %s: %v, now %v", vm.Name, squatted, got)
			}
			// The other VM of the phase is gone all the same.
			if other := d.Phases[0].VMs[0]; hostHas(t, cc.c, other.Name) {
				t.Errorf("%s left behind", other.Name)
			}
		})
	}
}

// squatters lists the domains and volumes of host i whose names hold name.
func squatters(t *testing.T, c *libvirttest.Cluster, i int, name string) []string {
	t.Helper()
	var out []string
	for _, x := range append(c.Domains(t, i), c.Volumes(t, i)...) {
		if strings.Contains(x, name) {
			out = append(out, x)
		}
	}
	return out
}

// TestApplyLeavesAVolumeInTheWayAlone: a volume already at a VM's disk or
// seed path is not packer's; apply fails naming it, before announcing a
// disk there, tears the phase down and leaves that volume be.
func TestApplyLeavesAVolumeInTheWayAlone(t *testing.T) {
	for _, seed := range []bool{false, true} {
		t.Run(fmt.Sprintf("seed=%v", seed), func(t *testing.T) {
			cc := newCrashCluster(t)
			d, err := xenlibvirt.NewDeployment(cc.pl, cc.c.Inventory, cc.hs.Facts)
			if err != nil {
				t.Fatal(err)
			}
			vm := d.Phases[0].VMs[1]
			name, path := vm.Volume, vm.DiskPath
			if seed {
				name, path = vm.SeedVolume, vm.SeedPath
			}
			if _, err := cc.c.Conns[vm.Host].UploadVolume(vm.Pool, name, []byte("theirs")); err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(t.TempDir(), "s.state.json")
			j, err := xenlibvirt.Apply(context.Background(), cc.pl, cc.hosts(t, nil), &xenlibvirt.Settings{Parallel: 1, StatePath: state})
			if err == nil || !strings.Contains(err.Error(), "a volume "+path+" already exists; packer leaves it alone") {
				t.Fatalf("apply: %v", err)
			}
			if len(j.LiveVMs()) != 0 {
				t.Errorf("live after the failed phase: %+v", j.LiveVMs())
			}
			if got := cc.c.Volumes(t, vm.Host); !slices.Equal(got, []string{path}) {
				t.Errorf("volumes on %s: %v, want only %s", vm.HostName, got, path)
			}
		})
	}
}

// announcing checks, at every call that makes something on a host, that
// the state file on disk already names it: the VM's record there is in the
// call's intent state, with the volume's path or the domain's UUID.
type announcing struct {
	xenlibvirt.Hypervisor
	t     *testing.T
	state string
	vms   map[string]xenlibvirt.VMDeploy // by domain name
	mu    *sync.Mutex
	calls *int
}

func (h announcing) check(method, arg, want string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.calls++
	j, err := xenlibvirt.ReadJournalFile(h.state)
	if err != nil {
		h.t.Errorf("%s %s: %v", method, arg, err)
		return
	}
	for name, vm := range h.vms {
		if !strings.Contains(arg, name) {
			continue
		}
		for _, r := range j.VMs {
			if r.Name == name && r.HostURI == vm.HostURI {
				if r.State != want || r.Disk != vm.DiskPath || r.UUID != vm.UUID || want == xenlibvirt.StateSeeding && r.Seed != vm.SeedPath {
					h.t.Errorf("%s %s: the state file on disk says %+v, want state %s", method, arg, r, want)
				}
				return
			}
		}
		h.t.Errorf("%s %s: the state file on disk has no record of %s", method, arg, name)
		return
	}
	h.t.Errorf("%s %s: names no VM of the plan", method, arg)
}

func (h announcing) CreateOverlay(pool, name, backing, format string, gib int) (string, error) {
	h.check("CreateOverlay", name, xenlibvirt.StateCreating)
	return h.Hypervisor.CreateOverlay(pool, name, backing, format, gib)
}

func (h announcing) UploadVolume(pool, name string, data []byte) (string, error) {
	h.check("UploadVolume", name, xenlibvirt.StateSeeding)
	return h.Hypervisor.UploadVolume(pool, name, data)
}

func (h announcing) Define(xml string) error {
	h.check("Define", xml, xenlibvirt.StateDefining)
	return h.Hypervisor.Define(xml)
}

func (h announcing) Start(name string) error {
	h.check("Start", name, xenlibvirt.StateStarting)
	return h.Hypervisor.Start(name)
}

// TestEveryCallIsAnnouncedOnDisk: with VMs launched in parallel (their
// journal writes gathered into shared ones), every overlay, seed volume,
// definition and start is on disk as an intent before libvirt is asked,
// over a whole run of both phases.
func TestEveryCallIsAnnouncedOnDisk(t *testing.T) {
	cc := newCrashCluster(t)
	d, err := xenlibvirt.NewDeployment(cc.pl, cc.c.Inventory, cc.hs.Facts)
	if err != nil {
		t.Fatal(err)
	}
	vms := map[string]xenlibvirt.VMDeploy{}
	for _, pd := range d.Phases {
		for _, vm := range pd.VMs {
			vms[vm.Name] = vm
		}
	}
	state := filepath.Join(t.TempDir(), "packer-run.state.json")
	calls, mu := 0, &sync.Mutex{}
	hs := cc.hosts(t, func(hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		return announcing{Hypervisor: hv, t: t, state: state, vms: vms, mu: mu, calls: &calls}
	})
	j, err := xenlibvirt.Apply(context.Background(), cc.pl, hs, &xenlibvirt.Settings{Parallel: 4, StatePath: state})
	if err != nil || j.Status != xenlibvirt.StatusDone {
		t.Fatalf("apply: %v", err)
	}
	// Four calls for each VM: overlay, seed, define, start.
	if want := 4 * len(vms); calls != want {
		t.Errorf("%d calls checked, want %d", calls, want)
	}
	cc.assertClean(t)
}

// TestCrashWithParallelLaunchesLeavesNothing is TestCrashAtEveryStepLeavesNothing
// with both of phase 1's VMs launched at once, so that their steps may be
// journaled in one write (a group commit): killed while seeding, defining or
// starting the second (before libvirt acts and after), with the first's
// launch in flight, destroy and apply --resume leave nothing packer made and
// every foreign domain as it was.
func TestCrashWithParallelLaunchesLeavesNothing(t *testing.T) {
	for _, method := range []string{"Define", "Start", "UploadVolume"} {
		for _, after := range []bool{false, true} {
			for _, then := range []string{"destroy", "resume"} {
				t.Run(fmt.Sprintf("%s/after=%v/%s", method, after, then), func(t *testing.T) {
					cc := newCrashCluster(t)
					d, err := xenlibvirt.NewDeployment(cc.pl, cc.c.Inventory, cc.hs.Facts)
					if err != nil {
						t.Fatal(err)
					}
					if n := len(d.Phases[0].VMs); n < 2 {
						t.Fatalf("phase 1 has %d VMs: too few for launches to overlap", n)
					}
					killed := crashApplyParallel(t, cc, newCrash(method, d.Phases[0].VMs[1].Name, 1, after), 2)
					j, err := xenlibvirt.ReadJournalFile(killed)
					if err != nil {
						t.Fatal(err)
					}
					if then == "destroy" {
						var log bytes.Buffer
						if _, err := xenlibvirt.Destroy(j, cc.c.Connector(nil), killed, &log); err != nil {
							t.Fatalf("destroy: %v\n%s", err, log.String())
						}
					} else {
						j, err := xenlibvirt.Apply(context.Background(), cc.pl, cc.hosts(t, nil), &xenlibvirt.Settings{Resume: true, StatePath: killed})
						if err != nil || j.Status != xenlibvirt.StatusDone || len(j.LiveVMs()) != 0 {
							t.Fatalf("resume: %v", err)
						}
					}
					cc.assertClean(t)
				})
			}
		}
	}
}
