//go:build linux

package profile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
)

// The tests below run real processes. They keep every run to a fraction of a
// second and set the thresholds for this machine, as a user would by flags.

// A command that divides 300 ms of CPU among n child processes: its process
// tree uses ≈ 300 ms of CPU at every n, so utilisation on n nodes of 1 vCPU is
// ≈ 0.3 s / (wall × n); alone on the machine that is ≈ 1 for n ≤ 2 cores. Its
// I/O is nil, as the binary is in the page cache. With runs at 1 and 2 nodes
// the wall time falls (b < 0), the job is CPU-intensive above 10 % and not
// I/O-intensive above 5 MB/s. 10 % is this machine's threshold: it is shared
// (go test ./... runs packages side by side, other work runs beside), and a
// load of 6 other busy processes was seen to leave a 2-worker job ≈ 20 %
// utilisation. A command that waits instead of computing, profiled with the
// same threshold, must come out not CPU-intensive: it is ≈ 1 %.
//
// The CPU seconds do not depend on the machine's load and are checked on
// every run. Wall times do: a burst of other work can stretch one run
// tenfold, and with the kernel's autogroup scheduling, work from other
// sessions caps this session's share of the CPU, so a second worker may not
// help at all while it lasts. The class and the sign of b must hold in one of
// five attempts.
func TestProfileCPUBoundCommand(t *testing.T) {
	const totalMS = 300
	var failures []string
	for attempt := 1; attempt <= 5; attempt++ {
		obs, err := Measure(context.Background(), helperArgv("cpu", "300"), &MeasureSettings{
			Nodes: []int{1, 2}, Repeat: 3, VCPUsPerNode: 1, Env: helperEnv(),
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range obs {
			t.Logf("attempt %d: n=%d repeat %d: wall %.3f s, cpu %.3f s, util %.2f, read %d B, written %d B",
				attempt, o.Nodes, o.Repeat, o.Seconds, o.CPUSeconds, *o.CPUUtil, o.ReadBytes, o.WriteBytes)
			if o.Failed {
				t.Fatalf("run failed: %s", o.Error)
			}
			// The CPU is all in the children: 300 ms whatever n, plus the
			// start-up of n+1 Go processes (a few ms each).
			if o.CPUSeconds < 0.9*totalMS/1000.0 || o.CPUSeconds > 2*totalMS/1000.0 {
				t.Fatalf("n=%d: process-tree CPU %.3f s, want ≈ %.3f s: children's CPU not counted?", o.Nodes, o.CPUSeconds, totalMS/1000.0)
			}
			// Wall time is never less than CPU time over the parallelism the
			// command had: n workers on 2 cores.
			if o.Seconds < o.CPUSeconds/float64(min(o.Nodes, 2))*0.95 {
				t.Fatalf("n=%d: wall %.3f s below CPU %.3f s / %d workers", o.Nodes, o.Seconds, o.CPUSeconds, o.Nodes)
			}
		}
		res, err := Analyze("spin", obs, &Settings{Thresholds: cpuTestThresholds})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Job.Profile
		if !p.ReferenceMeasured || res.Job.Range.Min != 1 || res.Job.Range.Max != 2 {
			t.Fatalf("reference measured %v, range %+v; want true, 1–2", p.ReferenceMeasured, *res.Job.Range)
		}
		t.Logf("attempt %d: fit a=%.3f b=%.3f; at 2 nodes cpu %.2f, io %.3f MB/s", attempt, res.Fit.A, res.Fit.B, *p.CPUUtil, *p.IOMBps)
		switch {
		case !res.Job.CPUIntensive || res.Job.IOIntensive:
			failures = append(failures, fmt.Sprintf("class %q, want cpu (cpu %.2f > 0.1, io %.3f ≤ 5 MB/s)", res.Job.Class(), *p.CPUUtil, *p.IOMBps))
		case !(res.Fit.B < 0):
			failures = append(failures, fmt.Sprintf("b = %.3f for work divided among n workers, want negative", res.Fit.B))
		default:
			return
		}
	}
	t.Errorf("five attempts failed: %q", failures)
}

var cpuTestThresholds = model.Thresholds{CPUUtil: 0.1, IOMBps: 5, ReferenceNodes: 2}

// The control for the CPU test: a command that sleeps 150 ms on 2 nodes of 1
// vCPU uses a few ms of CPU for start-up, ≈ 1 % of the 0.3 CPU seconds its
// nodes offered, far below the 10 % threshold.
func TestProfileWaitingCommandIsNotCPUIntensive(t *testing.T) {
	obs, err := Measure(context.Background(), helperArgv("sleep", "150"), &MeasureSettings{
		Nodes: []int{1, 2}, VCPUsPerNode: 1, Env: helperEnv(),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Analyze("sleep", obs, &Settings{Thresholds: cpuTestThresholds})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Job.Profile; res.Job.Class() != "-" {
		t.Errorf("class %q at cpu %.3f, io %.3f MB/s; want neither", res.Job.Class(), *p.CPUUtil, *p.IOMBps)
	}
}

// ioTempDir is the test's own temp directory, on a file system backed by a
// disk: on tmpfs no byte would ever reach one, so then a directory beside the
// test's sources is used instead.
func ioTempDir(t *testing.T) string {
	dir := t.TempDir()
	var st syscall.Statfs_t
	const tmpfsMagic = 0x01021994
	if syscall.Statfs(dir, &st) == nil && st.Type == tmpfsMagic {
		d, err := os.MkdirTemp(".", ".iotest-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	return dir
}

// A command that writes 16 MiB with O_DIRECT, fsyncs, and reads it back with
// O_DIRECT, divided among n children. The kernel must count ≥ 16 MiB each way
// at every n (the page cache is bypassed, so nothing is hidden by it), and the
// rate, 32 MiB over a wall time of well under seconds, must classify the job
// as I/O-intensive above 5 MB/s.
func TestProfileIOBoundCommand(t *testing.T) {
	const mib = 16
	dir := ioTempDir(t)
	obs, err := Measure(context.Background(), helperArgv("io", dir, "16"), &MeasureSettings{
		Nodes: []int{1, 2, 4}, VCPUsPerNode: 1, Env: helperEnv(),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		t.Logf("n=%d: wall %.3f s, cpu %.3f s, read %d B, written %d B, %.1f MB/s", o.Nodes, o.Seconds, o.CPUSeconds, o.ReadBytes, o.WriteBytes, *o.IOMBps)
		if o.Failed {
			t.Fatalf("run failed: %s", o.Error)
		}
		if o.WriteBytes < mib<<20 || o.ReadBytes < mib<<20 {
			t.Errorf("n=%d: read %d B, written %d B; want ≥ %d B each way", o.Nodes, o.ReadBytes, o.WriteBytes, mib<<20)
		}
	}
	res, err := Analyze("direct-io", obs, &Settings{Thresholds: model.Thresholds{CPUUtil: 0.6, IOMBps: 5, ReferenceNodes: 3}})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Job.Profile
	if !res.Job.IOIntensive {
		t.Errorf("not I/O-intensive: %.1f MB/s at 3 nodes (interpolated), threshold 5", *p.IOMBps)
	}
	if p.ReferenceMeasured {
		t.Error("3 nodes was not measured, but the profile says it was")
	}
}

// The other side of the I/O test: reading a 16 MiB file that is in the page
// cache (the test has just written and read it) touches no disk, and the
// kernel's block accounting must say so, where a count of read() bytes would
// say 16 MiB.
func TestProfileCachedReadIsNotIO(t *testing.T) {
	name := filepath.Join(t.TempDir(), "cached")
	if err := os.WriteFile(name, make([]byte, 16<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(name); err != nil {
		t.Fatal(err)
	}
	obs, err := Measure(context.Background(), helperArgv("read", name), &MeasureSettings{Nodes: []int{1, 2}, Env: helperEnv()})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if o.Failed || o.ReadBytes > 1<<20 {
			t.Errorf("n=%d: %d bytes read from disk for a cached file (failed %v %s), want < 1 MiB", o.Nodes, o.ReadBytes, o.Failed, o.Error)
		}
	}
}

// A failing command is recorded, not fitted, and its stderr tail kept.
func TestProfileFailingCommand(t *testing.T) {
	obs, err := Measure(context.Background(), helperArgv("failat", "2"), &MeasureSettings{
		Nodes: []int{1, 2, 3}, Env: helperEnv(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 3 || obs[0].Failed || !obs[1].Failed || obs[2].Failed {
		t.Fatalf("observations %+v: want only the run at 2 nodes failed", obs)
	}
	if want := "exit status 4; stderr ends: cannot run on 2 nodes"; obs[1].Error != want {
		t.Errorf("error %q, want %q", obs[1].Error, want)
	}
	res, err := Analyze("failat", obs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fit.Points != 2 || res.Nodes[1].Failed != 1 || res.Nodes[1].Runs != 0 {
		t.Errorf("fit on %d points, summary %+v; want the 2 successful runs fitted", res.Fit.Points, res.Nodes)
	}

	// Every run failing leaves nothing to fit.
	obs, err = Measure(context.Background(), helperArgv("fail"), &MeasureSettings{Nodes: []int{1, 2}, Env: helperEnv()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Analyze("fail", obs, nil); !errors.Is(err, ErrTooFewNodeCounts) {
		t.Errorf("all runs failed: err %v, want ErrTooFewNodeCounts", err)
	}
	if !strings.Contains(obs[0].Error, "boom: disk on fire") {
		t.Errorf("stderr tail lost: %q", obs[0].Error)
	}
}

// {nodes} in arguments and PACKER_NODES in the environment agree, with no
// shell in between: an argument with a space and a quote stays one argument.
func TestProfileSubstitutesNodes(t *testing.T) {
	obs, err := Measure(context.Background(), helperArgv("args", "{nodes}", `a b'c`), &MeasureSettings{Nodes: []int{3, 11}, Env: helperEnv()})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if o.Failed {
			t.Errorf("n=%d: %s", o.Nodes, o.Error)
		}
	}
	if _, err := Measure(context.Background(), []string{"/nonexistent/packer-test-cmd"}, &MeasureSettings{Nodes: []int{1}}); err == nil {
		t.Error("a command that does not exist ran")
	}
}

// Cancelling stops the running command at once, drops its run and keeps the
// runs before it.
func TestProfileInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done int
	cancelled := make(chan time.Time, 1)
	// {nodes}00 ms: 0.1 s on 1 node, 3 s on 30; cancel 0.1 s into the second.
	obs, err := Measure(ctx, helperArgv("sleep", "{nodes}00"), &MeasureSettings{
		Nodes: []int{1, 30}, Env: helperEnv(),
		Progress: func(p Progress) {
			done = p.Done
			if p.Done == 1 {
				time.AfterFunc(100*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
			}
		},
	})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	if len(obs) != 1 || done != 1 || obs[0].Nodes != 1 {
		t.Errorf("kept %+v, want the one run at 1 node", obs)
	}
	// Timed from the cancel, not the start: a loaded machine may start the
	// runs slowly, but must still stop the 3 s one at once.
	if el := time.Since(<-cancelled); el > 2*time.Second {
		t.Errorf("returned %v after the cancel: the running command was not killed", el)
	}
}

// A command that leaves a process behind holding its stderr is timed to its
// own exit, not to the leftover's (which is ended so it cannot skew the next
// run): sh exits at once, its background sleep would last 4 s.
func TestLeftoverProcessDoesNotCount(t *testing.T) {
	r, err := (Local{}).Execute(context.Background(), []string{"sh", "-c", "sleep 4 & echo started >&2; exit 0"}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	if r.Wall > time.Second || r.ExitCode != 0 || !strings.Contains(r.StderrTail, "started") {
		t.Errorf("wall %v, exit %d, stderr %q; want well under a second, 0, started", r.Wall, r.ExitCode, r.StderrTail)
	}
}
