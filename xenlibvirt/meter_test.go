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
	zeros map[string]bool
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
	if h.zeros[name] {
		return Counters{}, nil // as QEMU's domain reads while it powers off
	}
	up := time.Since(h.start[name])
	return Counters{CPU: up, VCPU: up, ReadBytes: diskBytes(name, up)}, nil
}

// diskBytes is what VM "disk" has read after running up: the 4 KiB a boot
// probe reads at 30 ms, then 200 MiB/s from 200 ms to 300 ms (20 MiB).
func diskBytes(name string, up time.Duration) int64 {
	if name != "disk" || up < 30*time.Millisecond {
		return 0
	}
	busy := min(max(up-200*time.Millisecond, 0), 100*time.Millisecond)
	return 4096 + int64(busy.Seconds()*200*(1<<20))
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
	hv.mu.Lock()
	ran := time.Since(hv.start["fast"]) // 300 ms, or more on a loaded machine
	hv.mu.Unlock()
	hv.powerOff("fast")
	time.Sleep(200 * time.Millisecond)
	hv.powerOff("slow")
	tally := m.finish()
	if len(tally) != 2 || tally[0].Name != "fast" {
		t.Fatalf("tally %+v", tally)
	}
	fast := tally[0]
	// All the time it ran, less a poll or so at the end. Half is the bar, so
	// that a loaded machine's late polls cannot fail it, while the stall it
	// guards against counted next to nothing.
	if cpu := fast.Last.CPU - fast.First.CPU; cpu < ran/2 || cpu > ran {
		t.Errorf("fast VM counted %v of CPU, want about the %v it ran", cpu, ran)
	}
	if fast.Stop.Sub(fast.Start) < 300*time.Millisecond {
		t.Errorf("fast VM ran %v", fast.Stop.Sub(fast.Start))
	}
	// No I/O: its CPU window is all its samples.
	if fast.Job != fast.First || !fast.JobAt.Equal(fast.FirstAt) || !fast.LastAt.After(fast.FirstAt) {
		t.Errorf("fast VM's window opens with %+v at %v, want its first sample %+v at %v", fast.Job, fast.JobAt, fast.First, fast.FirstAt)
	}
	// Slow's reads after the first take a second each, so its last sample
	// began at least half a second before it powered off (its first, at
	// its start, 500 ms before; or a later one, a second before its end),
	// and all that is its Tail; fast's is from its last sample to its
	// power-off; the run's is the longer of the two, named.
	slow := tally[1]
	for _, v := range []VMSpan{fast, slow} {
		if v.Tail != v.Stop.Sub(v.LastAt) {
			t.Errorf("VM %s: tail %v, want its last sample's %v before its power-off", v.Name, v.Tail, v.Stop.Sub(v.LastAt))
		}
	}
	if slow.Tail < 450*time.Millisecond {
		t.Errorf("slow VM's tail %v, want at least the 500 ms from its first sample", slow.Tail)
	}
	want, wantVM := fast.Tail, "h0 fast"
	if slow.Tail > fast.Tail {
		want, wantVM = slow.Tail, "h0 slow"
	}
	if tail, vm := tally.Tail(); tail != want || vm != wantVM {
		t.Errorf("run's tail %v (%s), want %v (%s)", tail, vm, want, wantVM)
	}
}

// TestMeterIOSpan: VM "disk" reads 4 KiB at boot and 20 MiB from 200 ms to
// 300 ms, reads as all zeros from 350 ms (as a QEMU domain does while it
// powers off: the counters vanish without an error) and is off at 400 ms.
// All it read is counted: the zeros are no sample. Sampled every 20 ms, its I/O span opens
// at the last read before 200 ms and closes with the first read after
// 300 ms (or the poll after, when the first poll past 200 ms saw less
// than 1 MiB move); the boot probe (under 1 MiB in one poll) opens none.
func TestMeterIOSpan(t *testing.T) {
	hv := &clockHV{start: map[string]time.Time{}, off: map[string]bool{}, zeros: map[string]bool{}, reads: map[string]int{}}
	m, err := startMeter([]Hypervisor{hv}, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	hv.mu.Lock()
	start := time.Now()
	hv.start["disk"] = start
	hv.mu.Unlock()
	m.started(0, "disk")
	time.Sleep(350 * time.Millisecond)
	hv.mu.Lock()
	hv.zeros["disk"] = true
	zeros := time.Since(start) // 350 ms, or more on a loaded machine
	hv.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	hv.powerOff("disk")
	v := m.finish()[0]
	from, to := v.IOFrom.Sub(start), v.IOTo.Sub(start)
	// The span opens at a sample before the I/O (200 ms; a poll of slack)
	// but after the boot probe (a span opened by it starts by 30 ms), and
	// closes at a sample after the I/O and before the counters read as zeros.
	// Late polls on a loaded machine move the ends within these bounds only.
	if from > 260*time.Millisecond || from < 50*time.Millisecond || to < 290*time.Millisecond || to > zeros+20*time.Millisecond {
		t.Errorf("I/O span %v to %v after the start, want from 50–260 ms to 290 ms–%v", from, to, zeros+20*time.Millisecond)
	}
	if got := v.Last.ReadBytes - v.First.ReadBytes; got != 4096+20<<20 {
		t.Errorf("read %d bytes, want 4 KiB + 20 MiB", got)
	}
	// The CPU window opens with the I/O span, at the sample that had read
	// the boot probe's 4 KiB and less than 1 MiB more.
	if !v.JobAt.Equal(v.IOFrom) || v.Job.ReadBytes < 4096 || v.Job.ReadBytes >= 4096+1<<20 || v.Job.VCPU < 50*time.Millisecond {
		t.Errorf("window opens with %+v at %v, want the sample at the I/O span's start %v (4 KiB to 1 MiB read)", v.Job, v.JobAt.Sub(start), from)
	}
}

// TestMeterTailOfUnreadVM: a VM none of whose reads succeeded (here: every
// read fails) went unread from its start to its power-off, all of it its
// Tail, and the run's.
func TestMeterTailOfUnreadVM(t *testing.T) {
	hv := &clockHV{start: map[string]time.Time{}, off: map[string]bool{"unread": true}, reads: map[string]int{}}
	m, err := startMeter([]Hypervisor{hv}, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	m.started(0, "unread")
	time.Sleep(50 * time.Millisecond)
	hv.powerOff("unread")
	tally := m.finish()
	v := tally[0]
	if v.Sampled || v.Tail != v.Stop.Sub(v.Start) || v.Tail < 50*time.Millisecond {
		t.Errorf("unread VM: sampled %v, tail %v, ran %v: want no sample and its whole run", v.Sampled, v.Tail, v.Stop.Sub(v.Start))
	}
	if tail, vm := tally.Tail(); tail != v.Tail || vm != "h0 unread" {
		t.Errorf("run's tail %v (%s), want %v (h0 unread)", tail, vm, v.Tail)
	}
}
