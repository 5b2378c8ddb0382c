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

// staleStop plays a stop of an earlier incarnation delivered late: Start
// first hands every watcher a "destroyed" stop of the domain, as libvirt
// does when a VM torn down before (a failed phase, --resume's clearing) is
// reported after its name was taken again, then boots the domain, whose
// guest runs its job at once: it has powered off when Start returns.
type staleStop struct {
	xenlibvirt.Hypervisor
	guest    *libvirt.Connect // the guest's side, to power it off
	mu       sync.Mutex
	watchers map[int]func(xenlibvirt.Event)
	next     int
	stale    int // stale stops handed out
}

func (h *staleStop) Watch(fn func(xenlibvirt.Event)) (func(), error) {
	stop, err := h.Hypervisor.Watch(fn)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	k := h.next
	h.watchers[k] = fn
	return func() {
		h.mu.Lock()
		delete(h.watchers, k)
		h.mu.Unlock()
		stop()
	}, nil
}

func (h *staleStop) Start(name string) error {
	h.mu.Lock()
	for _, fn := range h.watchers {
		fn(xenlibvirt.Event{Domain: name, Reason: "destroyed"})
		h.stale++
	}
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
	var hvs []*staleStop
	hs := connect(t, pl, c, func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		h := &staleStop{Hypervisor: hv, guest: c.Conns[i].Libvirt(), watchers: map[int]func(xenlibvirt.Event){}}
		hvs = append(hvs, h)
		return h
	})
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, nil)
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

// laggy hands its host's events on lag after they happen, in order, to the
// watches subscribed then, as libvirt's event loop does on a busy machine.
type laggy struct {
	xenlibvirt.Hypervisor
	lag  time.Duration
	mu   sync.Mutex
	subs map[int]func(xenlibvirt.Event)
	next int
	feed chan lateEvent
	quit chan struct{}
}

type lateEvent struct {
	due time.Time
	ev  xenlibvirt.Event
}

func newLaggy(t *testing.T, hv xenlibvirt.Hypervisor, lag time.Duration) *laggy {
	t.Helper()
	l := &laggy{Hypervisor: hv, lag: lag, subs: map[int]func(xenlibvirt.Event){}, feed: make(chan lateEvent, 1024), quit: make(chan struct{})}
	stop, err := hv.Watch(func(ev xenlibvirt.Event) {
		select {
		case l.feed <- lateEvent{time.Now().Add(lag), ev}:
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
				l.mu.Lock()
				for _, k := range slices.Sorted(maps.Keys(l.subs)) {
					l.subs[k](le.ev)
				}
				l.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { stop(); close(l.quit); <-done })
	return l
}

func (l *laggy) Watch(fn func(xenlibvirt.Event)) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	k := l.next
	l.subs[k] = fn
	return func() {
		l.mu.Lock()
		delete(l.subs, k)
		l.mu.Unlock()
	}, nil
}

// TestLateStartStaysWithItsPhase: one Hosts serves two Apply calls, and
// every event reaches the watches 200 ms late. The first Apply's phase 1
// fails at h1's first start, after h0's VMs of it started (their jobs run
// on); its teardown destroys them. The second Apply starts them again at
// once. Had the first phase's watch ended before the late starts came, they
// and the "destroyed" stops behind them would reach the second Apply's
// watch and fail it: "VM … destroyed before its job finished".
func TestLateStartStaysWithItsPhase(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	var mu sync.Mutex
	first := true
	during := func() bool { mu.Lock(); defer mu.Unlock(); return first }
	libvirttest.NewAppliance(t, c, func(string) bool { return during() })
	down := errors.New("unable to connect to server: connection refused (simulated)")
	hs := connect(t, pl, c, func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		hv = newLaggy(t, hv, 200*time.Millisecond)
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
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{Parallel: 1})
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
	j, err = xenlibvirt.Apply(context.Background(), pl, hs, nil)
	if err != nil || j.Status != xenlibvirt.StatusDone {
		t.Fatalf("second Apply: %v", err)
	}
	assertEmpty(t, c)
}
