package docs

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the generated blocks in README.md and docs/*.md (make docs)")

// root is the repository's root, seen from this package's directory.
const root = "../.."

// bin is the directory holding the packer binary TestMain builds.
var bin string

// TestMain builds packer once for every test here: the docs promise what
// the binary does, so the binary is what runs.
func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "packer-docs-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "packer"), "./cmd/packer")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "docs: go build ./cmd/packer: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// pages lists the README and every page under docs/ (not docs/_incoming,
// which other work writes into before it is folded in).
func pages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// generated matches a marker and the fenced block after it: the command's
// arguments and the block's content (empty, or lines ending in "\n").
var generated = regexp.MustCompile("(?s)<!-- packer: ([^\n]*?) -->\n```text\n(.*?)```\n")

// writesFiles are the flags that make a command write a file; a generated
// block shows standard output only, and regenerating the docs must not write
// into the repository.
var writesFiles = regexp.MustCompile(`(^|\s)(-o|--output|--chart|--export-lp|--trace|--jobs-csv|--arff|--hybs)(\s|=|$)`)

// TestGeneratedOutputs runs the command of every `<!-- packer: ARGS -->`
// marker from the repository's root and compares its standard output with
// the block under the marker; -update (make docs) rewrites the blocks.
func TestGeneratedOutputs(t *testing.T) {
	total := 0
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(page, root+"/")
		var stale []string
		out := generated.ReplaceAllFunc(data, func(block []byte) []byte {
			m := generated.FindSubmatch(block)
			args, want := string(m[1]), string(m[2])
			total++
			if writesFiles.MatchString(args) {
				t.Errorf("%s: packer %s: a generated block shows standard output only; drop the output flag", name, args)
				return block
			}
			got := runPacker(t, name, args)
			if got != want {
				stale = append(stale, "packer "+args)
			}
			return []byte("<!-- packer: " + args + " -->\n```text\n" + got + "```\n")
		})
		switch {
		case len(stale) == 0:
		case *update:
			if err := os.WriteFile(page, out, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: rewrote the output of %s", name, strings.Join(stale, ", "))
		default:
			t.Errorf("%s: the output shown for %s is stale; run `make docs` and review the diff", name, strings.Join(stale, ", "))
		}
	}
	if total == 0 {
		t.Error("no <!-- packer: ARGS --> marker in README.md or docs/*.md")
	}
}

// runPacker runs packer with args (split on white space, no shell) from the
// repository's root and returns its standard output, newline-terminated.
func runPacker(t *testing.T, page, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "packer"), strings.Fields(args)...)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("%s: packer %s: %v\n%s", page, args, err, stderr.String())
	}
	out := stdout.String()
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}

// quickStart returns the lines of the README's sh block after the marker
// `<!-- quickstart: name -->` (other markers may sit between the two).
func quickStart(t *testing.T, readme, name string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "<!-- quickstart: "+name+" -->\n")
	if !ok {
		t.Fatalf("README.md has no quickstart marker for %s", name)
	}
	for strings.HasPrefix(rest, "<!--") {
		_, rest, _ = strings.Cut(rest, "\n")
	}
	body, ok := strings.CutPrefix(rest, "```sh\n")
	if !ok {
		t.Fatalf("README.md: the quickstart marker for %s is not followed by a ```sh block", name)
	}
	block, _, _ := strings.Cut(body, "```")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// exits reads an expected exit status noted at a line's end as "# exits N".
var exits = regexp.MustCompile(`#\s*exits (\d+)\s*$`)

// outputFile finds the files a quick-start line promises to write.
var outputFile = regexp.MustCompile(`(?:-o|--output|--chart|--jobs-csv|--trace|>)\s+([^\s#]+)`)

// cleanClone makes a temporary directory holding copies of the files of a
// clean clone that the quick starts read.
func cleanClone(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"examples", "workloads/traces/testdata", "cmd/packer/testdata"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join(root, sub))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestQuickStarts runs each of the README's three quick starts as written:
// line by line in sh, in a copy of a clean clone's files, with the packer
// TestMain built first on PATH (the build line itself is skipped). Every
// line must exit as its "# exits N" note says (0 without one) and write the
// files it names.
func TestQuickStarts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"planner", "analyst", "operator"} {
		t.Run(name, func(t *testing.T) {
			lines := quickStart(t, string(data), name)
			dir := cleanClone(t)
			ran := 0
			for _, line := range lines {
				if strings.HasPrefix(line, "go build ") {
					continue
				}
				runLine(t, dir, line)
				ran++
			}
			if ran < 2 {
				t.Errorf("quick start %s runs %d commands; a quick start shows a few", name, ran)
			}
		})
	}
}

// runLine runs one quick-start line in sh in dir and checks its exit status
// and the files it writes.
func runLine(t *testing.T, dir, line string) {
	t.Helper()
	want := 0
	if m := exits.FindStringSubmatch(line); m != nil {
		want, _ = strconv.Atoi(m[1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	got := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		got = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", line, err)
	}
	if got != want {
		t.Fatalf("%s: exit %d, want %d\n%s", line, got, want, out)
	}
	if want != 0 {
		return
	}
	for _, m := range outputFile.FindAllStringSubmatch(line, -1) {
		if st, err := os.Stat(filepath.Join(dir, m[1])); err != nil || st.Size() == 0 {
			t.Errorf("%s: wrote no %s (%v)", line, m[1], err)
		}
	}
}
