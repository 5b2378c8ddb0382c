package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/packer-sched/packer/experiments"
)

// experimentWidth is the widest line packer experiment run prints: titles
// and claims wrap, the paper's numbers move below a table that would be
// wider with them, and a table whose value columns alone are wider is split
// into several, each repeating the row labels.
const experimentWidth = 100

// printExperiment prints one result: its title, its table or tables, the
// paper's numbers where the table had no room for them, and the checks.
func printExperiment(w io.Writer, r *experiments.Result) error {
	title := fmt.Sprintf("%s (%s): %s — median [min–max] over %d seeds", r.Name, r.Paper.Cite(), r.Title, len(r.Seeds))
	printWrapped(w, title, "", "  ")
	labels := make([]string, len(r.Rows))
	cells := make([][]string, len(r.Columns))
	papers := make([]string, len(r.Rows))
	hasPaper := false
	for i, row := range r.Rows {
		labels[i] = row.Label
		papers[i] = row.Paper
		hasPaper = hasPaper || row.Paper != ""
		for c, v := range row.Values {
			cells[c] = append(cells[c], v.Format(len(r.Seeds)))
		}
	}
	header := append([]string(nil), r.Columns...)
	if hasPaper && tableWidth(append([]string{""}, append(header, "PAPER")...), labels, append(cells, papers)) <= experimentWidth {
		header, cells, hasPaper = append(header, "PAPER"), append(cells, papers), false
	}
	for _, cols := range splitColumns(header, labels, cells) {
		t := newTable(w, append([]string{""}, pick(header, cols)...)...)
		for i := range labels {
			row := []string{labels[i]}
			for _, c := range cols {
				row = append(row, cells[c][i])
			}
			t.Append(row)
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if hasPaper {
		for i, p := range papers {
			if p != "" {
				printWrapped(w, "  paper, "+labels[i]+": "+p, "", "      ")
			}
		}
	}
	for _, ch := range r.Checks {
		printWrapped(w, "  "+ch.Verdict()+": "+ch.Claim, "", "      ")
	}
	return nil
}

// printExperimentSummary prints how many claims hold, by paper and in all.
func printExperimentSummary(w io.Writer, results []*experiments.Result) {
	tallies := experiments.Summary(results)
	names := make([]string, len(tallies))
	width := 0
	for i, t := range tallies {
		names[i] = "all papers:"
		if t.Paper.Name != "" {
			names[i] = t.Paper.Name + " (" + t.Paper.Cite() + "):"
		}
		width = max(width, utf8.RuneCountInString(names[i]))
	}
	fmt.Fprintln(w, "summary: claims that hold on the medians, by paper")
	for i, t := range tallies {
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(names[i]))
		fmt.Fprintf(w, "  %s%s %d of %d hold\n", names[i], pad, t.Holds, t.Claims)
	}
}

// tableWidth is the width newTable renders: a border, then each column's
// widest cell with a space either side and a border.
func tableWidth(header, labels []string, cells [][]string) int {
	width := 1 + columnWidth(header[0], labels) + 3
	for c := range cells {
		width += columnWidth(header[c+1], cells[c]) + 3
	}
	return width
}

// columnWidth is the widest of a column's header and cells, in runes.
func columnWidth(header string, cells []string) int {
	w := utf8.RuneCountInString(header)
	for _, s := range cells {
		w = max(w, utf8.RuneCountInString(s))
	}
	return w
}

// splitColumns groups the value columns, in order, into tables that each
// fit experimentWidth beside the label column (a column too wide for any
// table gets one of its own).
func splitColumns(header, labels []string, cells [][]string) [][]int {
	label := 1 + columnWidth("", labels) + 3
	var out [][]int
	var cur []int
	width := label
	for c := range cells {
		cw := columnWidth(header[c], cells[c]) + 3
		if len(cur) > 0 && width+cw > experimentWidth {
			out, cur, width = append(out, cur), nil, label
		}
		cur = append(cur, c)
		width += cw
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// pick is xs at the indexes is.
func pick(xs []string, is []int) []string {
	out := make([]string, len(is))
	for k, i := range is {
		out[k] = xs[i]
	}
	return out
}

// printWrapped writes s in lines of at most experimentWidth runes, broken
// at spaces: the first line after first, the others after rest. A word
// longer than a line stays whole.
func printWrapped(w io.Writer, s, first, rest string) {
	for _, line := range wrapWords(s, experimentWidth, first, rest) {
		fmt.Fprintln(w, line)
	}
}

// wrapWords breaks s at spaces into lines of at most width runes, each
// starting with first (the first line) or rest (the others).
func wrapWords(s string, width int, first, rest string) []string {
	var out []string
	line := first
	empty := true
	for _, word := range strings.Fields(s) {
		// s's own leading spaces are kept as the first line's indent.
		if empty && len(out) == 0 {
			line += s[:len(s)-len(strings.TrimLeft(s, " "))]
		}
		switch {
		case empty:
			line += word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
			out = append(out, line)
			line = rest + word
		default:
			line += " " + word
		}
		empty = false
	}
	return append(out, line)
}
