package xenlibvirt

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestUnsettledUntilEveryLaunchedVMStarted: a phase's queue is settled once
// the start of every VM launch started has come, or its host was lost; a
// stop, or a start of the same name on another host, does not count.
func TestUnsettledUntilEveryLaunchedVMStarted(t *testing.T) {
	q := newEventQueue()
	q.launched(1, "b")
	q.launched(1, "a")
	q.launched(0, "a")
	a0, a1, b1 := vmKey{0, "a"}, vmKey{1, "a"}, vmKey{1, "b"}
	for i, s := range []struct {
		host      int
		ev        Event
		unsettled []vmKey
	}{
		{0, Event{Domain: "a", Reason: "destroyed"}, []vmKey{a0, a1, b1}},
		{0, Event{Domain: "a", Started: true}, []vmKey{a1, b1}},
		{0, Event{Domain: "b", Started: true}, []vmKey{a1, b1}}, // host 0 launched no b
		{1, Event{Domain: "a", Started: true}, []vmKey{b1}},
		{1, Event{Err: errors.New("connection lost")}, nil}, // 1/b's start will not come
	} {
		q.push(s.host, s.ev)
		if got := q.unsettled(); !slices.Equal(got, s.unsettled) {
			t.Errorf("after event %d (host %d, %+v): unsettled %v, want %v", i, s.host, s.ev, got, s.unsettled)
		}
	}
}

// TestSettleReturnsWhenTheLastStartComes: settle, waiting with a grace the
// test does not reach (a missed wake-up hangs it until go test's timeout),
// returns nothing once the start is handed over; with no start, it returns
// the VM when its grace passes.
func TestSettleReturnsWhenTheLastStartComes(t *testing.T) {
	q := newEventQueue()
	q.launched(0, "a")
	go q.push(0, Event{Domain: "a", Started: true})
	if late := q.settle(time.Hour); late != nil {
		t.Errorf("settle returned %v, want nil", late)
	}
	q = newEventQueue()
	q.launched(0, "a")
	q.push(0, Event{Domain: "a", Reason: "destroyed"})
	if late := q.settle(10 * time.Millisecond); !slices.Equal(late, []vmKey{{0, "a"}}) {
		t.Errorf("settle returned %v, want host 0's a, whose start never came", late)
	}
}

// TestTimeoutErrorNamesStartsNeverReported: at the phase timeout, a VM
// whose start wait drained is still running; one whose start never came is
// named apart; the error is ErrPhaseTimeout.
func TestTimeoutErrorNamesStartsNeverReported(t *testing.T) {
	vm := func(host int, hostName, name, job string) VMDeploy {
		var d VMDeploy
		d.Host, d.HostName, d.Name, d.Meta.Job = host, hostName, name, job
		return d
	}
	w := &phaseWait{pending: map[vmKey]VMDeploy{
		{0, "v-0"}: vm(0, "h0", "v-0", "sort"),
		{1, "v-1"}: vm(1, "h1", "v-1", "sort"),
		{1, "w-0"}: vm(1, "h1", "w-0", "grep"),
	}, startDrained: map[vmKey]bool{{0, "v-0"}: true, {1, "w-0"}: true}}
	err := w.timeoutError(90*time.Second, "as given")
	want := "phase timed out after 1m30s (as given): 2 VMs still running: v-0 (job sort, host h0), w-0 (job grep, host h1); libvirt reported no start of 1 VMs: v-1 (job sort, host h1)"
	if err == nil || err.Error() != want || !errors.Is(err, ErrPhaseTimeout) {
		t.Errorf("got %v\nwant %s (ErrPhaseTimeout)", err, want)
	}
	w.startDrained[vmKey{1, "v-1"}] = true
	want = "phase timed out after 1m30s (as given): 3 VMs still running: v-0 (job sort, host h0), v-1 (job sort, host h1), w-0 (job grep, host h1)"
	if err := w.timeoutError(90*time.Second, "as given"); err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
