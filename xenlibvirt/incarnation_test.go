package xenlibvirt_test

import (
	"slices"
	"testing"
	"time"

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
