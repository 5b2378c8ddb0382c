package xenlibvirt

import (
	"errors"
	"testing"
	"time"
)

// TestSettledOnceEveryLaunchedVMStarted: a phase's queue is settled once the
// start of every VM launch started has come, or its host was lost; a stop,
// or a start of the same name on another host, does not count.
func TestSettledOnceEveryLaunchedVMStarted(t *testing.T) {
	q := newEventQueue()
	q.launched(0, "a")
	q.launched(1, "a")
	q.launched(1, "b")
	for i, s := range []struct {
		host    int
		ev      Event
		settled bool
	}{
		{0, Event{Domain: "a", Reason: "destroyed"}, false},
		{0, Event{Domain: "a", Started: true}, false},
		{0, Event{Domain: "b", Started: true}, false}, // host 0 launched no b
		{1, Event{Domain: "a", Started: true}, false},
		{1, Event{Err: errors.New("connection lost")}, true}, // 1/b's start will not come
	} {
		q.push(s.host, s.ev)
		if got := q.settled(); got != s.settled {
			t.Errorf("after event %d (host %d, %+v): settled %v, want %v", i, s.host, s.ev, got, s.settled)
		}
	}
}

// TestSettleReturnsWhenTheLastStartComes: settle, waiting with a grace the
// test does not reach, returns once libvirt's side hands over the start.
func TestSettleReturnsWhenTheLastStartComes(t *testing.T) {
	q := newEventQueue()
	q.launched(0, "a")
	go q.push(0, Event{Domain: "a", Started: true})
	q.settle(time.Minute)
	if !q.settled() {
		t.Error("settle returned after its grace, before the start came")
	}
}
