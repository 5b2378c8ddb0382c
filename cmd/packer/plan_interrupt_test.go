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
