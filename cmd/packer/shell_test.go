package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets a test run this binary as packer itself (PACKER_RUN_MAIN=1),
// so that a shell can call it the way it calls the installed program.
func TestMain(m *testing.M) {
	if os.Getenv("PACKER_RUN_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errs := packer(t, "", args...)
		// go test records no commit: the line says so rather than nothing.
		if code != 0 || errs != "" || out != "packer version (devel), commit unknown: "+Identity+"\n" {
			t.Errorf("packer %s: exit %d, stdout %q, stderr %q", args[0], code, out, errs)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errs := packer(t, "", "completion", sh)
		if code != 0 || errs != "" || !strings.Contains(out, "plan") && sh == "fish" || !strings.Contains(out, "packer") {
			t.Errorf("completion %s: exit %d, stderr %q, script:\n%s", sh, code, errs, out)
		}
	}
	if code, _, errs := packer(t, "", "completion", "tcsh"); code != 2 || !strings.Contains(errs, `"tcsh"`) {
		t.Errorf("completion tcsh: exit %d, %q", code, errs)
	}
}

// TestBashCompletesCommands loads `packer completion bash` into bash with
// this test binary as packer on PATH and completes `packer pl`.
func TestBashCompletesCommands(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	_, script, _ := packer(t, "", "completion", "bash")
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\nPACKER_RUN_MAIN=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "packer"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "packer.bash"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bash, "-n", filepath.Join(dir, "packer.bash")).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	for words, want := range map[string]string{"packer pl": "plan", "packer compare --algo": "--algorithms",
		// After a flag that takes a value, files (the default) rather than flags.
		"packer plan -w ''": "", "packer simulate --workload ''": "",
		// No help command crowding a command's subcommands.
		"packer workloads ''": "show merge import"} {
		cmd := exec.Command(bash, "-c", `source packer.bash; COMP_WORDS=(`+words+`); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _packer_complete; echo "${COMPREPLY[*]}"`)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%s<TAB>: %v, %q, want %q", words, err, out, want)
		}
	}
}

// TestStdoutWriteErrorFails: `packer plan > /dev/full` must not exit 0.
func TestStdoutWriteErrorFails(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	for _, args := range [][]string{{"plan"}, {"plan", "--format", "json"}, {"workloads", "show", "W1"}, {"compare", "--algorithms", "sequential,pair"}} {
		var errs strings.Builder
		code := run(append([]string{"packer"}, args...), strings.NewReader(""), full, &errs)
		if code != 1 || errs.String() != "packer: writing standard output: no space left on device\n" {
			t.Errorf("packer %s > /dev/full: exit %d, stderr %q", strings.Join(args, " "), code, errs.String())
		}
	}
}
