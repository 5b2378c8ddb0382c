package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// packerProcess runs this test binary as packer, in a process of its own, as
// the installed packer runs: once. In-process runs share the commands, which
// urfave/cli changes as it runs them (a help's NAME line grows a "packer"
// each time; after `packer help TOPIC` its help command lists itself among
// its subcommands, a cycle that stays for later tests).
func packerProcess(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "PACKER_RUN_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestUnknownCommands: a word that names no command is bad usage, exit code
// 2, in one line naming the nearest command (urfave/cli looked for a help
// topic and exited 3).
func TestUnknownCommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plna"}, `packer: unknown command "plna" (did you mean plan?)` + "\n"},
		{[]string{"simluate", "-w", "W1"}, `packer: unknown command "simluate" (did you mean simulate?)` + "\n"},
		{[]string{"xyzzy"}, `packer: unknown command "xyzzy" (want one of plan, `},
		{[]string{"hosts", "chek"}, `packer: unknown hosts subcommand "chek" (did you mean check?)` + "\n"},
		{[]string{"experiment", "rnu"}, `packer: unknown experiment subcommand "rnu" (did you mean run?)` + "\n"},
		{[]string{"help", "plna"}, `packer: unknown command "plna" (did you mean plan?)` + "\n"},
		{[]string{"hosts", "help", "chek"}, `packer: unknown command "chek" (did you mean check?)` + "\n"},
	} {
		run := func(args ...string) (int, string, string) { return packer(t, "", args...) }
		if slices.Contains(c.args, "help") {
			run = func(args ...string) (int, string, string) { return packerProcess(t, args...) }
		}
		code, out, errs := run(c.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("packer %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

// TestCommandsWithSubcommandsNeedOne: `packer hosts` and `packer experiment`
// alone show their help on standard error and exit 2; asked for, the help
// goes to standard output with exit code 0, and `packer` alone still shows
// the app's help.
func TestCommandsWithSubcommandsNeedOne(t *testing.T) {
	for cmd, subs := range map[string]string{"hosts": "check", "experiment": "list, run, merge"} {
		code, out, errs := packerProcess(t, cmd)
		if code != 2 || out != "" || !strings.Contains(errs, "USAGE:\n   packer "+cmd) ||
			!strings.HasSuffix(errs, "\npacker: "+cmd+": name a subcommand: "+subs+"\n") {
			t.Errorf("packer %s: exit %d, stdout %q, stderr %q", cmd, code, out, errs)
		}
		for _, args := range [][]string{{cmd, "--help"}, {"help", cmd}, {cmd, "help"}} {
			if code, out, errs := packerProcess(t, args...); code != 0 || errs != "" || !strings.Contains(out, "USAGE:\n   packer "+cmd) {
				t.Errorf("packer %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errs)
			}
		}
	}
	if code, out, errs := packer(t, ""); code != 0 || errs != "" || !strings.Contains(out, "COMMANDS:") {
		t.Errorf("packer: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestEndlessInputsEndInOneLine: a workload, a plan, simulation results or a
// trace of /dev/zero is refused in one line with exit code 2, having read at
// most the kind's limit (256 MiB for a workload) or, for a trace, its first
// byte.
func TestEndlessInputsEndInOneLine(t *testing.T) {
	dir := t.TempDir()
	out, planFile := filepath.Join(dir, "w.json"), filepath.Join(dir, "w1.plan.json")
	if code, _, errs := packer(t, "", "plan", "-o", planFile); code != 0 {
		t.Fatalf("plan: exit %d, %s", code, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "-w", "/dev/zero"}, "packer: /dev/zero: too large: a workload file may be at most 256 MiB\n"},
		{[]string{"simulate", "--plan", "/dev/zero"}, "packer: /dev/zero: too large: a plan document may be at most 64 MiB\n"},
		{[]string{"report", "--plan", planFile, "--simulation", "/dev/zero", "-o", out},
			"packer: /dev/zero: too large: a simulation results file may be at most 256 MiB\n"},
		{[]string{"workloads", "import", "--input-format", "rumen", "-o", out, "/dev/zero"},
			`packer: /dev/zero: job record at line 1 (byte 0): want a JSON object, found '\x00'` + "\n"},
	} {
		start := time.Now()
		code, _, errs := packer(t, "", c.args...)
		if code != 2 || errs != c.want {
			t.Errorf("packer %s: exit %d, stderr %q, want 2 and %q", strings.Join(c.args, " "), code, errs, c.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("packer %s took %v", strings.Join(c.args, " "), d)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused command wrote %s", out)
	}
}
