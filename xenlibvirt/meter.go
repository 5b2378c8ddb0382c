package xenlibvirt

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/packer-sched/packer/profile"
)

// VMSpan is what packer profile saw of one VM of a run: when libvirt had
// started it and when it powered off, and its counters at the first sample
// (right after the start) and the last one before it powered off.
type VMSpan struct {
	Host        int
	Name        string
	Start, Stop time.Time
	First, Last Counters
	// FirstAt and LastAt are when the reads of First and Last began.
	FirstAt, LastAt time.Time
	// IOFrom is when the last read began before the VM's byte counters
	// first moved by at least ioSpanFloor from one sample to the next, IOTo
	// when the read that showed their last such move ended: the VM's job
	// did its I/O within [IOFrom, IOTo]. Both are zero when the bytes never
	// moved that much.
	IOFrom, IOTo time.Time
	// Job is the sample that opens the window the VM's CPU utilisation is
	// taken over, read at JobAt: the one read at IOFrom, the job's first
	// I/O (the boot before it left out), or First when the bytes never
	// moved that much. The window closes with Last.
	Job   Counters
	JobAt time.Time
	// Sampled is false when not even the first sample could be read.
	Sampled bool
	// Tail is how long before Stop the read of Last began (from Start when
	// no sample was read; 0 with no Stop): what the VM did in it is not
	// counted, the counters being gone by the next read. A Tail longer than
	// the appliance lingers after its job says the job may not be counted
	// at all. (A stall between two samples loses nothing: the counters are
	// cumulative.)
	Tail time.Duration
}

// Tally is the VMs of one run.
type Tally []VMSpan

// Run sums a run of VMs of vcpus vCPUs each up as profile.Run: Wall is the
// latest Stop minus the earliest Start (a VM with no Stop, which only a
// failed run has, ends at neither); bytes are Σ over the VMs of Last −
// First; IOSpan is the latest IOTo minus the earliest IOFrom (0 when no
// VM's bytes moved 1 MiB in a poll), which spans every such move. CPU is
// the vCPU time of the VMs' windows, Σ Last.VCPU − Job.VCPU, and CPUOffered
// the time their vCPUs could have run in them, Σ vcpus × (LastAt − JobAt)
// − (Last.Delay − Job.Delay): the window less the time the vCPUs waited
// for a host CPU (never below the VM's vCPU time, which sampling jitter
// could otherwise put it under).
func (t Tally) Run(vcpus int) profile.Run {
	var r profile.Run
	var first, last, ioFrom, ioTo time.Time
	for _, v := range t {
		if !v.IOFrom.IsZero() && (ioFrom.IsZero() || v.IOFrom.Before(ioFrom)) {
			ioFrom = v.IOFrom
		}
		if v.IOTo.After(ioTo) {
			ioTo = v.IOTo
		}
		if first.IsZero() || v.Start.Before(first) {
			first = v.Start
		}
		if v.Stop.After(last) {
			last = v.Stop
		}
		if v.Sampled {
			busy := v.Last.VCPU - v.Job.VCPU
			offered := time.Duration(max(vcpus, 1))*v.LastAt.Sub(v.JobAt) - (v.Last.Delay - v.Job.Delay)
			r.CPU += busy
			r.CPUOffered += max(offered, busy)
			r.ReadBytes += v.Last.ReadBytes - v.First.ReadBytes
			r.WriteBytes += v.Last.WriteBytes - v.First.WriteBytes
		}
	}
	if !first.IsZero() && last.After(first) {
		r.Wall = last.Sub(first)
	}
	if !ioFrom.IsZero() && ioTo.After(ioFrom) {
		r.IOSpan = ioTo.Sub(ioFrom)
	}
	return r
}

// Tail is the longest Tail of the run's VMs, and which VM's ("h<host>
// <name>"; "" when every Tail is 0).
func (t Tally) Tail() (time.Duration, string) {
	var tail time.Duration
	vm := ""
	for _, v := range t {
		if v.Tail > tail {
			tail, vm = v.Tail, fmt.Sprintf("h%d %s", v.Host, v.Name)
		}
	}
	return tail, vm
}

// ioSpanFloor is the least that a VM's disks must move between two samples
// to count as its job's I/O for the span the I/O rate is taken over: the
// firmware and the kernel probing a disk at boot read a few KiB, and a job
// that moves less than 1 MiB a poll (5 MB/s at the default 200 ms) is no
// I/O-bound job.
const ioSpanFloor = 1 << 20

// vmKey names a VM by host index and domain name (meter's samples, and
// run's waits for stops).
type vmKey struct {
	host int
	name string
}

// meter samples the counters of a run's VMs while they run and records
// when each powered off, from its own lifecycle subscription.
//
// Every VM has a sampler of its own. A read of a domain that libvirt is
// busy with (a QEMU guest that is powering off holds its domain for
// seconds under TCG) blocks until libvirt lets go; one sampler for all VMs
// then saw no VM at all meanwhile, and a VM that did its job and powered off
// within that stall was counted as having done nothing.
type meter struct {
	readers []CounterReader
	poll    time.Duration
	mu      sync.Mutex
	vms     map[vmKey]*VMSpan
	stops   map[vmKey]time.Time
	unwatch []func()
	quit    chan struct{}
	wg      sync.WaitGroup
}

// startMeter watches every host; started begins sampling a VM every poll.
func startMeter(hvs []Hypervisor, poll time.Duration) (*meter, error) {
	m := &meter{poll: poll, vms: map[vmKey]*VMSpan{}, stops: map[vmKey]time.Time{}, quit: make(chan struct{})}
	for hi, hv := range hvs {
		cr, ok := hv.(CounterReader)
		if !ok {
			return nil, fmt.Errorf("host %d: its hypervisor connection cannot read domain counters", hi)
		}
		m.readers = append(m.readers, cr)
	}
	for hi, hv := range hvs {
		stop, err := hv.Watch(func(ev Event) {
			if !ev.Shutdown {
				// Only power-offs are meter's (starts come through
				// Settings.Started: meter.started); apply's own watch
				// fails the run on a lost host or another stop.
				return
			}
			now := time.Now()
			m.mu.Lock()
			k := vmKey{hi, ev.Domain}
			if _, seen := m.stops[k]; !seen {
				m.stops[k] = now
			}
			m.mu.Unlock()
		})
		if err != nil {
			for _, u := range m.unwatch {
				u()
			}
			return nil, fmt.Errorf("host %d: %w", hi, err)
		}
		m.unwatch = append(m.unwatch, stop)
	}
	return m, nil
}

// started is Settings.Started: the VM's first sample, and its sampler.
func (m *meter) started(host int, name string) {
	k := vmKey{host, name}
	m.mu.Lock()
	m.vms[k] = &VMSpan{Host: host, Name: name, Start: time.Now()}
	m.mu.Unlock()
	m.read(k)
	m.wg.Add(1)
	go m.sample(k)
}

// read samples VM k once, unless it has powered off: its first sample
// becomes First, every sample Last.
func (m *meter) read(k vmKey) {
	before := time.Now()
	c, err := m.readers[k.host].Counters(k.name)
	after := time.Now()
	if err != nil {
		return // powered off since, or not yet readable
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.vms[k]
	if v.Sampled && (c.CPU < v.Last.CPU || c.VCPU < v.Last.VCPU || c.Delay < v.Last.Delay ||
		c.ReadBytes < v.Last.ReadBytes || c.WriteBytes < v.Last.WriteBytes) {
		// Cumulative counters fall only when they vanish: a domain that
		// is powering off can report zeros. The last sample stands.
		return
	}
	if _, stopped := m.stops[k]; stopped {
		return
	}
	if !v.Sampled {
		v.First, v.FirstAt, v.Job, v.JobAt, v.Sampled = c, before, c, before, true
	} else if c.ReadBytes+c.WriteBytes-v.Last.ReadBytes-v.Last.WriteBytes >= ioSpanFloor {
		if v.IOFrom.IsZero() {
			// The job's first I/O: its CPU window opens here too.
			v.IOFrom, v.Job, v.JobAt = v.LastAt, v.Last, v.LastAt
		}
		v.IOTo = after
	}
	v.Last, v.LastAt = c, before
}

// sample reads VM k every poll until it powers off or finish.
func (m *meter) sample(k vmKey) {
	defer m.wg.Done()
	t := time.NewTicker(m.poll)
	defer t.Stop()
	for {
		select {
		case <-m.quit:
			return
		case <-t.C:
		}
		m.mu.Lock()
		_, stopped := m.stops[k]
		m.mu.Unlock()
		if stopped {
			return
		}
		m.read(k)
	}
}

// finish stops sampling and watching and returns the run's VMs by host and
// name.
func (m *meter) finish() Tally {
	select {
	case <-m.quit:
	default:
		close(m.quit)
	}
	m.wg.Wait()
	for _, u := range m.unwatch {
		u()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var t Tally
	for k, v := range m.vms {
		s := *v
		s.Stop = m.stops[k]
		switch {
		case s.Stop.IsZero():
		case s.Sampled:
			s.Tail = s.Stop.Sub(s.LastAt)
		default:
			s.Tail = s.Stop.Sub(s.Start)
		}
		t = append(t, s)
	}
	sort.Slice(t, func(a, b int) bool {
		if t[a].Host != t[b].Host {
			return t[a].Host < t[b].Host
		}
		return t[a].Name < t[b].Name
	})
	return t
}
