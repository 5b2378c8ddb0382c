package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxLines bounds a page under docs/: a page is read, not searched. The
// two pages that were lab notebooks have a tighter bound of their own.
const maxLines = 500

var maxLinesOf = map[string]int{
	"simulating.md": 300,
	"optimizer.md":  300,
}

// TestPageLengths keeps every page under docs/ within its bound.
func TestPageLengths(t *testing.T) {
	for _, page := range docsPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		limit, ok := maxLinesOf[filepath.Base(page)]
		if !ok {
			limit = maxLines
		}
		if n := strings.Count(string(data), "\n"); n > limit {
			t.Errorf("%s has %d lines, want at most %d: keep what a user needs now; history is in git", page, n, limit)
		}
	}
}

// Notebook entries: a date (a dated heading or "measured 2026-11-23"), the
// name of an alternating measurement scheme, a scratch path, and a token
// that looks like a commit hash: 7 to 40 hex digits with at least one digit
// and one letter a–f, standing alone (not part of a name such as the plan id
// w1-85eea8e7 or a file name; a full stop may end it). Fenced code blocks are skipped: program
// output there may show ids and checksums.
var (
	datedEntry  = regexp.MustCompile(`\b(19|20)\d\d-[01]\d-[0-3]\d\b`)
	abba        = regexp.MustCompile(`\bABBA\b`)
	scratchPath = regexp.MustCompile("(^|[^\\w.])(/tmp/[^\\s`)]*)")
	hexToken    = regexp.MustCompile(`(^|[^\w./#:-])([0-9a-f]{7,40})($|[^\w./-]|\.($|\W))`)
	hexDigit    = regexp.MustCompile(`[0-9]`)
	hexLetter   = regexp.MustCompile(`[a-f]`)
)

// notebookFindings lists the notebook entries in a page's text, one
// "line N: what" each, outside fenced code blocks.
func notebookFindings(text string) []string {
	var out []string
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		add := func(what, m string) {
			out = append(out, "line "+strconv.Itoa(i+1)+": "+what+" "+strings.TrimSpace(m))
		}
		if m := datedEntry.FindString(line); m != "" {
			add("a dated entry", m)
		}
		if m := abba.FindString(line); m != "" {
			add("a measurement log", m)
		}
		if m := scratchPath.FindStringSubmatch(line); m != nil {
			add("a scratch path", m[2])
		}
		for _, m := range hexToken.FindAllStringSubmatch(line, -1) {
			if hexDigit.MatchString(m[2]) && hexLetter.MatchString(m[2]) {
				add("a commit hash", m[2])
			}
		}
	}
	return out
}

// TestNoNotebookEntries: the pages describe what is true now. Dates,
// measurement logs, commit hashes and scratch paths belong to git's history.
func TestNoNotebookEntries(t *testing.T) {
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range notebookFindings(string(data)) {
			t.Errorf("%s: %s: history belongs in git, not in the docs", page, f)
		}
	}
}

// TestNotebookFindingsCatch shows that the rule can fail, and what it lets
// through.
func TestNotebookFindingsCatch(t *testing.T) {
	for _, bad := range []string{
		"**2026-11-24, evening.** Two changes",
		"measured 2026-11-23 on this machine",
		"in three ABBA rounds",
		"old (9e9e9ef) against new",
		"against 7f22350: fair 1.103",
		"the outputs of /tmp/sim-check.sh",
		"at commit b050ba6, before the last change",
	} {
		if len(notebookFindings(bad)) == 0 {
			t.Errorf("%q: not flagged", bad)
		}
	}
	for _, good := range []string{
		"Plan w1-d575a5d9: workload W1 (5 jobs)",
		"id: workload name + hash of the plan, e.g. \"w1-85eea8e7\"",
		"packer-small-8f228143-p1-wordcount-0: started",
		"a word like deadbeef or decade, and 1234567 seconds",
		"see docs/simulating.md#speed and file a3f9c2e1.json",
		"```\nsha256 9e9e9ef0c1d2 in a code block\n```",
		"the FB-2010 day, 17,355,409 tasks",
	} {
		if f := notebookFindings(good); len(f) != 0 {
			t.Errorf("%q: flagged %v", good, f)
		}
	}
}

// docsPages lists docs/*.md.
func docsPages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no page under docs/")
	}
	return files
}
