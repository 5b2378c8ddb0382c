package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/packer-sched/packer/model"
)

// profileHelperEnv switches the test binary into the command that the profile tests
// measure, the os/exec way: the binary is re-run with -test.run selecting
// TestProfileHelperProcess and this variable set.
const profileHelperEnv = "PACKER_CLI_TEST_HELPER"

// profileStartedEnv names a directory where the helper marks each run's start
// with a file started-<nodes>.
const profileStartedEnv = "PACKER_CLI_TEST_STARTED"

// TestProfileHelperProcess is not a test: it is the command profiled below.
// "divide MS": MS milliseconds of work divided among PACKER_NODES nodes,
// modelled as a sleep, so the runtime is MS/n plus start-up and b ≈ −1.
// "multiply MS": a sleep of MS·n milliseconds, for a run long enough to
// interrupt. "fail": a command that fails with a message on stderr.
func TestProfileHelperProcess(t *testing.T) {
	if os.Getenv(profileHelperEnv) != "1" {
		return
	}
	args := os.Args
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	nodes, _ := strconv.Atoi(os.Getenv("PACKER_NODES"))
	if dir := os.Getenv(profileStartedEnv); dir != "" {
		// Say that the run at this node count has started, for tests that
		// must act while a given run is in progress.
		os.WriteFile(filepath.Join(dir, "started-"+strconv.Itoa(nodes)), nil, 0o644)
	}
	switch {
	case len(args) == 3 && args[1] == "divide" && nodes > 0:
		ms, _ := strconv.Atoi(args[2])
		time.Sleep(time.Duration(ms/nodes) * time.Millisecond)
		os.Exit(0)
	case len(args) == 3 && args[1] == "multiply" && nodes > 0:
		ms, _ := strconv.Atoi(args[2])
		time.Sleep(time.Duration(ms*nodes) * time.Millisecond)
		os.Exit(0)
	case len(args) == 3 && args[1] == "spin" && nodes > 0:
		// MS of CPU time, by n goroutines spinning side by side.
		ms, _ := strconv.Atoi(args[2])
		var wg sync.WaitGroup
		for range nodes {
			wg.Go(func() { profileSpin(time.Duration(ms) * time.Millisecond) })
		}
		wg.Wait()
		os.Exit(0)
	case len(args) == 2 && args[1] == "fail":
		fmt.Fprintln(os.Stderr, "loading input\nerror: input split 3 is corrupt")
		os.Exit(3)
	}
	fmt.Fprintln(os.Stderr, "helper: bad arguments", args, "PACKER_NODES", nodes)
	os.Exit(2)
}

func profileHelperCommand(args ...string) []string {
	return append([]string{"--", os.Args[0], "-test.run=^TestProfileHelperProcess$", "--"}, args...)
}

// The acceptance chain: packer profile … && packer plan --workload profile.json,
// and the profile merged with a built-in workload plans too.
func TestProfileThenPlan(t *testing.T) {
	t.Setenv(profileHelperEnv, "1")
	dir := t.TempDir()
	prof := filepath.Join(dir, "profile.json")
	args := append([]string{"profile", "--job", "divider", "--nodes", "1,2,4", "--repeat", "2",
		"--reference-nodes", "2", "--output", prof}, profileHelperCommand("divide", "400")...)
	code, out, errs := packer(t, "", args...)
	if code != 0 {
		t.Fatalf("profile: exit %d, stderr %q", code, errs)
	}
	// Progress goes to a terminal only; the test's stderr is a buffer.
	if errs != "" {
		t.Errorf("stderr %q, want nothing (not a terminal)", errs)
	}
	for _, want := range []string{"Job divider: F(n) =", "fitted on 6 runs at 1–4 nodes", "R² =", "residual standard error", "At 2 nodes (measured)", "Wrote " + prof} {
		if !strings.Contains(out, want) {
			t.Errorf("profile output lacks %q:\n%s", want, out)
		}
	}
	w, err := model.ReadWorkloadFile(prof, nil)
	if err != nil {
		t.Fatal(err)
	}
	j := w.Jobs[0]
	// 400 ms / n: from 0.4 s on 1 node to 0.1 s on 4, b near −1; start-up
	// time (tens of ms, 100 ms and more on a busy machine) flattens it, so
	// only the sign and an upper bound on the slope are certain: with a
	// power law b in [−1.2, 0), so F(1) > F(4) ≥ F(1)·4^−1.2 whatever the form.
	if f1, f4 := j.Seconds(1), j.Seconds(4); !(f4 < f1) || f4 < f1*math.Pow(4, -1.2) || j.Range == nil || *j.Range != (model.NodeRange{Min: 1, Max: 4}) {
		t.Errorf("model %s range %+v; want F(4) in [F(1)·4^−1.2, F(1)), range 1–4", j.Model, j.Range)
	}
	if p := j.Profile; p == nil || len(p.Observations) != 6 || p.Thresholds.ReferenceNodes != 2 || p.CPUUtil == nil || p.BInterval == nil {
		t.Errorf("profile record incomplete: %s", out)
	}

	code, out, errs = packer(t, "", "plan", "--workload", prof)
	if code != 0 {
		t.Fatalf("plan --workload profile.json: exit %d, stderr %q", code, errs)
	}
	// 18 VMs is far outside the 1–4 nodes measured: marked extrapolated.
	if !strings.Contains(out, "divider") || !strings.Contains(out, "18 *") || !strings.Contains(out, "outside the job's measured range") {
		t.Errorf("plan output does not show the extrapolated profiled job:\n%s", out)
	}
	code, out, _ = packer(t, "", "plan", "--workload", prof, "--format", "json")
	if code != 0 || !strings.Contains(out, `"extrapolated": true`) {
		t.Errorf("plan document lacks \"extrapolated\": true (exit %d)", code)
	}

	merged := filepath.Join(dir, "w.json")
	if code, _, errs := packer(t, "", "workloads", "merge", prof, "W1", "--output", merged); code != 0 {
		t.Fatalf("merge: exit %d, stderr %q", code, errs)
	}
	code, out, errs = packer(t, "", "plan", "--workload", merged)
	if code != 0 || !strings.Contains(out, "(6 jobs)") || !strings.Contains(out, "divider") {
		t.Errorf("plan of merged workload: exit %d, stderr %q:\n%s", code, errs, out)
	}
}

// Bad input: exit 2, one line naming the flag and value, no file written. A
// command that always fails: exit 1 with its stderr tail, no file written.
func TestProfileBadInput(t *testing.T) {
	t.Setenv(profileHelperEnv, "1")
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--nodes", ""}, 2, "--nodes: no node counts given"},
		{[]string{"--nodes", "2,four"}, 2, `--nodes 2,four: "four" is not a whole number`},
		{[]string{"--nodes", "0,2"}, 2, "node count 0 must be at least 1"},
		{[]string{"--nodes", "2,4,2"}, 2, "node count 2 is given twice"},
		{[]string{"--nodes", "2,4", "--repeat", "0"}, 2, "--repeat: must be at least 1"},
		{[]string{"--nodes", "2,4", "--cpu-threshold", "1.5"}, 2, "--cpu-threshold"},
		{[]string{"--nodes", "2,4", "--output", filepath.Join(dir, "no", "p.json")}, 2, "does not exist"},
		{[]string{"--nodes", "2,4", "--", filepath.Join(dir, "no-such-command")}, 2, "no-such-command"},
		{append([]string{"--nodes", "1,2"}, profileHelperCommand("fail")...), 1, "0 of 2 runs succeeded"},
	} {
		args := append([]string{"profile", "--job", "j", "--output", out}, tc.args...)
		if !slices.Contains(tc.args, "--") {
			args = append(args, profileHelperCommand("divide", "10")...)
		}
		code, _, errs := packer(t, "", args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and one line containing %q", tc.args, code, errs, tc.code, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%q: output file written", tc.args)
		}
	}
	// The failing command's stderr tail is in the message.
	_, _, errs := packer(t, "", append([]string{"profile", "--job", "j", "--nodes", "1,2"}, profileHelperCommand("fail")...)...)
	if !strings.Contains(errs, "exit status 3; stderr ends: loading input | error: input split 3 is corrupt") {
		t.Errorf("stderr tail not shown: %q", errs)
	}
}

// packer fit on a hand-made CSV: the fits as a golden table, and a workload
// file that plans.
func TestFitCommand(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "fitted.json")
	code, out, errs := packer(t, "", "fit", "--observations", "testdata/fit-observations.csv", "--output", wl)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden(t, "fit-observations.txt", strings.ReplaceAll(out, wl, "fitted.json"))
	w, err := model.ReadWorkloadFile(wl, nil)
	if err != nil {
		t.Fatal(err)
	}
	// kmeans, measured at 6 nodes: CPU 80 % > 60 %, I/O 14 < 100 MB/s → cpu.
	// sort: at 6, interpolated between 4 and 8 → I/O ≈ 155 MB/s → io.
	if len(w.Jobs) != 2 || w.Jobs[0].Class() != "io" || w.Jobs[1].Class() != "cpu" || w.Name != "fit-observations" {
		t.Errorf("workload %q with classes %q, %q; want fit-observations: io, cpu", w.Name, w.Jobs[0].Class(), w.Jobs[1].Class())
	}
	if code, _, errs := packer(t, "", "plan", "--workload", wl); code != 0 {
		t.Errorf("plan of fitted workload: exit %d, %q", code, errs)
	}
	// JSON on stdout is the same workload file.
	code, js, _ := packer(t, "", "fit", "-i", "testdata/fit-observations.csv", "--format", "json")
	var back model.Workload
	if code != 0 || json.Unmarshal([]byte(js), &back) != nil || len(back.Jobs) != 2 {
		t.Errorf("--format json: exit %d, not a workload file:\n%s", code, js)
	}
	golden(t, "fit-observations.json", js)
	// Thresholds by flag: with 0.85 for CPU, kmeans at 80 % is no longer CPU-intensive.
	code, js, _ = packer(t, "", "fit", "-i", "testdata/fit-observations.csv", "--format", "json", "--cpu-threshold", "0.85")
	if code != 0 || json.Unmarshal([]byte(js), &back) != nil || back.Jobs[1].Class() != "-" || back.Jobs[1].Profile.Thresholds.CPUUtil != 0.85 {
		t.Errorf("--cpu-threshold 0.85: kmeans class %q", back.Jobs[1].Class())
	}
}

func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "w.json")
	for _, tc := range []struct{ csv, want string }{
		{"job,nodes\nsort,2\n", `bad.csv: line 1: missing column "seconds"`},
		{"job,nodes,seconds\nsort,2,50\nsort,4,fast\n", `bad.csv: line 3, column 3 (seconds): seconds must be a finite positive number, got "fast"`},
		{"job,nodes,seconds\nsort,2,50\nsort,4,-1\n", "line 3, column 3 (seconds)"},
		{"job,nodes,seconds\nsort,2,50\nsort,2,49\n", `bad.csv: line 2, column 2 (nodes): job "sort" is measured at a single node count (2)`},
	} {
		in := filepath.Join(dir, "bad.csv")
		if err := os.WriteFile(in, []byte(tc.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := packer(t, "", "fit", "--observations", in, "--output", out)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2, one line containing %q", tc.csv, code, errs, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%q: output written", tc.csv)
		}
	}
	if code, _, errs := packer(t, "", "fit", "--observations", filepath.Join(dir, "none.csv")); code != 2 || !strings.Contains(errs, "none.csv") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
	// Standard input works too.
	if code, out, errs := packer(t, "job,nodes,seconds\na,1,10\na,2,5\n", "fit", "-i", "-"); code != 0 || !strings.Contains(out, "F(n) = 10 · n^-1.0000") {
		t.Errorf("stdin: exit %d, stderr %q:\n%s", code, errs, out)
	}
}

func TestWorkloadsMerge(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "w.json")
	code, _, errs := packer(t, "", "workloads", "merge", "W1", "W5", "-o", out, "--name", "both")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, errs)
	}
	w, err := model.ReadWorkloadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	// W1 has 5 jobs and W5 5: 10, W1's first.
	if w.Name != "both" || len(w.Jobs) != 10 || w.Jobs[0].Name != "s-srt-1" {
		t.Errorf("merged %q with %d jobs, first %q", w.Name, len(w.Jobs), w.Jobs[0].Name)
	}
	// W1 and W2 share job names: refused, naming both, nothing written.
	out2 := filepath.Join(dir, "w2.json")
	code, _, errs = packer(t, "", "workloads", "merge", "W1", "W2", "--output", out2)
	if code != 2 || !strings.Contains(errs, `W2: job "s-srt-1" is also in W1`) {
		t.Errorf("duplicate names: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Error("output written despite the error")
	}
	if code, _, errs := packer(t, "", "workloads", "merge"); code != 2 || !strings.Contains(errs, "got none") {
		t.Errorf("no files: exit %d, %q", code, errs)
	}
	if code, _, errs := packer(t, "", "workloads", "merge", filepath.Join(dir, "missing.json")); code != 2 || !strings.Contains(errs, "missing.json") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}

// interruptWhenStarted sends this process SIGINT once the helper command has
// started at n nodes, and the time it did on the channel it returns.
func interruptWhenStarted(t *testing.T, n int) <-chan time.Time {
	marks := t.TempDir()
	t.Setenv(profileStartedEnv, marks)
	sent := make(chan time.Time, 1)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := os.Stat(filepath.Join(marks, fmt.Sprintf("started-%d", n))); err == nil {
				time.Sleep(100 * time.Millisecond)
				sent <- time.Now()
				syscall.Kill(os.Getpid(), syscall.SIGINT)
				return
			}
		}
	}()
	return sent
}

// Ctrl-C during the second node count, with one measured before: too
// little to fit, so no profile, but the run is kept on stdout as an
// observations CSV that packer fit reads once more runs are added; exit 130.
func TestProfileInterruptedBeforeTwoCounts(t *testing.T) {
	t.Setenv(profileHelperEnv, "1")
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	sent := interruptWhenStarted(t, 100)
	code, out, errs := packer(t, "", append([]string{"profile", "--job", "j", "--nodes", "1,100"},
		profileHelperCommand("multiply", "100")...)...)
	if len(sent) == 0 {
		t.Fatalf("the run at 100 nodes never started: exit %d, %q", code, errs)
	}
	if code != 130 || !strings.Contains(errs, "the runs measured are on standard output") ||
		!regexp.MustCompile(`^job,nodes,seconds,cpu_util,io_mbps\nj,1,[0-9.e+-]+,[0-9.e+-]*,[0-9.e+-]*\n$`).MatchString(out) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// Ctrl-C: a real SIGINT to packer while it runs the third command (10 s on
// 100 nodes) stops that command at once, keeps the two runs measured before,
// writes the profile of those and says so, exit 130.
func TestProfileInterrupted(t *testing.T) {
	t.Setenv(profileHelperEnv, "1")
	// While this test runs, SIGINT must not end the test binary, whoever
	// else is listening.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)

	out := filepath.Join(t.TempDir(), "p.json")
	// Interrupt once the third run (100 nodes: a 10 s sleep) has started, not
	// after a fixed time: on a loaded machine the first two runs may take long.
	sent := interruptWhenStarted(t, 100)
	code, _, errs := packer(t, "", append([]string{"profile", "--job", "j", "--nodes", "1,2,100", "--output", out},
		profileHelperCommand("multiply", "100")...)...)
	var signalled time.Time
	select {
	case signalled = <-sent:
	default:
		t.Fatalf("the run at 100 nodes never started: exit %d, %q", code, errs)
	}
	if el := time.Since(signalled); el > 6*time.Second {
		t.Errorf("returned %v after the interrupt: the 10 s run was not stopped", el)
	}
	if code != 130 || !strings.Contains(errs, "interrupted after 2 of 3 runs") || !strings.Contains(errs, "the profile holds the 2 runs measured before") {
		t.Fatalf("exit %d, stderr %q; want 130 and what was kept", code, errs)
	}
	w, err := model.ReadWorkloadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := w.Jobs[0].Profile; len(p.Observations) != 2 || *w.Jobs[0].Range != (model.NodeRange{Min: 1, Max: 2}) {
		t.Errorf("profile kept %d observations over %+v, want 2 over 1–2", len(p.Observations), *w.Jobs[0].Range)
	}
}

// FuzzParseNodes: --nodes either gives distinct positive counts, one per
// comma-separated field, or a usage error (exit 2); it never panics.
func FuzzParseNodes(f *testing.F) {
	for _, s := range []string{"2,4,6,8", "", "1", "2,2", "0", "-3,4", " 3 , 5", "4,x", ",", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		nodes, err := parseNodes(s)
		if err != nil {
			if exitCode(err) != exitUsage {
				t.Fatalf("%q: error %v exits %d, want 2", s, err, exitCode(err))
			}
			return
		}
		if len(nodes) != strings.Count(s, ",")+1 {
			t.Fatalf("%q gave %v", s, nodes)
		}
		seen := map[int]bool{}
		for _, n := range nodes {
			if n < 1 || seen[n] {
				t.Fatalf("%q gave %v", s, nodes)
			}
			seen[n] = true
		}
	})
}

// profileSpin burns CPU until the whole process has used d of it.
func profileSpin(d time.Duration) {
	x := 1.0
	for x > 0 {
		for range 20000 {
			x = x*1.0000001 + 1e-9
		}
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil || time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= d {
			return
		}
	}
}

// Classes through the command line, thresholds set by flags for this
// machine. dd writing 16 MiB with fsync at 1 and 2 nodes: the kernel counts
// ≥ 16 MiB written, in well under a second, > 5 MB/s → I/O-intensive. A
// command spinning 300 ms of CPU on n goroutines, on n nodes of 1 vCPU:
// ≈ 100 % utilisation alone, > 10 % even on a busy shared machine →
// CPU-intensive, and no I/O → not I/O-intensive (three attempts for the CPU
// one, as other work on the machine can starve it).
func TestProfileClassifiesByFlags(t *testing.T) {
	t.Setenv(profileHelperEnv, "1")
	flags := []string{"--nodes", "1,2", "--vcpus-per-node", "1", "--reference-nodes", "2",
		"--cpu-threshold", "0.1", "--io-threshold", "5", "--format", "json"}
	classOf := func(args ...string) (model.Job, string) {
		t.Helper()
		code, out, errs := packer(t, "", append(append([]string{"profile", "--job", "j"}, flags...), args...)...)
		var w model.Workload
		if code != 0 || json.Unmarshal([]byte(out), &w) != nil {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
		j := w.Jobs[0]
		return j, fmt.Sprintf("class %q, cpu %.3f, io %.1f MB/s", j.Class(), *j.Profile.CPUUtil, *j.Profile.IOMBps)
	}
	if dd, err := exec.LookPath("dd"); err != nil {
		t.Errorf("dd not found (coreutils): %v", err)
	} else {
		j, got := classOf("--", dd, "if=/dev/zero", "of="+filepath.Join(profileDiskDir(t), "f{nodes}"), "bs=1M", "count=16", "conv=fsync")
		if w := j.Profile.Observations[0].WriteBytes; !j.IOIntensive || w < 16<<20 {
			t.Errorf("dd: %s, %d bytes written; want I/O-intensive, ≥ 16 MiB", got, w)
		}
	}
	var failures []string
	for range 3 {
		j, got := classOf(profileHelperCommand("spin", "300")...)
		if j.Class() == "cpu" {
			return
		}
		failures = append(failures, got)
	}
	t.Errorf("CPU-bound command, three attempts: %q; want class cpu", failures)
}

// profileDiskDir is the test's temp directory if a disk backs it, else (on
// tmpfs, where no byte reaches a disk) a temporary directory beside the test.
func profileDiskDir(t *testing.T) string {
	dir := t.TempDir()
	var st syscall.Statfs_t
	const tmpfsMagic = 0x01021994
	if syscall.Statfs(dir, &st) != nil || st.Type != tmpfsMagic {
		return dir
	}
	d, err := os.MkdirTemp(".", ".profile-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// --points on local runs: the chosen counts are run, and why is on stderr.
// Amdahl over 1..4 with 2 points: (1/a − 1/b)² is largest for 1 and 4.
func TestProfilePointsLocal(t *testing.T) {
	t.Setenv(profileHelperEnv, "1")
	out := filepath.Join(t.TempDir(), "p.json")
	code, _, errs := packer(t, "", append([]string{"profile", "--job", "j", "--nodes", "4", "--points", "2", "--model", "amdahl",
		"--output", out}, profileHelperCommand("divide", "40")...)...)
	if code != 0 || !strings.Contains(errs, "packer: profile j: node counts 1,4: the D-optimal design for the amdahl form") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	w, err := model.ReadWorkloadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := w.Jobs[0].Profile; len(p.Observations) != 2 || p.Observations[0].Nodes != 1 || p.Observations[1].Nodes != 4 {
		t.Errorf("observations %+v", p.Observations)
	}
}

// TestFitSeveralObservationFiles: a job apply ran once (observations.csv of
// its run record: one VM count) is fitted together with its profile's runs;
// alone it cannot be. 4 runs: 10 s on 1 VM, 5 on 2, 2.5 on 4 (profile) and
// 1.25 on 8 (apply) lie on 10·n^-1 exactly.
func TestFitSeveralObservationFiles(t *testing.T) {
	dir := t.TempDir()
	prof, run := filepath.Join(dir, "profile.csv"), filepath.Join(dir, "observations.csv")
	if err := os.WriteFile(prof, []byte("job,nodes,seconds\nsum,1,10\nsum,2,5\nsum,4,2.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, []byte("job,nodes,seconds\nsum,8,1.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := packer(t, "", "fit", "-i", prof, "-i", run, "--model", "power")
	if code != 0 || !strings.Contains(out, "Job sum: F(n) = 10 · n^-1.0000, fitted on 4 runs at 1–8 nodes") {
		t.Errorf("fit of both: exit %d: %s\n%s", code, errs, out)
	}
	code, _, errs = packer(t, "", "fit", "-i", run)
	if code != 2 || !strings.Contains(errs, `observations.csv: line 2, column 2 (nodes): job "sum" is measured at a single node count (8)`) {
		t.Errorf("fit of the run alone: exit %d: %s", code, errs)
	}
}

// TestProfileDryRunRunsNothing: without --inventory, --dry-run lists the
// runs (2 node counts × 2 repeats, repeat by repeat) and runs none of
// them: the command would create a file.
func TestProfileDryRunRunsNothing(t *testing.T) {
	made := filepath.Join(t.TempDir(), "made")
	code, out, errs := packer(t, "", "profile", "-j", "x", "-n", "1,2", "--repeat", "2", "--dry-run", "--", "touch", made+"{nodes}")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "# dry run: nothing is run\n" +
		"run 1 of 4: 1 nodes, repeat 1: PACKER_NODES=1 \"touch\" \"" + made + "1\"\n" +
		"run 2 of 4: 2 nodes, repeat 1: PACKER_NODES=2 \"touch\" \"" + made + "2\"\n" +
		"run 3 of 4: 1 nodes, repeat 2: PACKER_NODES=1 \"touch\" \"" + made + "1\"\n" +
		"run 4 of 4: 2 nodes, repeat 2: PACKER_NODES=2 \"touch\" \"" + made + "2\"\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	if files, _ := filepath.Glob(made + "*"); len(files) > 0 {
		t.Errorf("the dry run ran the command: %v", files)
	}
}
