package traces

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
)

// Topology is a cluster's hosts by rack, as Rumen's topology files give it.
type Topology struct {
	// Racks in file order, each with its hosts in file order.
	Racks []Rack
}

// Rack is one rack and its hosts.
type Rack struct {
	Name  string
	Hosts []string
}

// Hosts counts the topology's hosts.
func (t *Topology) Hosts() int {
	n := 0
	for _, r := range t.Racks {
		n += len(r.Hosts)
	}
	return n
}

// topoNode is a node of Rumen's topology tree: {"name": ..., "children": [...]}.
type topoNode struct {
	Name     *string     `json:"name"`
	Children []*topoNode `json:"children"`
}

// ReadTopology reads a Rumen topology file (plain or gzipped): a tree whose
// leaves are hosts and whose leaves' parents are racks. Rumen escapes the
// dots of names ("node1\.example\.com"); the escapes are removed. name is the
// file's name in errors. More than MaxTopologyBytes is refused.
func ReadTopology(r io.Reader, name string) (*Topology, error) {
	bad := func(err error) error { return &model.InputError{File: name, Err: err} }
	in, err := maybeGzip(r, MaxTopologyBytes, "a topology")
	if err != nil {
		return nil, bad(err)
	}
	dec := json.NewDecoder(in)
	var root topoNode
	if err := dec.Decode(&root); err != nil {
		return nil, bad(fmt.Errorf("topology at byte %d: %w", dec.InputOffset(), readError(err)))
	}
	t := &Topology{}
	rackOf := map[string]int{}
	seen := map[string]string{}
	var walk func(n *topoNode, parent string, depth int) error
	walk = func(n *topoNode, parent string, depth int) error {
		if n == nil || n.Name == nil {
			return fmt.Errorf("topology: a node under %q has no name", parent)
		}
		if depth > 64 {
			return fmt.Errorf("topology: deeper than 64 levels under %q", parent)
		}
		nm := unescapeRumen(*n.Name)
		if len(n.Children) == 0 {
			if depth < 2 {
				return fmt.Errorf("topology: host %q has no rack above it", nm)
			}
			if r, dup := seen[nm]; dup {
				return fmt.Errorf("topology: host %q appears in rack %q and in rack %q", nm, r, parent)
			}
			seen[nm] = parent
			k, ok := rackOf[parent]
			if !ok {
				k = len(t.Racks)
				rackOf[parent] = k
				t.Racks = append(t.Racks, Rack{Name: parent})
			}
			t.Racks[k].Hosts = append(t.Racks[k].Hosts, nm)
			return nil
		}
		for _, c := range n.Children {
			if err := walk(c, nm, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(&root, "", 0); err != nil {
		return nil, bad(err)
	}
	if t.Hosts() == 0 {
		return nil, bad(fmt.Errorf("topology: no hosts"))
	}
	return t, nil
}

// unescapeRumen removes the backslashes Rumen puts before dots in names.
func unescapeRumen(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.ReplaceAll(s, `\`, "")
}

// Layout is the simulator's node numbering for a topology. The simulator puts
// node i in rack ⌊i·R/N⌋, equal-sized racks, while real racks differ in size
// (the 19-job trace's hold 28 to 40 hosts): each real rack fills its own
// simulated rack as far as it fits, and the hosts left over take the free
// places of other racks. Displaced counts those hosts, which the simulator
// sees in the wrong rack.
type Layout struct {
	// Node maps a host name to its simulated node.
	Node map[string]int
	// Cluster has Nodes and Racks set.
	Cluster sim.Cluster
	// Displaced is the number of hosts whose simulated rack is not their real
	// one.
	Displaced int
}

// layout numbers the topology's hosts for the simulator.
func (t *Topology) layout() *Layout {
	n, racks := t.Hosts(), len(t.Racks)
	places := make([][]int, racks) // the simulator's nodes of each rack
	for i := range n {
		r := i * racks / n
		places[r] = append(places[r], i)
	}
	l := &Layout{Node: make(map[string]int, n), Cluster: sim.Cluster{Nodes: n, Racks: racks}}
	var over []string
	for r, rack := range t.Racks {
		k := min(len(rack.Hosts), len(places[r]))
		for i, h := range rack.Hosts[:k] {
			l.Node[h] = places[r][i]
		}
		places[r] = places[r][k:]
		over = append(over, rack.Hosts[k:]...)
	}
	l.Displaced = len(over)
	for _, p := range places {
		for _, node := range p {
			l.Node[over[0]] = node
			over = over[1:]
		}
	}
	return l
}
