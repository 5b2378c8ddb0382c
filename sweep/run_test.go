package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// studySweep is 2 workloads × 2 cluster sizes × 2 policies × 2 seeds × 2
// option sets = 32 points: a simulation workload file beside the sweep
// file and a built-in packer workload.
const studySweep = `{"name": "study", "run": "simulate", "workloads": ["tiny.json", "W1"], "nodes": [6, 12],
	"policies": ["fifo", "fair:3"], "seeds": [1, 2],
	"options": [{"name": "now"}, {"name": "hb", "heartbeat": 3, "racks": 2}]}`

// runShards runs every shard of n, in reverse order, into a new directory.
func runShards(t *testing.T, s *Sweep, n int) string {
	t.Helper()
	dir := t.TempDir()
	for k := n - 1; k >= 0; k-- {
		if _, err := s.RunShard(dir, Shard{k, n}, nil); err != nil {
			t.Fatalf("shard %d/%d: %v", k, n, err)
		}
	}
	return dir
}

// TestShardedMergeIsTheUnshardedRun: for N = 1 to 5, the shards merged
// give the unsharded run's JSON lines and CSV byte for byte.
func TestShardedMergeIsTheUnshardedRun(t *testing.T) {
	s, err := Load(writeSweep(t, t.TempDir(), studySweep), All)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.RunAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Lines) != 32 || strings.Count(string(all.JSONL()), "\n") != 32 {
		t.Fatalf("%d lines", len(all.Lines))
	}
	for i, l := range all.Lines {
		if l.Index != i || l.Error != "" || l.Simulate == nil || l.Simulate.Makespan <= 0 {
			t.Fatalf("line %d: %s", i, all.Raw[i])
		}
	}
	for n := 1; n <= 5; n++ {
		h, merged, err := Merge(runShards(t, s, n))
		if err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		if h.Shards != n || h.Points != 32 || h.Digest != s.Digest {
			t.Errorf("N=%d: header %+v", n, h)
		}
		if !bytes.Equal(merged.JSONL(), all.JSONL()) || !bytes.Equal(merged.CSV(), all.CSV()) {
			t.Errorf("N=%d: merged results differ from the unsharded run", n)
		}
	}
}

// TestKilledShardIsNamedAndFinished: a shard killed after its first point
// (what a kill between points leaves: the header and one line) and a shard
// that never started are both named with their points; rerunning them
// runs only what they lack and completes the sweep identically.
func TestKilledShardIsNamedAndFinished(t *testing.T) {
	s, err := Load(writeSweep(t, t.TempDir(), studySweep), All)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.RunAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := runShards(t, s, 4)
	one := filepath.Join(dir, FileName(Shard{1, 4}))
	data, _ := os.ReadFile(one)
	lines := strings.SplitAfter(string(data), "\n")
	write(t, one, lines[0]+lines[1])
	if err := os.Remove(filepath.Join(dir, FileName(Shard{3, 4}))); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".shard-3-of-4.jsonl.tmp"), "half") // a temporary file a kill left
	_, _, err = Merge(dir)
	var me *MissingError
	if !errors.As(err, &me) || len(me.Gaps) != 2 {
		t.Fatalf("merge: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"2 of 4 shards not finished",
		"shard 1/4 (shard-1-of-4.jsonl, unfinished: still running, or stopped) lacks 7 points: 5, 9, 13, 17, 21, 25, 29",
		"shard 3/4 (shard-3-of-4.jsonl, no file) lacks 8 points: 3, 7, 11, 15, 19, 23, 27, 31",
	} {
		if !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("merge error lacks %q:\n%s", want, msg)
		}
	}
	if ran, err := s.RunShard(dir, Shard{1, 4}, nil); err != nil || ran != 7 {
		t.Fatalf("rerun of shard 1: ran %d, %v; want the 7 it lacked", ran, err)
	}
	if _, _, err := Merge(dir); !errors.As(err, &me) || len(me.Gaps) != 1 || me.Gaps[0].Shard != (Shard{3, 4}) {
		t.Fatalf("merge with shard 3 still missing: %v", err)
	}
	if _, err := s.RunShard(dir, Shard{3, 4}, nil); err != nil {
		t.Fatal(err)
	}
	if _, merged, err := Merge(dir); err != nil || !bytes.Equal(merged.JSONL(), all.JSONL()) {
		t.Errorf("after the reruns: %v, same %v", err, err == nil && bytes.Equal(merged.JSONL(), all.JSONL()))
	}
}

// TestCutLineIsNamed: a shard file whose last line was cut (a copy cut
// short) keeps the lines before it and is named.
func TestCutLineIsNamed(t *testing.T) {
	s := loadTest(t, t.TempDir())
	dir := runShards(t, s, 2)
	path := filepath.Join(dir, FileName(Shard{0, 2}))
	data, _ := os.ReadFile(path)
	write(t, path, string(data[:len(data)-20]))
	_, _, err := Merge(dir)
	if err == nil || !strings.Contains(err.Error(), "shard 0/2 (shard-0-of-2.jsonl, cut short: line 7 unreadable) lacks 1 points: 10") {
		t.Errorf("merge: %v", err)
	}
}

// TestResultsDirectoryGuards: a shard refuses a directory holding another
// sweep's shards or this one's cut into another count; merge refuses a
// directory of no shards, or of mixed ones.
func TestResultsDirectoryGuards(t *testing.T) {
	s := loadTest(t, t.TempDir())
	dir := runShards(t, s, 3)
	if _, err := s.RunShard(dir, Shard{1, 4}, nil); !errors.Is(err, ErrDirInUse) || !strings.Contains(err.Error(), "cut into 3 shards, not 4") {
		t.Errorf("another count: %v", err)
	}
	other, err := Load(writeSweep(t, t.TempDir(), `{"name": "t", "run": "simulate", "workloads": ["tiny.json"], "policies": ["fifo"]}`), All)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.RunShard(dir, Shard{0, 3}, nil); !errors.Is(err, ErrDirInUse) || !strings.Contains(err.Error(), "a shard of another sweep") {
		t.Errorf("another sweep: %v", err)
	}
	if _, _, err := Merge(t.TempDir()); !errors.Is(err, ErrNoShards) {
		t.Errorf("empty: %v", err)
	}
	mixed := runShards(t, s, 2)
	data, _ := os.ReadFile(filepath.Join(dir, FileName(Shard{2, 3})))
	write(t, filepath.Join(mixed, FileName(Shard{2, 3})), string(data))
	if _, _, err := Merge(mixed); err == nil || !strings.Contains(err.Error(), "are not of one run") {
		t.Errorf("mixed counts: %v", err)
	}
}

// TestSimulatePointIsSimulate: a point's numbers are those of sim.Run and
// the jobs' alone times computed directly, the plain way.
func TestSimulatePointIsSimulate(t *testing.T) {
	s, err := Load(writeSweep(t, t.TempDir(), studySweep), All)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Points()[31] // W1 (16), 12 nodes (+8), fair:3 (+4), seed 2 (+2), hb (+1)
	if p.Workload != "W1" || p.Size != 12 || p.Policy != "fair:3" || p.Seed != 2 || p.Options.Name != "hb" {
		t.Fatalf("point %+v", p)
	}
	raw, err := s.RunPoint(p)
	if err != nil {
		t.Fatal(err)
	}
	var l Line
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	mw, _ := workloads.Get("W1")
	w, err := sim.FromModel(mw, sim.Cluster{Nodes: 12, Racks: 2}, 4)
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := sim.ParsePolicy("fair:3", nil)
	set := sim.Settings{Seed: 2, Heartbeat: 3, RackFactor: sim.DefaultRackFactor, RemoteFactor: sim.DefaultRemoteFactor}
	r, err := sim.Run(w, pol, &set)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := sim.Alone(w, &set)
	if err != nil {
		t.Fatal(err)
	}
	r.Summarize(alone)
	m := l.Simulate
	if float64(m.Makespan) != r.Makespan || float64(m.MeanSlowdown) != r.Summary.MeanSlowdown || m.Tasks != r.Tasks || m.ClusterNodes != 12 {
		t.Errorf("point %s, direct makespan %g, mean slowdown %g, tasks %d", raw, r.Makespan, r.Summary.MeanSlowdown, r.Tasks)
	}
}

// TestPlanSweep: a plan sweep's points are optimize.Solve's plans; an
// algorithm that refuses a workload's size records why in its line, alike
// in every shard; sharded and merged, the same bytes.
func TestPlanSweep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	write(t, path, `{"name": "plans", "run": "plan", "workloads": ["W1", "W5", "random-m20-seed1"], "hosts": [6, 9],
		"algorithms": ["pair", "exact"], "options": [{"name": "d1", "disks": 1}, {"name": "d2"}]}`)
	s, err := Load(path, All)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.RunAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Lines) != 24 {
		t.Fatalf("%d points", len(all.Lines))
	}
	for i, l := range all.Lines {
		p := s.Points()[i]
		if p.Workload == "random-m20-seed1" && p.Policy == "exact" {
			if !strings.Contains(l.Error, "exact") || l.Plan != nil {
				t.Errorf("exact on 20 jobs: %s", all.Raw[i])
			}
			continue
		}
		in, err := s.workload(p.Workload)
		if err != nil {
			t.Fatal(err)
		}
		jobs := in.jobs
		cl := model.Cluster{Hosts: p.Size, DisksPerHost: p.Options.Disks}.WithDefaults()
		if p.Options.Disks == 1 {
			cl.ExtraRatio = 1
		}
		prob, err := model.NewProblem(jobs, cl)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := optimize.ParseMethod(p.Policy)
		res, err := optimize.Solve(prob, m, nil)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := plan.New(prob, jobs.Name, res.Solution)
		if err != nil {
			t.Fatal(err)
		}
		if l.Plan == nil || float64(l.Plan.Makespan) != pl.Makespan || l.Plan.ClusterHosts != p.Size || l.Plan.Phases != len(pl.Phases) {
			t.Errorf("point %d: %s; direct makespan %g", i, all.Raw[i], pl.Makespan)
		}
	}
	_, merged, err := Merge(runShards(t, s, 5))
	if err != nil || !bytes.Equal(merged.JSONL(), all.JSONL()) {
		t.Errorf("5 shards: %v", err)
	}
}

// TestMachineFailureStopsTheShard: a point over the memory limit is no
// result (another machine may run it): the shard stops, naming it, and
// keeps what it finished before.
func TestMachineFailureStopsTheShard(t *testing.T) {
	s := loadTest(t, t.TempDir())
	dir := t.TempDir()
	s.MaxMemory = 1
	_, err := s.RunShard(dir, Shard{0, 2}, nil)
	if !errors.Is(err, ErrPointFailed) || !errors.Is(err, sim.ErrTooBig) || !strings.Contains(err.Error(), "point 0 (") {
		t.Fatalf("run: %v", err)
	}
	if _, _, err := Merge(dir); err == nil || !strings.Contains(err.Error(), "shard 0/2 (shard-0-of-2.jsonl, unfinished: still running, or stopped) lacks 6 points") {
		t.Errorf("merge: %v", err)
	}
	s.MaxMemory = 0
	if ran, err := s.RunShard(dir, Shard{0, 2}, nil); err != nil || ran != 6 {
		t.Errorf("rerun: %d, %v", ran, err)
	}
}

// TestLoadNamesTheWorkload: a workload that does not load is the sweep
// file's error, naming the entry.
func TestLoadNamesTheWorkload(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "bad.json"), `{"cluster": {}, "jobs": []}`)
	for body, want := range map[string]string{
		`{"name": "x", "run": "simulate", "workloads": ["W1", "bad.json"], "policies": ["fifo"]}`:                                `workloads[1] = "bad.json": `,
		`{"name": "x", "run": "simulate", "workloads": ["W9"], "policies": ["fifo"]}`:                                            `workloads[0] = "W9": `,
		`{"name": "x", "run": "simulate", "workloads": ["missing.json"], "policies": ["fifo"]}`:                                  `workloads[0] = "missing.json": `,
		`{"name": "x", "run": "plan", "workloads": ["random-m0-seed1"], "algorithms": ["pair"]}`:                                 `workloads[0] = "random-m0-seed1": `,
		`{"name": "x", "run": "simulate", "workloads": ["W1"], "policies": ["fifo"], "nodes": [0]}`:                              `nodes[0] = 0: want 1 to`,
		`{"name": "x", "run": "plan", "workloads": ["W1"], "algorithms": ["pair"], "hosts": [9, 9]}`:                             `hosts[1] = 9: listed twice`,
		`{"name": "x", "run": "plan", "workloads": ["W1"], "algorithms": ["pso"], "options": [{"name": "o", "time_limit": -1}]}`: `options[0].time_limit = -1`,
	} {
		path := filepath.Join(dir, "s.json")
		write(t, path, body)
		_, err := Load(path, All)
		if err == nil || !strings.HasPrefix(err.Error(), path+": "+want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s:\n got %v\nwant %s: %s…", body, err, path, want)
		}
	}
	if _, err := Load(filepath.Join(dir, "none.json"), All); err == nil || !strings.Contains(err.Error(), "none.json: no such file") {
		t.Errorf("missing sweep file: %v", err)
	}
}
