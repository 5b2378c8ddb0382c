package xenlibvirt_test

import (
	"context"
	"errors"
	"fmt"
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
// guest runs its job at once, and returns once the watch has been handed
// its power-off. So wait, which drains only after launch, finds the stale
// stop, the start and the power-off in one batch, in that order.
type staleStop struct {
	xenlibvirt.Hypervisor
	guest *libvirt.Connect // the guest's side, to power it off
	subs  watchers
	mu    sync.Mutex
	stale int                      // stale stops handed out
	off   map[string]chan struct{} // closed once a domain's power-off was handed on
}

func (h *staleStop) offCh(name string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.off == nil {
		h.off = map[string]chan struct{}{}
	}
	if h.off[name] == nil {
		h.off[name] = make(chan struct{})
	}
	return h.off[name]
}

func (h *staleStop) Watch(fn func(xenlibvirt.Event)) (func(), error) {
	stop, err := h.Hypervisor.Watch(func(ev xenlibvirt.Event) {
		fn(ev)
		if ev.Shutdown {
			close(h.offCh(ev.Domain))
		}
	})
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
	if err := d.Shutdown(); err != nil {
		return err
	}
	select {
	case <-h.offCh(name):
		return nil
	case <-time.After(time.Minute): // the test driver reports in milliseconds
		return fmt.Errorf("%s: no power-off reported within a minute", name)
	}
}

// TestStaleStopOfAnEarlierIncarnationIsIgnored: every VM's start is preceded
// by a "destroyed" stop of an earlier VM of its name, and the VM has run and
// powered off before wait looks; the plan still applies, and the log names
// each stop ignored. A stop read as the VM's own would fail phase 1 with
// "VM … destroyed before its job finished"; so would one read by whether a
// start had arrived by the time wait drained, not by the order of events.
func TestStaleStopOfAnEarlierIncarnationIsIgnored(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	// Hosts are connected at once: each wrapper has its own slot.
	hvs := make([]*staleStop, len(c.Conns))
	hs := connect(t, pl, c, func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		hvs[i] = &staleStop{Hypervisor: hv, guest: c.Conns[i].Libvirt()}
		return hvs[i]
	})
	// A phase timeout well past the test driver's milliseconds: a wait that
	// misses its VMs' stops fails within 30 s, not after the derived timeout.
	var log syncBuffer
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, &xenlibvirt.Settings{PhaseTimeout: 30 * time.Second, Log: &log})
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
	ignored := strings.Count(log.String(), "(destroyed) ignored: it came before this VM's start")
	if stale != 14 || j.Status != xenlibvirt.StatusDone || finished != 14 || ignored != 14 {
		t.Errorf("stale stops %d, status %s, VMs finished %d, stops logged as ignored %d; want 14, done, 14, 14", stale, j.Status, finished, ignored)
	}
	assertEmpty(t, c)
}

// syncBuffer is a log that apply's goroutines may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
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

// newLaggy wraps hv; the connector calls it off the test goroutine, so it
// returns its error rather than failing t.
func newLaggy(t *testing.T, hv xenlibvirt.Hypervisor, lag func() time.Duration) (*laggy, error) {
	l := &laggy{Hypervisor: hv, feed: make(chan lateEvent, 1024), quit: make(chan struct{})}
	stop, err := hv.Watch(func(ev xenlibvirt.Event) {
		select {
		case l.feed <- lateEvent{time.Now().Add(lag()), ev}:
		case <-l.quit:
		}
	})
	if err != nil {
		return nil, err
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
	return l, nil
}

func (l *laggy) Watch(fn func(xenlibvirt.Event)) (func(), error) { return l.subs.add(fn), nil }

// TestLateStartStaysWithItsPhase: one Hosts serves two Apply calls, and
// every event of the first reaches the watches 2 s late, far longer than
// the second takes to subscribe. The first Apply's phase 1 fails at h1's
// first start, which boots the domain but reports failure (a reply lost on
// the way back), after h0's VMs of it started (their jobs run on); its
// teardown destroys all four. The second Apply starts them again at once.
// Had the first phase's watch ended before the late starts came, they and
// the "destroyed" stops behind them would reach the second Apply's watch
// and fail it: "VM … destroyed before its job finished".
func TestLateStartStaysWithItsPhase(t *testing.T) {
	pl := plantest.PaperPair(t, "W2", 2)
	c := libvirttest.NewCluster(t, 2, xenlibvirt.KVM)
	var mu sync.Mutex
	first := true
	during := func() bool { mu.Lock(); defer mu.Unlock(); return first }
	libvirttest.NewAppliance(t, c, func(string) bool { return during() })
	down := errors.New("unable to connect to server: connection refused (simulated)")
	// Hosts are connected at once: each has its slot for an error.
	errs := make([]error, len(c.Conns))
	hs, err := xenlibvirt.Connect(pl, c.Inventory, c.Connector(func(i int, hv xenlibvirt.Hypervisor) xenlibvirt.Hypervisor {
		l, err := newLaggy(t, hv, func() time.Duration {
			if during() {
				return 2 * time.Second
			}
			return 0
		})
		if err != nil {
			errs[i] = err
			return nil
		}
		if i == 0 {
			return l
		}
		return faulty{Hypervisor: l, start: func(name string) error {
			if !during() {
				return nil
			}
			if err := l.Start(name); err != nil {
				return err
			}
			return down
		}}
	}))
	if err != nil {
		t.Fatal(err, errs)
	}
	t.Cleanup(hs.Close)
	set := &xenlibvirt.Settings{Parallel: 1, PhaseTimeout: 30 * time.Second}
	j, err := xenlibvirt.Apply(context.Background(), pl, hs, set)
	if !errors.Is(err, down) || j.Phases[0].Status != xenlibvirt.StatusFailed {
		t.Fatalf("first Apply: %v; want h1's start refused, phase 1 failed", err)
	}
	// Parallel 1 launches by host: h0's 3 VMs of phase 1 started, then h1's
	// first started and was reported refused; all 4 destroyed and undefined.
	destroyed := 0
	for _, l := range j.Log {
		if strings.HasSuffix(l, "destroyed and undefined") {
			destroyed++
		}
	}
	if destroyed != 4 {
		t.Fatalf("first Apply destroyed %d VMs, want 4:\n%s", destroyed, strings.Join(j.Log, "\n"))
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
