package optimize_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/workloads"
)

// TestSizeAmong: W3 for 40 minutes needs 9 hosts of one disk, 5 of two and
// 3 of four, each proven by the exact optimum one host below; four disks
// need the fewest hosts. A candidate out of reach is kept with its error,
// and all out of reach is an error.
func TestSizeAmong(t *testing.T) {
	w, err := workloads.Get("W3")
	if err != nil {
		t.Fatal(err)
	}
	cands := []model.Cluster{{DisksPerHost: 1, ExtraRatio: 1}, {DisksPerHost: 2}, {DisksPerHost: 4}}
	ch, err := optimize.SizeAmong(w, cands, 2400, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{9, 5, 3} {
		o := ch.Options[i]
		if o.Err != nil || o.Result.Hosts != want || !o.Result.Exact || o.Cluster.DisksPerHost != cands[i].DisksPerHost {
			t.Errorf("%d disks: %v %v, want %d hosts, exact", cands[i].DisksPerHost, o.Result, o.Err, want)
		}
	}
	if ch.Best != 2 {
		t.Errorf("best %d, want 2 (four disks, 3 hosts)", ch.Best)
	}
	// On at most 4 hosts, one disk each cannot meet 40 minutes.
	ch, err = optimize.SizeAmong(w, cands, 2400, &optimize.SizeSettings{MaxHosts: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(ch.Options[0].Err, optimize.ErrUnreachable) || ch.Options[0].Result != nil || ch.Best != 2 {
		t.Errorf("one disk on up to 4 hosts: %v, best %d", ch.Options[0].Err, ch.Best)
	}
	if _, err := optimize.SizeAmong(w, cands, 2400, &optimize.SizeSettings{MaxHosts: 1}); !errors.Is(err, optimize.ErrUnreachable) || !strings.Contains(err.Error(), "4 disks per host") {
		t.Errorf("all out of reach: %v", err)
	}
	if _, err := optimize.SizeAmong(w, nil, 2400, nil); !errors.Is(err, optimize.ErrInvalidSetting) {
		t.Errorf("no candidates: %v", err)
	}
}

// TestSizeAmongOne: with one candidate, Size's own error, unwrapped.
func TestSizeAmongOne(t *testing.T) {
	w, err := workloads.Get("W3")
	if err != nil {
		t.Fatal(err)
	}
	_, err = optimize.SizeAmong(w, []model.Cluster{{}}, 2400, &optimize.SizeSettings{MaxHosts: 3})
	_, want := optimize.Size(w, model.Cluster{}, 2400, &optimize.SizeSettings{MaxHosts: 3})
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("got %v, want %v", err, want)
	}
}
