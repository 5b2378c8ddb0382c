package main

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/packer-sched/packer/internal/table"
)

// tableCommands print tables of the built-in workloads.
var tableCommands = [][]string{
	{"plan"}, {"plan", "-w", "W3"}, {"plan", "-w", "W6", "-a", "pair"},
	{"compare"}, {"compare", "--algorithms", "sequential,pair,pso,exact,columns"},
	{"simulate"}, {"simulate", "-w", "W4", "-p", "fifo,fair,sequential,dp"},
	{"workloads"}, {"workloads", "show", "W2", "--format", "table"},
	{"size", "--deadline", "2h"}, {"size", "--deadline", "1h", "--disks-options", "1,2,4"},
	{"experiment", "list"},
}

// TestTablesFitAndASCII: every table of every table-printing command fits
// 100 columns; under LANG=C its every character is ASCII, and under a UTF-8
// locale it keeps its box drawing; headers are in one case.
func TestTablesFitAndASCII(t *testing.T) {
	for _, locale := range []string{"C", "en_US.UTF-8"} {
		t.Setenv("LC_ALL", "")
		t.Setenv("LC_CTYPE", "")
		t.Setenv("LANG", locale)
		for _, args := range tableCommands {
			code, out, errs := packer(t, "", args...)
			lines := table.Lines(out)
			if code != 0 || len(lines) == 0 {
				t.Errorf("LANG=%s packer %q: exit %d, %d table lines, stderr %q", locale, args, code, len(lines), errs)
				continue
			}
			boxes := strings.Contains(out, "┌")
			if (locale == "C") == boxes {
				t.Errorf("LANG=%s packer %q: box drawing %v", locale, args, boxes)
			}
			for _, l := range lines {
				if w := utf8.RuneCountInString(l); w > table.MaxWidth {
					t.Errorf("LANG=%s packer %q: a table line %d wide:\n%s", locale, args, w, l)
					break
				}
				if locale == "C" && strings.IndexFunc(l, func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
					t.Errorf("LANG=C packer %q: a table line not ASCII:\n%s", args, l)
					break
				}
			}
		}
	}
}
