//go:build integration

package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIntegrationSweepSlurm runs a sweep on a real Slurm: munged, slurmctld
// and slurmd (Debian's slurm-wlm and munge) started here by PID on a
// private socket and private ports, one node (this machine). The script
// packer sweep emit slurm writes is submitted as it is, an array of 4
// shards over 12 points, 2 at a time; the merge is the unsharded run byte
// for byte. Then one shard is killed after its first point (the file it
// leaves: the header and one line) and another never ran: merge names
// both, and resubmitting just those two array tasks completes the sweep
// identically. The daemons are stopped after, by PID.
func TestIntegrationSweepSlurm(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("needs root (slurmd, munged as user munge); run through make itest")
	}
	for _, b := range []string{"munged", "slurmctld", "slurmd", "sbatch", "sinfo"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("%s: %v (install the Makefile's ITEST_APT_PACKAGES: slurm-wlm munge)", b, err)
		}
	}
	env := startSlurm(t)
	bin := filepath.Join(t.TempDir(), "packer")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sw := sweepFixture(t)
	want := map[string]string{"jsonl": mustPacker(t, "sweep", "run", "--format", "jsonl", sw), "csv": mustPacker(t, "sweep", "run", "--format", "csv", sw)}
	res := filepath.Join(t.TempDir(), "results")
	script := filepath.Join(t.TempDir(), "sweep.sbatch")
	mustPacker(t, "sweep", "emit", "slurm", "--shards", "4", "--parallel", "2", "--out", res, "--packer", bin, "-o", script, sw)
	sbatch(t, env, script)
	merged := func() {
		t.Helper()
		for f, w := range want {
			if got := mustPacker(t, "sweep", "merge", "--format", f, res); got != w {
				t.Fatalf("merge --format %s differs from the unsharded run:\n%s\nwant\n%s", f, got, w)
			}
		}
	}
	merged()

	one := filepath.Join(res, "shard-1-of-4.jsonl")
	data, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(one, []byte(lines[0]+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(res, "shard-3-of-4.jsonl")); err != nil {
		t.Fatal(err)
	}
	code, _, errs := packer(t, "", "sweep", "merge", res)
	if code != 1 || !strings.Contains(errs, "2 of 4 shards not finished: shard 1/4 (shard-1-of-4.jsonl, unfinished: still running, or stopped) lacks 2 points: 5, 9; shard 3/4 (shard-3-of-4.jsonl, no file) lacks 3 points: 3, 7, 11") {
		t.Fatalf("merge of a killed shard: exit %d: %s", code, errs)
	}
	sbatch(t, env, "--array=1,3", script)
	merged()
}

// sbatch submits and waits for the whole job; any task failing fails it.
func sbatch(t *testing.T, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sbatch", append([]string{"--wait", "--parsable"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	t.Logf("$ sbatch %s\n%s", strings.Join(args, " "), out)
	if err != nil {
		t.Fatalf("sbatch %s: %v", strings.Join(args, " "), err)
	}
}

// startSlurm starts munged (as user munge, on a socket of its own),
// slurmctld and slurmd on a minimal slurm.conf, waits for the node to be
// idle, and returns the environment the Slurm commands need. The daemons
// are stopped, by PID, when the test ends.
func startSlurm(t *testing.T) []string {
	dir, err := os.MkdirTemp("", "packer-slurm-itest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	mu, err := user.Lookup("munge")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(mu.Uid)
	gid, _ := strconv.Atoi(mu.Gid)
	// munged wants its key and state private to it, its socket's
	// directory open to all, every directory above not writable by others.
	for path, mode := range map[string]os.FileMode{dir: 0o755, filepath.Join(dir, "munge"): 0o700, filepath.Join(dir, "run"): 0o755} {
		if err := os.MkdirAll(path, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if path != dir {
			if err := os.Chown(path, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	key := filepath.Join(dir, "munge", "key")
	if err := os.WriteFile(key, bytes.Repeat([]byte("packer-itest-munge-key."), 8), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(key, uid, gid); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "run", "sock")
	munged := exec.Command("munged", "-F", "--socket="+sock, "--key-file="+key, "--log-file="+filepath.Join(dir, "munge", "log"),
		"--pid-file="+filepath.Join(dir, "run", "pid"), "--seed-file="+filepath.Join(dir, "munge", "seed"))
	munged.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	daemon(t, dir, munged)
	waitFor(t, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })

	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	conf := filepath.Join(dir, "slurm.conf")
	ports := freePorts(t, 2)
	for _, d := range []string{"state", "spool"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	text := fmt.Sprintf(`ClusterName=packeritest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=2 RealMemory=2048 State=UNKNOWN
PartitionName=itest Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, ports[0], ports[1], sock, dir)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "SLURM_CONF="+conf)
	for _, c := range []*exec.Cmd{exec.Command("slurmctld", "-D", "-f", conf), exec.Command("slurmd", "-D", "-f", conf)} {
		c.Env = env
		daemon(t, dir, c)
	}
	waitFor(t, "the Slurm node idle", func() bool {
		c := exec.Command("sinfo", "-h", "-o", "%T")
		c.Env = env
		out, _ := c.Output()
		return strings.TrimSpace(string(out)) == "idle"
	})
	return env
}

// daemon starts cmd in the foreground, its output to a log beside the
// others, and stops it by PID when the test ends: SIGTERM, then SIGKILL
// after 10 s.
func daemon(t *testing.T, dir string, cmd *exec.Cmd) {
	t.Helper()
	name := filepath.Base(cmd.Path)
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("started %s (pid %d)", name, cmd.Process.Pid)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		log.Close()
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("%s's log:\n%s", name, out)
		}
	})
}

// waitFor polls ok for up to a minute.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for range 300 {
		if ok() {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("waited a minute for %s", what)
}

// freePorts finds n TCP ports free on the loopback now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}
