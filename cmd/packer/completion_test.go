package main

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// docCommandLines returns the words of every packer command line shown in a
// code block of README.md or docs/*.md ("packer …" or "$ packer …"), cut
// before a comment, a redirection, a pipe or a second command, and before a
// "--" the line already has (what follows it is the command profile runs).
func docCommandLines(t *testing.T) [][]string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../../README.md"}, pages...)
	end := regexp.MustCompile(`\s(#|>|\||&&|;|\\$)`)
	seen := map[string]bool{}
	var lines [][]string
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		inBlock := false
		for _, l := range strings.Split(string(data), "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "```") {
				inBlock = !inBlock
				continue
			}
			l = strings.TrimPrefix(l, "$ ")
			if !inBlock || !strings.HasPrefix(l, "packer ") && l != "packer" {
				continue
			}
			if loc := end.FindStringIndex(l); loc != nil {
				l = l[:loc[0]]
			}
			words := strings.Fields(l)
			if i := slices.Index(words, "--"); i >= 0 {
				words = words[:i]
			}
			if key := strings.Join(words, " "); !seen[key] {
				seen[key] = true
				lines = append(lines, words)
			}
		}
	}
	if len(lines) < 30 {
		t.Fatalf("found %d packer command lines in the docs, want dozens: is the parser broken?", len(lines))
	}
	return lines
}

// treeState lists every file under dir with its size, mode and time of last
// change, to tell whether anything in it was written.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		state[path] = fmt.Sprint(info.Size(), info.Mode(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// completionDir makes a directory holding copies of the files the docs'
// command lines read, so that a command run by mistake would find its input
// and act, rather than fail before acting.
func completionDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"examples", "workloads/traces/testdata"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("../..", sub))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// selfAsPacker writes, in a directory of its own, a "packer" that runs this
// test binary as packer and logs each call to calls.log beside it, and
// returns that directory.
func selfAsPacker(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\necho \"$*\" >> '" + filepath.Join(bin, "calls.log") + "'\n" +
		"PACKER_RUN_MAIN=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "packer"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// shellQuote quotes s as one word for sh and bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestCompletionNeverActs completes every command line in the docs, with
// "-- sh -c 'touch MARKER'" after it (the words profile would run), in a
// directory holding the files the lines read, and fails if anything ran: the
// marker exists or a file in the directory changed. It completes each line
// twice: through the bash script, which must not even call packer after
// "--", and by calling packer as the script would, with the completion flag
// last. The line as written, with one word more, is completed too. Four
// workers share the lines, each in a directory of its own.
func TestCompletionNeverActs(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	_, script, _ := packer(t, "", "completion", "bash")
	lines := docCommandLines(t)
	const workers = 4
	for w := range workers {
		t.Run(fmt.Sprint("worker", w), func(t *testing.T) {
			t.Parallel()
			bin := selfAsPacker(t)
			scriptFile := filepath.Join(bin, "packer.bash")
			if err := os.WriteFile(scriptFile, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := completionDir(t)
			before := treeState(t, dir)
			env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			check := func(what string, cmd *exec.Cmd) {
				t.Helper()
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.CombinedOutput()
				if err != nil && cmd.ProcessState == nil {
					t.Fatalf("%s: %v", what, err)
				}
				if _, err := os.Stat(filepath.Join(dir, "MARKER")); err == nil {
					t.Fatalf("%s<TAB> ran the command after --:\n%s", what, out)
				}
				if after := treeState(t, dir); !maps.Equal(before, after) {
					t.Fatalf("%s<TAB> changed the directory:\n%s", what, out)
				}
			}
			for i := w; i < len(lines); i += workers {
				words := lines[i]
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				guarded := append(slices.Clone(words), "--", "sh", "-c", "touch MARKER")
				quoted := make([]string, len(guarded))
				for i, w := range guarded {
					quoted[i] = shellQuote(w)
				}
				line := strings.Join(guarded, " ")
				check("bash: "+line+" ", exec.CommandContext(ctx, bash, "-c", "source "+shellQuote(scriptFile)+
					"; COMP_WORDS=("+strings.Join(quoted, " ")+" ''); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _packer_complete"))
				if calls, err := os.ReadFile(filepath.Join(bin, "calls.log")); err == nil {
					t.Fatalf("bash: %s <TAB> called packer after --:\n%s", line, calls)
				}
				for _, args := range [][]string{guarded, append(slices.Clone(words), "touch")} {
					check(strings.Join(args, " ")+" ", exec.CommandContext(ctx, filepath.Join(bin, "packer"), append(slices.Clone(args[1:]), completionFlag)...))
				}
				cancel()
				os.Remove(filepath.Join(bin, "calls.log"))
			}
		})
	}
}

// TestCompletionLeavesCommandsArmed: completing in-process changes nothing
// that a later run uses: the commands still act.
func TestCompletionLeavesCommandsArmed(t *testing.T) {
	for _, line := range [][]string{{"plan", completionFlag}, {"hosts", completionFlag}, {"plan", "-w", completionFlag}, {completionFlag}} {
		if code, _, errs := packer(t, "", line...); code != 0 || errs != "" {
			t.Errorf("packer %s: exit %d, stderr %q", strings.Join(line, " "), code, errs)
		}
	}
	if code, out, _ := packer(t, "", "plan"); code != 0 || !strings.Contains(out, "Makespan:") {
		t.Errorf("plan after completions: exit %d, stdout %q", code, out)
	}
	if code, out, _ := packer(t, "", "workloads"); code != 0 || !strings.Contains(out, "W1") {
		t.Errorf("workloads after completions: exit %d, stdout %q", code, out)
	}
}
