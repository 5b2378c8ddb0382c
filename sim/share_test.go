package sim_test

import (
	"testing"

	"github.com/packer-sched/packer/sim"
)

// TestNodeShare: 9 of 10 maps with input node-local is 90.0 %; maps that
// read no block do not count; with none that read one there is no share.
func TestNodeShare(t *testing.T) {
	for _, c := range []struct {
		l    sim.LocalityCounts
		want string
	}{
		{sim.LocalityCounts{Node: 9, Rack: 1, None: 5}, "90.0 %"},
		{sim.LocalityCounts{Node: 1, Rack: 1, Remote: 1}, "33.3 %"},
		{sim.LocalityCounts{None: 5}, "-"},
		{sim.LocalityCounts{}, "-"},
	} {
		if got := c.l.NodeShare(); got != c.want {
			t.Errorf("%+v: NodeShare %q, want %q", c.l, got, c.want)
		}
	}
}
