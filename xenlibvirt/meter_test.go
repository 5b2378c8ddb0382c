package xenlibvirt

import (
	"sync"
	"testing"
	"time"
)

// clockHV is a host whose running domains' CPU time is the time since they
// started (one CPU second a second), and whose reads of domain "slow" take
// a second each after the first, as libvirt's do of a QEMU guest it is busy
// powering off.
type clockHV struct {
	Hypervisor
	mu    sync.Mutex
	start map[string]time.Time
	off   map[string]bool
	reads map[string]int
	watch func(Event)
}

func (h *clockHV) Watch(fn func(Event)) (func(), error) {
	h.watch = fn
	return func() {}, nil
}

func (h *clockHV) Counters(name string) (Counters, error) {
	h.mu.Lock()
	h.reads[name]++
	slow := name == "slow" && h.reads[name] > 1
	h.mu.Unlock()
	if slow {
		time.Sleep(time.Second)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.off[name] {
		return Counters{}, ErrNotFound
	}
	return Counters{CPU: time.Since(h.start[name])}, nil
}

func (h *clockHV) powerOff(name string) {
	h.mu.Lock()
	h.off[name] = true
	h.mu.Unlock()
	h.watch(Event{Domain: name, Shutdown: true})
}

// TestMeterSlowDomainDoesNotStallOthers: VM "fast" runs 300 ms while every
// read of VM "slow" takes a second. Sampled on its own every 20 ms, fast's
// CPU is counted to within a poll of its 300 ms; one sampler for both VMs
// waited on slow and counted fast at about nothing (its first sample and
// no other before it powered off).
func TestMeterSlowDomainDoesNotStallOthers(t *testing.T) {
	hv := &clockHV{start: map[string]time.Time{}, off: map[string]bool{}, reads: map[string]int{}}
	m, err := startMeter([]Hypervisor{hv}, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"slow", "fast"} {
		hv.mu.Lock()
		hv.start[name] = time.Now()
		hv.mu.Unlock()
		m.started(0, name)
	}
	time.Sleep(300 * time.Millisecond)
	hv.powerOff("fast")
	time.Sleep(200 * time.Millisecond)
	hv.powerOff("slow")
	tally := m.finish()
	if len(tally) != 2 || tally[0].Name != "fast" {
		t.Fatalf("tally %+v", tally)
	}
	fast := tally[0]
	// 300 ms of CPU, less up to one 20 ms poll at the end (and scheduling slack).
	if cpu := fast.Last.CPU - fast.First.CPU; cpu < 200*time.Millisecond || cpu > 350*time.Millisecond {
		t.Errorf("fast VM counted %v of CPU, want about 300 ms", cpu)
	}
	if fast.Stop.Sub(fast.Start) < 300*time.Millisecond {
		t.Errorf("fast VM ran %v", fast.Stop.Sub(fast.Start))
	}
}
