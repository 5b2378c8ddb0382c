package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFrontDoor: the README stays short and opens with the two commands a
// newcomer runs first.
func TestFrontDoor(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md has %d lines, want at most 250: move detail to a page under docs/", n)
	}
	_, rest, _ := strings.Cut(readme, "```sh\n")
	first, _, _ := strings.Cut(rest, "```")
	if !strings.HasPrefix(first, "make plan") || !strings.Contains(first, "\nmake test") {
		t.Errorf("README.md's first block is %q, want `make plan` then `make test`", first)
	}
}

// banned are words the pages must not use: papers go by name, not by the
// number of the file they arrived in, and the docs cite no tracker issues.
var banned = regexp.MustCompile(`(?i)seed 00[0-4]|seed paper|\bissue #?[0-9]+`)

// TestPapersByName finds no paper cited by number and no issue number.
func TestPapersByName(t *testing.T) {
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := banned.FindString(line); m != "" {
				t.Errorf("%s:%d: %q: cite the paper by name (see the README's table of papers)", page, i+1, m)
			}
		}
	}
}

// link matches a relative Markdown link or image target, without its anchor.
var link = regexp.MustCompile(`\]\(([^):#]+)(#[^)]*)?\)`)

// repoPath matches a repository path in backquotes: a top-level directory,
// a slash, then more (braces and globs are skipped by the caller).
var repoPath = regexp.MustCompile("`\\.?/?([a-z][a-z0-9_]*/[A-Za-z0-9_./-]*)`")

// TestLinksAndPaths: every relative link resolves from its page, and every
// backquoted path that starts at one of the repository's top-level
// directories exists, so a moved file shows up here rather than with a
// reader.
func TestLinksAndPaths(t *testing.T) {
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), m[1])); err != nil {
				t.Errorf("%s: link to %s: %v", page, m[1], err)
			}
		}
		for _, m := range repoPath.FindAllStringSubmatch(string(data), -1) {
			p := strings.TrimSuffix(m[1], "/")
			top, _, _ := strings.Cut(p, "/")
			if st, err := os.Stat(filepath.Join(root, top)); err != nil || !st.IsDir() {
				continue // not a path from the root (e.g. testdriver/h0.xml beside an inventory)
			}
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				t.Errorf("%s: names %s, which does not exist", page, p)
			}
		}
	}
}

// TestWalkthroughAgrees: docs/applying.md explains the README's operator
// quick start step by step, so the two must list the same commands.
func TestWalkthroughAgrees(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	applying, err := os.ReadFile(filepath.Join(root, "docs", "applying.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(quickStart(t, string(readme), "operator"), "\n")
	_, rest, ok := strings.Cut(string(applying), "<!-- same as the README's operator quick start")
	if !ok {
		t.Fatal("docs/applying.md lost its marker before the walkthrough block")
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	if got := strings.TrimSpace(block); got != want {
		t.Errorf("docs/applying.md's walkthrough differs from the README's operator quick start:\n%s\nwant\n%s", got, want)
	}
}
