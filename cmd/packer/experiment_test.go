package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/packer-sched/packer/experiments"
)

func TestExperimentCLI(t *testing.T) {
	code, out, _ := packer(t, "", "experiment", "list")
	if code != 0 {
		t.Fatalf("list: exit %d", code)
	}
	for _, name := range []string{"dp-budget", "dp-shares", "dp-80", "dp-boost", "delay-locality", "hybs-exp1", "hybs-exp2", "tyrex-hvw", "tyrex-mvw", "tyrex-lvw", "tyrex-load90", "tyrex-hvw-no-slowstart", "packing-w1-w6"} {
		if !strings.Contains(out, name) {
			t.Errorf("list does not name %s:\n%s", name, out)
		}
	}
	// The list names each experiment's paper, not a number.
	if !strings.Contains(out, "│ paper") || strings.Contains(out, "│ seed") || !strings.Contains(out, "dp (Sandholm & Lai, JSSPP 2010)") {
		t.Errorf("list does not name the papers:\n%s", out)
	}
	code, out, _ = packer(t, "", "experiment", "run", "--seeds", "1", "--format", "json", "hybs-exp2")
	if code != 0 {
		t.Fatalf("run hybs-exp2: exit %d", code)
	}
	var rs []experiments.Result
	if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 || rs[0].Name != "hybs-exp2" || rs[0].Paper.Name != "hybs" || len(rs[0].Rows) != 4 {
		t.Fatalf("json: %v, %d results:\n%s", err, len(rs), out)
	}
	code, out, _ = packer(t, "", "experiment", "run", "--seeds", "1", "hybs-exp2")
	if code != 0 || !strings.Contains(out, "hybs(1,-1,-1)") || !strings.Contains(out, "2.1× faster than fair") ||
		!strings.Contains(out, "hybs-exp2 (Nguyen et al., UCC 2012)") {
		t.Errorf("table: exit %d:\n%s", code, out)
	}
	// Flags after the name work as before it.
	code, out, _ = packer(t, "", "experiment", "run", "hybs-exp2", "--seeds", "1", "--format=json")
	if err := json.Unmarshal([]byte(out), &rs); code != 0 || err != nil || len(rs) != 1 || len(rs[0].Seeds) != 1 {
		t.Errorf("trailing flags: exit %d, %v:\n%s", code, err, out)
	}
	for _, args := range [][]string{
		{"experiment", "run", "no-such"},
		{"experiment", "run", "--seeds", "0", "hybs-exp1"},
		{"experiment", "run", "--format", "csv", "hybs-exp1"},
		{"experiment", "run", "hybs-exp1", "--seeds", "0"},
		{"experiment", "run", "hybs-exp1", "--seeds"},
		{"experiment", "run", "hybs-exp1", "--seeds", "two"},
		{"experiment", "run", "hybs-exp1", "--bogus"},
		{"experiment", "list", "extra"},
	} {
		code, out, errOut := packer(t, "", args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, one line", args, code, out, errOut)
		}
	}
}

// TestExperimentRunWidthAndSummary: every line of the table output fits
// 100 columns (runes: the box and dash characters are one column each);
// a table too wide with the paper's numbers prints them below it, one too
// wide even without them is split, each part repeating the row labels; and
// a summary tallies the checks printed, by paper and in all.
func TestExperimentRunWidthAndSummary(t *testing.T) {
	code, out, errOut := packer(t, "", "experiment", "run", "--seeds", "1", "dp-budget", "hybs-exp2", "packing-w1-w6")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	holds := map[string][2]int{} // paper section → holds, claims
	section := ""
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("line of %d columns: %q", n, line)
		}
		switch {
		case strings.HasPrefix(line, "dp-budget"):
			section = "dp"
		case strings.HasPrefix(line, "hybs-exp2"):
			section = "hybs"
		case strings.HasPrefix(line, "packing-w1-w6"):
			section = "packing"
		case strings.HasPrefix(line, "  holds: "), strings.HasPrefix(line, "  does not hold: "):
			h := holds[section]
			h[1]++
			if strings.HasPrefix(line, "  holds: ") {
				h[0]++
			}
			holds[section] = h
		}
	}
	for _, want := range []string{
		// hybs-exp2's table fits with its PAPER column.
		"│ 2.1× faster than fair │",
		// dp-budget's does not: the paper's numbers follow it, by row.
		"  paper, run time, jobs run while q1 pays: q1 about 3000 s, q2 4500–5800 s: 1.5–1.9×, about 1.8",
		"│ q1 budget out at (s) │",
		// packing-w1-w6's 10 columns are split; both parts list W6.
		"│ sequential plan (s) │", "│ fair sim (s) │",
		"  paper, W4: pair saves 16–30 % vs sequential (P = 10)",
		"summary: claims that hold on the medians, by paper",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "│ W6 "); n != 2 {
		t.Errorf("W6 labels %d rows, want 2 (one per part of the split table):\n%s", n, out)
	}
	summary := out[strings.Index(out, "summary: "):]
	total := [2]int{}
	for _, p := range []struct{ section, cite string }{
		{"dp", "dp (Sandholm & Lai, JSSPP 2010):"},
		{"hybs", "hybs (Nguyen et al., UCC 2012):"},
		{"packing", "packing (Aboulnaga et al., CloudDB 2009):"},
	} {
		h := holds[p.section]
		total[0] += h[0]
		total[1] += h[1]
		re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(p.cite) + ` +` + fmt.Sprintf("%d of %d hold$", h[0], h[1]))
		if h[1] == 0 || !re.MatchString(summary) {
			t.Errorf("summary lacks %s %d of %d:\n%s", p.cite, h[0], h[1], summary)
		}
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^  all papers: +%d of %d hold$`, total[0], total[1])).MatchString(summary) {
		t.Errorf("summary lacks all papers %d of %d:\n%s", total[0], total[1], summary)
	}
}

func TestWrapWords(t *testing.T) {
	// Width 12: "  holds: a" (10) + " bb" would be 13, so "bb" starts the
	// next line after the hanging indent; a word wider than the line stays
	// whole.
	got := wrapWords("  holds: a bb cccccccccccccccc d", 12, "", "    ")
	want := []string{"  holds: a", "    bb", "    cccccccccccccccc", "    d"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrapWords = %q, want %q", got, want)
	}
}
