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
	// Sampled is false when not even the first sample could be read.
	Sampled bool
}

// Tally is the VMs of one run.
type Tally []VMSpan

// Run sums a run up as profile.Run: Wall is the latest Stop minus the
// earliest Start (a VM with no Stop, which only a failed run has, ends at
// neither); CPU and bytes are Σ over the VMs of Last − First.
func (t Tally) Run() profile.Run {
	var r profile.Run
	var first, last time.Time
	for _, v := range t {
		if first.IsZero() || v.Start.Before(first) {
			first = v.Start
		}
		if v.Stop.After(last) {
			last = v.Stop
		}
		if v.Sampled {
			r.CPU += v.Last.CPU - v.First.CPU
			r.ReadBytes += v.Last.ReadBytes - v.First.ReadBytes
			r.WriteBytes += v.Last.WriteBytes - v.First.WriteBytes
		}
	}
	if !first.IsZero() && last.After(first) {
		r.Wall = last.Sub(first)
	}
	return r
}

type vmKey struct {
	host int
	name string
}

// meter samples the counters of a run's VMs while they run and records
// when each powered off, from its own lifecycle subscription.
type meter struct {
	readers []CounterReader
	mu      sync.Mutex
	vms     map[vmKey]*VMSpan
	stops   map[vmKey]time.Time
	unwatch []func()
	quit    chan struct{}
	done    chan struct{}
}

// startMeter watches every host and starts sampling every poll.
func startMeter(hvs []Hypervisor, poll time.Duration) (*meter, error) {
	m := &meter{vms: map[vmKey]*VMSpan{}, stops: map[vmKey]time.Time{}, quit: make(chan struct{}), done: make(chan struct{})}
	for hi, hv := range hvs {
		cr, ok := hv.(CounterReader)
		if !ok {
			return nil, fmt.Errorf("host %d: its hypervisor connection cannot read domain counters", hi)
		}
		m.readers = append(m.readers, cr)
	}
	for hi, hv := range hvs {
		stop, err := hv.Watch(func(ev Event) {
			if ev.Err != nil || !ev.Shutdown {
				return // apply's own watch fails the run
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
	go m.sample(poll)
	return m, nil
}

// started is Settings.Started: the VM's first sample.
func (m *meter) started(host int, name string) {
	now := time.Now()
	c, err := m.readers[host].Counters(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	v := &VMSpan{Host: host, Name: name, Start: now}
	if err == nil {
		v.First, v.Last, v.Sampled = c, c, true
	}
	m.vms[vmKey{host, name}] = v
}

// sample reads the counters of every VM that has not powered off, until
// finish.
func (m *meter) sample(poll time.Duration) {
	defer close(m.done)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-m.quit:
			return
		case <-t.C:
		}
		m.mu.Lock()
		var keys []vmKey
		for k := range m.vms {
			if _, stopped := m.stops[k]; !stopped {
				keys = append(keys, k)
			}
		}
		m.mu.Unlock()
		for _, k := range keys {
			c, err := m.readers[k.host].Counters(k.name)
			if err != nil {
				continue // powered off since, or not yet readable
			}
			m.mu.Lock()
			if _, stopped := m.stops[k]; !stopped {
				v := m.vms[k]
				if !v.Sampled {
					v.First, v.Sampled = c, true
				}
				v.Last = c
			}
			m.mu.Unlock()
		}
	}
}

// finish stops sampling and watching and returns the run's VMs by host and
// name.
func (m *meter) finish() Tally {
	select {
	case <-m.quit:
	default:
		close(m.quit)
		<-m.done
	}
	for _, u := range m.unwatch {
		u()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var t Tally
	for k, v := range m.vms {
		s := *v
		s.Stop = m.stops[k]
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
