package profile

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeExecutor replays runs whose numbers depend on the node count, and
// records the commands it was given.
type fakeExecutor struct {
	calls []string
	run   func(nodes int) Run
}

func (f *fakeExecutor) Execute(_ context.Context, argv, env []string) (Run, error) {
	nodes := 0
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PACKER_NODES="); ok {
			fmt.Sscan(v, &nodes)
		}
	}
	f.calls = append(f.calls, strings.Join(argv, " ")+" PACKER_NODES="+fmt.Sprint(nodes))
	return f.run(nodes), nil
}

var _ Executor = (*fakeExecutor)(nil)

// The arithmetic of one run on 2 nodes of 2 vCPUs: 2 s wall, 3 CPU s,
// 100 MB read and 50 MB written → utilisation 3 / (2 × 2 × 2) = 0.375 and
// (100 + 50) MB / 2 s = 75 MB/s.
func TestMeasureArithmeticAndOrder(t *testing.T) {
	fx := &fakeExecutor{run: func(n int) Run {
		return Run{Wall: time.Duration(4/n) * time.Second, CPU: 3 * time.Second, ReadBytes: 100e6, WriteBytes: 50e6}
	}}
	var progress []Progress
	obs, err := Measure(context.Background(), []string{"job", "--maps={nodes}x{nodes}"}, &MeasureSettings{
		Nodes: []int{1, 2}, Repeat: 2, Executor: fx, Env: []string{"HOME=/h"},
		Progress: func(p Progress) { progress = append(progress, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	// Repeat by repeat, every node count in each.
	wantCalls := []string{"job --maps=1x1 PACKER_NODES=1", "job --maps=2x2 PACKER_NODES=2", "job --maps=1x1 PACKER_NODES=1", "job --maps=2x2 PACKER_NODES=2"}
	if !reflect.DeepEqual(fx.calls, wantCalls) {
		t.Errorf("calls %q, want %q", fx.calls, wantCalls)
	}
	o := obs[1]
	if o.Nodes != 2 || o.Repeat != 1 || o.Seconds != 2 || *o.CPUUtil != 0.375 || *o.IOMBps != 75 || o.CPUSeconds != 3 {
		t.Errorf("run on 2 nodes: %s", jsonOf(o))
	}
	// On 1 node: 3 / (4 × 1 × 2) = 0.375 again, 150 MB / 4 s = 37.5 MB/s.
	if o := obs[2]; o.Repeat != 2 || *o.CPUUtil != 0.375 || *o.IOMBps != 37.5 {
		t.Errorf("second run on 1 node: %s", jsonOf(o))
	}
	if len(progress) != 4 || progress[3].Done != 4 || progress[3].Total != 4 || progress[3].Remaining != 0 || progress[1].Nodes != 2 {
		t.Errorf("progress %+v", progress)
	}
}

// A non-zero exit, or death by signal, is a failed observation that keeps
// the last lines of stderr.
func TestMeasureFailedRun(t *testing.T) {
	fx := &fakeExecutor{run: func(n int) Run {
		if n == 2 {
			return Run{Wall: time.Second, ExitCode: -1, StderrTail: "a\nb\n\nc\nd\ne\nf\n"}
		}
		return Run{Wall: time.Second}
	}}
	obs, err := Measure(context.Background(), []string{"x"}, &MeasureSettings{Nodes: []int{1, 2}, Executor: fx})
	if err != nil {
		t.Fatal(err)
	}
	if !obs[1].Failed || obs[1].Error != "killed by a signal; stderr ends: b | c | d | e | f" || obs[1].CPUUtil != nil || obs[0].Failed {
		t.Errorf("observations %s", jsonOf(obs))
	}
}

func TestMeasureSettingsRejected(t *testing.T) {
	fx := &fakeExecutor{run: func(int) Run { return Run{Wall: time.Second} }}
	for _, s := range []MeasureSettings{
		{},
		{Nodes: []int{2, 0}},
		{Nodes: []int{2, 3, 2}},
		{Nodes: []int{2}, Repeat: -1},
		{Nodes: []int{2}, VCPUsPerNode: -2},
	} {
		s.Executor = fx
		if _, err := Measure(context.Background(), []string{"x"}, &s); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if _, err := Measure(context.Background(), nil, &MeasureSettings{Nodes: []int{1}, Executor: fx}); err == nil {
		t.Error("empty command accepted")
	}
	if len(fx.calls) != 0 {
		t.Errorf("ran %q despite bad settings", fx.calls)
	}
}

// An executor that knows when the bytes moved sets IOSpan: the rate is over
// it, not over the wall time; an IOSpan not inside the wall time is ignored.
func TestMeasureRateOverIOSpan(t *testing.T) {
	for _, c := range []struct {
		span time.Duration
		want float64
	}{
		{0, 15},               // 150 MB / 10 s wall
		{2 * time.Second, 75}, // 150 MB / 2 s of moving bytes
		{500 * time.Millisecond, 300},
		{10 * time.Second, 15}, // the whole run: as without
		{20 * time.Second, 15}, // longer than the run: nonsense, ignored
	} {
		fx := &fakeExecutor{run: func(int) Run {
			return Run{Wall: 10 * time.Second, CPU: time.Second, ReadBytes: 100e6, WriteBytes: 50e6, IOSpan: c.span}
		}}
		obs, err := Measure(context.Background(), []string{"job"}, &MeasureSettings{Nodes: []int{1}, Executor: fx, Env: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		if got := *obs[0].IOMBps; got != c.want {
			t.Errorf("IOSpan %v: rate %v MB/s, want %v", c.span, got, c.want)
		}
	}
}

// An executor that knows the CPU time its nodes offered sets CPUOffered:
// utilisation is CPU over it, not over wall × nodes × vCPUs.
func TestMeasureUtilisationOverCPUOffered(t *testing.T) {
	for _, c := range []struct {
		offered time.Duration
		want    float64
	}{
		{0, 0.1},                 // 4 s / (10 s × 2 nodes × 2 vCPUs)
		{5 * time.Second, 0.8},   // 4 s of the 5 s offered
		{4 * time.Second, 1},     // all of it
		{40 * time.Second, 0.1},  // as much as the wall time offered
		{80 * time.Second, 0.05}, // more: the executor's word stands
	} {
		fx := &fakeExecutor{run: func(int) Run {
			return Run{Wall: 10 * time.Second, CPU: 4 * time.Second, CPUOffered: c.offered}
		}}
		obs, err := Measure(context.Background(), []string{"job"}, &MeasureSettings{Nodes: []int{2}, VCPUsPerNode: 2, Executor: fx, Env: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		if got := *obs[0].CPUUtil; math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("CPUOffered %v: utilisation %v, want %v", c.offered, got, c.want)
		}
	}
}

// With a Design and a Budget, Measure runs at 1 node first, chooses with
// its time and keeps that run: the hand-worked Amdahl budget of
// TestChooseNodesHandWorked (10 s at 1 node, 60 node-s: 1 and 5).
func TestMeasureDesignedByBudget(t *testing.T) {
	fx := &fakeExecutor{run: func(n int) Run { return Run{Wall: time.Duration(10/n) * time.Second, CPU: time.Second} }}
	var chose Choice
	obs, err := Measure(context.Background(), []string{"job"}, &MeasureSettings{Executor: fx, Env: []string{}, Repeat: 2,
		Design: &Design{Form: "amdahl", Candidates: []int{10}, Budget: 60}, Chose: func(c Choice) { chose = c }})
	if err != nil {
		t.Fatal(err)
	}
	// The probe, then 5 in repeat 1; 1 and 5 in repeat 2.
	want := []string{"job PACKER_NODES=1", "job PACKER_NODES=5", "job PACKER_NODES=1", "job PACKER_NODES=5"}
	if !reflect.DeepEqual(fx.calls, want) {
		t.Errorf("calls %q, want %q", fx.calls, want)
	}
	if len(obs) != 4 || obs[0].Nodes != 1 || obs[0].Repeat != 1 || obs[1].Nodes != 5 || obs[3].Repeat != 2 {
		t.Errorf("observations %s", jsonOf(obs))
	}
	if !reflect.DeepEqual(chose.Nodes, []int{1, 5}) || !strings.Contains(chose.Why, "a run at n costing n × 10 s") {
		t.Errorf("chose %+v", chose)
	}
	// A failed probe leaves no time to budget by.
	fx = &fakeExecutor{run: func(int) Run { return Run{Wall: time.Second, ExitCode: 1} }}
	obs, err = Measure(context.Background(), []string{"job"}, &MeasureSettings{Executor: fx, Env: []string{},
		Design: &Design{Candidates: []int{10}, Budget: 60}})
	if err == nil || !strings.Contains(err.Error(), "the probe run at 1 node failed") || len(obs) != 1 {
		t.Errorf("failed probe: %v, %d observations", err, len(obs))
	}
}
