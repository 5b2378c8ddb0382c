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
	q.launched(0, "a")
	q.launched(1, "a")
	q.launched(1, "b")
	for i, s := range []struct {
		host      int
		ev        Event
		unsettled []string
	}{
		{0, Event{Domain: "a", Reason: "destroyed"}, []string{"a", "a", "b"}},
		{0, Event{Domain: "a", Started: true}, []string{"a", "b"}},
		{0, Event{Domain: "b", Started: true}, []string{"a", "b"}}, // host 0 launched no b
		{1, Event{Domain: "a", Started: true}, []string{"b"}},
		{1, Event{Err: errors.New("connection lost")}, nil}, // 1/b's start will not come
	} {
		q.push(s.host, s.ev)
		if got := q.unsettled(); !slices.Equal(got, s.unsettled) {
			t.Errorf("after event %d (host %d, %+v): unsettled %q, want %q", i, s.host, s.ev, got, s.unsettled)
		}
	}
}

// TestSettleReturnsWhenTheLastStartComes: settle, waiting with a grace the
// test does not reach (a missed wake-up hangs it until go test's timeout),
// returns true once the start is handed over; with no start, it returns
// false when its grace passes.
func TestSettleReturnsWhenTheLastStartComes(t *testing.T) {
	q := newEventQueue()
	q.launched(0, "a")
	go q.push(0, Event{Domain: "a", Started: true})
	if !q.settle(time.Hour) {
		t.Error("settle gave up before its grace, or without the start")
	}
	q = newEventQueue()
	q.launched(0, "a")
	q.push(0, Event{Domain: "a", Reason: "destroyed"})
	if q.settle(10 * time.Millisecond) {
		t.Error("settle reported a start that never came")
	}
}
