package xenlibvirt_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/xenlibvirt"
	"github.com/packer-sched/packer/xenlibvirt/libvirttest"
)

// TestWatchReportsStartsAndStopsInOrder: libvirt's test driver reports a
// domain's starts as well as its stops, and Watch hands them on in the order
// they happened, which is what tells a stop of an earlier incarnation from
// one of the current: start, destroy, start again, guest shutdown.
func TestWatchReportsStartsAndStopsInOrder(t *testing.T) {
	c := libvirttest.NewCluster(t, 1, xenlibvirt.KVM)
	conn := c.Conns[0]
	name := c.Foreign(t, 0, "web", false)
	evs := make(chan xenlibvirt.Event, 16)
	stop, err := conn.Watch(func(ev xenlibvirt.Event) { evs <- ev })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, step := range []func() error{
		func() error { return conn.Start(name) },
		func() error { return conn.Destroy(name) },
		func() error { return conn.Start(name) },
		func() error {
			d, err := conn.Libvirt().LookupDomainByName(name)
			if err != nil {
				return err
			}
			defer d.Free()
			return d.Shutdown()
		},
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	want := []xenlibvirt.Event{
		{Domain: name, Started: true},
		{Domain: name, Reason: "destroyed"},
		{Domain: name, Started: true},
		{Domain: name, Shutdown: true, Reason: "shut down"},
	}
	// The bound only keeps a missing event from hanging the test; the test
	// driver reports within milliseconds.
	deadline := time.After(10 * time.Second)
	var got []xenlibvirt.Event
	for len(got) < len(want) {
		select {
		case ev := <-evs:
			got = append(got, ev)
		case <-deadline:
			t.Fatalf("after 10 s, events %+v; want %+v", got, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("events %+v\nwant   %+v", got, want)
	}
}

// watchers is a wrapper's own set of subscribed watches, handed events in
// the order of their subscription.
type watchers struct {
	mu   sync.Mutex
	fns  map[int]func(xenlibvirt.Event)
	next int
}

// add subscribes fn; the returned function ends it.
func (w *watchers) add(fn func(xenlibvirt.Event)) func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[int]func(xenlibvirt.Event){}
	}
	w.next++
	k := w.next
	w.fns[k] = fn
	return func() {
		w.mu.Lock()
		delete(w.fns, k)
		w.mu.Unlock()
	}
}

// send hands ev to every watch subscribed now and returns how many.
func (w *watchers) send(ev xenlibvirt.Event) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(w.fns)) {
		w.fns[k](ev)
	}
	return len(w.fns)
}

// staleStop plays a stop of an earlier incarnation delivered late: Start
// first hands every watcher a "destroyed" stop of the domain, as libvirt
// does when a VM torn down before (a failed phase, --resume's clearing) is
// reported after its name was taken again, then boots the domain, whose
// guest runs its job at once: it has powered off when Start returns.
type staleStop struct {
	xenlibvirt.Hypervisor
	guest *libvirt.Connect // the guest's side, to power it off
	subs  watchers
	mu    sync.Mutex
	stale int // stale stops handed out
}

func (h *staleStop) Watch(fn func(xenlibvirt.Event)) (func(), error) {
	stop, err := h.Hypervisor.Watch(fn)
	if err != nil {
		return nil, err
	}
	remove := h.subs.add(fn)
	return func() { remove(); stop() }, nil
}

func (h *staleStop) Start(name string) error {
	n := h.subs.send(xenlibvirt.Event{Domain: name, Reason: "destroyed"})
	h.mu.Lock()
	h.stale += n
	h.mu.Unlock()
	if err := h.Hypervisor.Start(name); err != nil {
		return err
	}
	d, err := h.guest.LookupDomainByName(name)
	if err != nil {
		return err
	}
	defer d.Free()
	return d.Shutdown()
}

// TestStaleStopOfAnEarlierIncarnationIsIgnored: every VM's start is preceded
// by a "destroyed" stop of an earlier VM of its name, and the VM has run and
// powered off before wait looks; the plan still applies. A stop read as the
// VM's own would fail phase 1 with "VM … destroyed before its job finished".
func TestStaleStopOfAnEarlierIncarnationIsIgnored(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	// Hosts are connected at once: each wrapper has its own slot.
	hvs := make([]*staleStop, len(c.Conns))
	hs := connect(t, pl, c, func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		hvs[i] = &staleStop{Hypervisor: hv, guest: c.Conns[i].Libvirt()}
		return hvs[i]
	})
	// A phase timeout well past the test driver's milliseconds: a wait
	// that no longer counts its VMs' stops fails in seconds, not minutes.
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{PhaseTimeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	stale := 0
	for _, h := range hvs {
		h.mu.Lock()
		stale += h.stale
		h.mu.Unlock()
	}
	// 6 + 4 + 4 = 14 VMs, each started once under one phase watch: 14
	// stale stops, and 14 VMs that finished.
	finished := 0
	for _, v := range j.VMs {
		if v.Stopped != nil {
			finished++
		}
	}
	if stale != 14 || j.Status != xenlibvirt.StatusDone || finished != 14 {
		t.Errorf("stale stops %d, status %s, VMs finished %d; want 14, done, 14", stale, j.Status, finished)
	}
	assertEmpty(t, c)
}

// laggy hands its host's events on lag() after they happen, in order, to the
// watches subscribed then, as libvirt's event loop does on a busy machine.
type laggy struct {
	xenlibvirt.Hypervisor
	subs watchers
	feed chan lateEvent
	quit chan struct{}
}

type lateEvent struct {
	due time.Time
	ev  xenlibvirt.Event
}

func newLaggy(t *testing.T, hv xenlibvirt.Hypervisor, lag func() time.Duration) *laggy {
	t.Helper()
	l := &laggy{Hypervisor: hv, feed: make(chan lateEvent, 1024), quit: make(chan struct{})}
	stop, err := hv.Watch(func(ev xenlibvirt.Event) {
		select {
		case l.feed <- lateEvent{time.Now().Add(lag()), ev}:
		case <-l.quit:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-l.quit:
				return
			case le := <-l.feed:
				select {
				case <-l.quit:
					return
				case <-time.After(time.Until(le.due)):
				}
				l.subs.send(le.ev)
			}
		}
	}()
	t.Cleanup(func() { stop(); close(l.quit); <-done })
	return l
}

func (l *laggy) Watch(fn func(xenlibvirt.Event)) (func(), error) { return l.subs.add(fn), nil }

// TestLateStartStaysWithItsPhase: one Hosts serves two Apply calls, and
// every event of the first reaches the watches 2 s late. The first Apply's
// phase 1 fails at h1's first start, after h0's VMs of it started (their
// jobs run on); its teardown destroys them. The second Apply starts them
// again at once. Had the first phase's watch ended before the late starts
// came, they and the "destroyed" stops behind them would reach the second
// Apply's watch and fail it: "VM … destroyed before its job finished".
func TestLateStartStaysWithItsPhase(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	var mu sync.Mutex
	first := true
	during := func() bool { mu.Lock(); defer mu.Unlock(); return first }
	libvirttest.NewAppliance(t, c, func(string) bool { return during() })
	down := errors.New("unable to connect to server: connection refused (simulated)")
	hs := connect(t, pl, c, func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		hv = newLaggy(t, hv, func() time.Duration {
			if during() {
				return 2 * time.Second
			}
			return 0
		})
		if i == 0 {
			return hv
		}
		return faulty{Hypervisor: hv, start: func(string) error {
			if during() {
				return down
			}
			return nil
		}}
	})
	set := &xenlibvirt.Settings{Parallel: 1, PhaseTimeout: 30 * time.Second}
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, set)
	if !errors.Is(err, down) || j.Phases[0].Status != xenlibvirt.StatusFailed {
		t.Fatalf("first Apply: %v; want h1's start refused, phase 1 failed", err)
	}
	// Parallel 1 launches by host: h0's 3 VMs of phase 1 started, then h1's
	// first was refused; all 3 destroyed and undefined.
	destroyed := 0
	for _, l := range j.Log {
		if strings.HasSuffix(l, "destroyed and undefined") {
			destroyed++
		}
	}
	if destroyed != 3 {
		t.Fatalf("first Apply destroyed %d VMs, want 3:\n%s", destroyed, strings.Join(j.Log, "\n"))
	}
	mu.Lock()
	first = false
	mu.Unlock()
	j, err = xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{PhaseTimeout: 30 * time.Second})
	if err != nil || j.Status != xenlibvirt.StatusDone {
		t.Fatalf("second Apply: %v", err)
	}
	assertEmpty(t, c)
}
