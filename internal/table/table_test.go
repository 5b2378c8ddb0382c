package table

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFitWidth is hand-worked: columns needing 10, 30 and 59 make a box of
// 1 + 13 + 33 + 62 = 109; in 100 the third is wrapped to at most 50 (the
// cap that fits, 1 + 13 + 33 + 53 = 100) and the others keep their widths.
func TestFitWidth(t *testing.T) {
	long := strings.Repeat("abcd ", 12) // 60 wide with the last space trimmed: 59
	cells := [][]string{{"a", "b", "c"}, {strings.Repeat("x", 10), strings.Repeat("y", 30), strings.TrimSpace(long)}}
	if !fitWidth(cells, 100, false) {
		t.Fatal("did not fit")
	}
	need, _ := columnWidths(cells)
	// Box: 1 + (10+3) + (30+3) + (w+3) ≤ 100, so w ≤ 50; the third column is
	// capped at 50, the others need less and keep their widths.
	if need[0] != 10 || need[1] != 30 || need[2] > 50 || boxWidth(need) > 100 {
		t.Errorf("widths %v, box %d", need, boxWidth(need))
	}
	if got := strings.ReplaceAll(cells[1][2], "\n", " "); got != strings.TrimSpace(long) {
		t.Errorf("wrapping changed the words: %q", got)
	}
	// Words wider than the room: refused without cut, cut with it.
	wide := [][]string{{"h"}, {strings.Repeat("z", 120)}}
	if fitWidth(wide, 100, false) || wide[1][0] != strings.Repeat("z", 120) {
		t.Error("a 120-wide word fitted 100 columns uncut")
	}
	if !fitWidth(wide, 100, true) || strings.ReplaceAll(wide[1][0], "\n", "") != strings.Repeat("z", 120) {
		t.Errorf("cut: %q", wide[1][0])
	}
	for _, l := range strings.Split(wide[1][0], "\n") {
		if len(l) > 96 {
			t.Errorf("a cut line %d wide", len(l))
		}
	}
}

// TestColumnGroups: a table of many columns is drawn as several, each
// repeating the first column and fitting the width.
func TestColumnGroups(t *testing.T) {
	header := []string{"policy"}
	row := []string{"fifo"}
	for i := range 14 {
		header = append(header, "column "+string(rune('a'+i)))
		row = append(row, "1063.7")
	}
	var b bytes.Buffer
	tb := New(&b, header...)
	_ = tb.Append(row)
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "│ policy"); n < 2 {
		t.Errorf("%d tables, want the columns split over several:\n%s", n, b.String())
	}
	for _, h := range header[1:] {
		if strings.Count(b.String(), h) != 1 {
			t.Errorf("column %q drawn %d times", h, strings.Count(b.String(), h))
		}
	}
	for _, l := range Lines(b.String()) {
		if utf8.RuneCountInString(l) > MaxWidth {
			t.Errorf("line %d wide: %s", utf8.RuneCountInString(l), l)
		}
	}
}

func TestHeaderCase(t *testing.T) {
	for in, want := range map[string]string{
		"HOST": "host", "MEMORY MIB": "memory MiB", "VMS CREATED": "VMs created", "CPUS": "CPUs",
		"VMs": "VMs", "median s": "median s", "V95": "V95", "r": "r", "M": "M", "": "", "I/O MB/s": "I/O MB/s",
		"PAPER": "paper", "DP first job (s)": "DP first job (s)",
	} {
		if got := headerCase(in); got != want {
			t.Errorf("headerCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestASCIIAndLocale(t *testing.T) {
	if got := toASCII("2 × s-srt ≤ 4 – 1…2 ÷ 3 µs ☃"); got != "2 x s-srt <= 4 - 1...2 / 3 us ?" {
		t.Errorf("toASCII: %q", got)
	}
	for _, tc := range []struct {
		all, ctype, lang string
		utf8             bool
	}{
		{"", "", "", true}, {"", "", "C", false}, {"", "", "POSIX", false}, {"", "", "en_US.UTF-8", true},
		{"", "", "de_DE.utf8", true}, {"C", "", "en_US.UTF-8", false}, {"", "en_US.ISO-8859-1", "C.UTF-8", false},
		{"C.UTF-8", "C", "C", true},
	} {
		t.Setenv("LC_ALL", tc.all)
		t.Setenv("LC_CTYPE", tc.ctype)
		t.Setenv("LANG", tc.lang)
		if got := utf8Locale(); got != tc.utf8 {
			t.Errorf("LC_ALL=%q LC_CTYPE=%q LANG=%q: utf8Locale %v", tc.all, tc.ctype, tc.lang, got)
		}
	}
}
