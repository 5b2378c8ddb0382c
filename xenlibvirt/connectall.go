package xenlibvirt

import "sync"

// maxParallelConnects bounds the hosts connected to at once: enough that an
// inventory of unreachable hosts costs a few connect timeouts rather than
// one per host, few enough not to open hundreds of sockets and libvirt
// workers at a time.
const maxParallelConnects = 8

// hostConn is what connecting to one host found: an open connection and its
// facts, or why not.
type hostConn struct {
	hv    Hypervisor
	facts HostFacts
	err   error
}

// connectAll connects to hosts in parallel (at most maxParallelConnects at
// once) and gathers each one's facts; results are in the order of hosts,
// whatever order the hosts answered in. A host whose facts cannot be
// gathered is closed again and carries the error.
func connectAll(hosts []InventoryHost, inv *Inventory, c Connector, jobImages []string) []hostConn {
	out := make([]hostConn, len(hosts))
	sem := make(chan struct{}, maxParallelConnects)
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			hv, err := c.Connect(h)
			if err != nil {
				out[i].err = err
				return
			}
			f, err := Gather(hv, h, inv, jobImages...)
			if err != nil {
				_ = hv.Close()
				out[i].err = err
				return
			}
			out[i] = hostConn{hv: hv, facts: f}
		}()
	}
	wg.Wait()
	return out
}
