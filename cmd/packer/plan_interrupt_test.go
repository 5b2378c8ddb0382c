package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/packer-sched/packer/plan"
)

// TestPlanInterruptedWritesBestPlan runs packer (this test binary as packer)
// planning 200 random jobs with no time limit, waits for the first progress
// line (an incumbent reported), and stops it with SIGINT, and once with
// SIGTERM: packer must exit with 128 + the signal's number, say so in one
// line, and leave a plan document that plan.Verify accepts, marked
// interrupted, with its bound and the note saying so.
func TestPlanInterruptedWritesBestPlan(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGINT, "SIGINT"}, {syscall.SIGTERM, "SIGTERM"}} {
		dir := t.TempDir()
		cmd := exec.Command(self, "plan", "-w", "random-m200-seed1", "--time-limit", "0", "-o", "p.json", "--format", "json")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PACKER_RUN_MAIN=1")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1000)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var got []string
		// The first line that reports a plan: the swarm's or column generation's.
		for line := range lines {
			got = append(got, line)
			if strings.HasPrefix(line, "pso: iteration") || strings.HasPrefix(line, "columns: plan") {
				break
			}
		}
		if len(got) == 0 {
			t.Fatalf("%s: packer ended before reporting progress", c.name)
		}
		cmd.Process.Signal(c.sig)
		done := make(chan struct{})
		go func() {
			for line := range lines {
				got = append(got, line)
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: packer still running 60 s after the signal; stderr %q", c.name, got)
		}
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 128+int(c.sig) {
			t.Fatalf("%s: exit %d, want %d; stderr %q", c.name, code, 128+int(c.sig), got)
		}
		last := got[len(got)-1]
		if want := "packer: plan: interrupted by " + c.name + ": the plan is the best found so far, written to p.json"; last != want {
			t.Errorf("%s: last line %q, want %q", c.name, last, want)
		}
		pl, err := plan.ReadFile(filepath.Join(dir, "p.json"))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := pl.Verify(); err != nil {
			t.Errorf("%s: plan.Verify: %v", c.name, err)
		}
		if !pl.Interrupted || pl.LowerBound == nil || !strings.Contains(strings.Join(pl.Notes, "\n"), "interrupted: the search was stopped") {
			t.Errorf("%s: interrupted %v, bound %v, notes %q", c.name, pl.Interrupted, pl.LowerBound, pl.Notes)
		}
	}
}

// TestPlanMaxMemory: a swarm estimated past --max-memory is refused before
// it is built, in one line naming the limit as given, exit 2, no file
// written; the pair scheduler fits the same limit.
func TestPlanMaxMemory(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	code, stdout, stderr := packer(t, "", "plan", "-w", "random-m3000-seed1", "-a", "pso", "--max-memory", "100", "-o", out)
	want := "more than the memory limit of 105 MB (--max-memory 100 MiB)"
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "swarm") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written after the refusal (%v)", out, err)
	}
	if code, _, stderr := packer(t, "", "plan", "-w", "random-m3000-seed1", "-a", "pair", "--max-memory", "100", "-o", out); code != 0 {
		t.Errorf("pair under 100 MiB: exit %d, stderr %q", code, stderr)
	}
}
