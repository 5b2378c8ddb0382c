// Package table draws packer's tables in one house style: headers in lower
// case (acronyms and units kept), left-aligned, at most MaxWidth columns
// (cells wrapped at spaces, or the columns drawn as several tables one
// under another), and plain ASCII when the locale is not UTF-8.
package table

import (
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// MaxWidth is the most columns a table takes on screen: wider, its
// widest cells are wrapped at spaces (or, a word too long, cut) until it fits.
const MaxWidth = 100

// Table is a table in the house style: headers in lower case (acronyms and
// units kept), left-aligned, at most MaxWidth columns, and plain ASCII
// when the locale is not UTF-8. Rows are kept until Render, which needs all of
// them to choose the widths.
type Table struct {
	w      io.Writer
	header []string
	rows   [][]string
}

// New starts a table with the house style.
func New(w io.Writer, header ...string) *Table {
	h := make([]string, len(header))
	for i, s := range header {
		h[i] = headerCase(s)
	}
	return &Table{w: w, header: h}
}

// Append adds a row.
func (t *Table) Append(row []string) error {
	t.rows = append(t.rows, append([]string(nil), row...))
	return nil
}

// Render writes the table. One wider than MaxWidth has its cells
// wrapped at spaces; one that would still be wider (many columns of numbers)
// is drawn as several tables one under another, each with the first column
// and as many of the others as fit.
func (t *Table) Render() error {
	ascii := !utf8Locale()
	cells := append([][]string{t.header}, t.rows...)
	for _, row := range cells {
		for i := range row {
			if ascii {
				row[i] = toASCII(row[i])
			}
		}
	}
	if fitWidth(cells, MaxWidth, false) {
		return t.draw(cells, ascii)
	}
	for _, cols := range columnGroups(cells, MaxWidth) {
		part := make([][]string, len(cells))
		for r, row := range cells {
			for _, c := range cols {
				part[r] = append(part[r], cellAt(row, c))
			}
		}
		fitWidth(part, MaxWidth, true)
		if err := t.draw(part, ascii); err != nil {
			return err
		}
	}
	return nil
}

// draw writes cells (the header first) as one box.
func (t *Table) draw(cells [][]string, ascii bool) error {
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off), // "VMs" stays VMs
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	}
	if ascii {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})))
	}
	tbl := tablewriter.NewTable(t.w, opts...)
	h := make([]any, len(cells[0]))
	for i, s := range cells[0] {
		h[i] = s
	}
	tbl.Header(h...)
	for _, row := range cells[1:] {
		if err := tbl.Append(row); err != nil {
			return err
		}
	}
	return tbl.Render()
}

// cellAt is row's cell in column c, "" past its end.
func cellAt(row []string, c int) string {
	if c < len(row) {
		return row[c]
	}
	return ""
}

// boxWidth is the width of a box whose columns are widths wide: "│ " before
// each cell, " " after it, "│" at the end.
func boxWidth(widths []int) int {
	total := 1
	for _, w := range widths {
		total += w + 3
	}
	return total
}

// columnWidths are, per column of cells, the widest line and the widest
// word.
func columnWidths(cells [][]string) (need, word []int) {
	n := len(cells[0])
	need, word = make([]int, n), make([]int, n)
	for _, row := range cells {
		for i := range need {
			for _, line := range strings.Split(cellAt(row, i), "\n") {
				need[i] = max(need[i], twwidth.Width(line))
				for _, w := range strings.Fields(line) {
					word[i] = max(word[i], twwidth.Width(w))
				}
			}
		}
	}
	return need, word
}

// columnGroups splits the columns after the first into groups that fit
// width beside the first at their full width, in order; each group starts
// with column 0. A column too wide even alone is a group of its own.
func columnGroups(cells [][]string, width int) [][]int {
	need, _ := columnWidths(cells)
	var groups [][]int
	cur := []int{0}
	for c := 1; c < len(need); c++ {
		widths := []int{}
		for _, g := range append(cur, c) {
			widths = append(widths, need[g])
		}
		if len(cur) > 1 && boxWidth(widths) > width {
			groups, cur = append(groups, cur), []int{0}
		}
		cur = append(cur, c)
	}
	return append(groups, cur)
}

// utf8Locale reports whether the locale's character set is UTF-8, as a C
// library reads it: the first of LC_ALL, LC_CTYPE and LANG that is set
// (LANG=C, POSIX or a charset such as ISO-8859-1: not UTF-8). None set is
// taken as UTF-8, as Go programs print, so that an environment that says
// nothing (a container, cron) keeps the boxes it has always had.
func utf8Locale() bool {
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if l := os.Getenv(v); l != "" {
			l = strings.ToLower(l)
			return strings.Contains(l, "utf-8") || strings.Contains(l, "utf8")
		}
	}
	return true
}

// asciiFor spells the non-ASCII characters packer's tables hold in ASCII.
var asciiFor = strings.NewReplacer(
	"×", "x", "÷", "/", "–", "-", "—", "-", "−", "-", "…", "...", "≤", "<=", "≥", ">=",
	"≈", "~", "±", "+/-", "→", "->", "·", "*", "µ", "u", "α", "alpha", "✓", "yes", "✗", "no",
	"⁰", "^0", "¹", "^1", "²", "^2", "³", "^3", "⁴", "^4", "⁵", "^5", "⁶", "^6", "⁷", "^7", "⁸", "^8", "⁹", "^9", "⁻", "^-",
	"‘", "'", "’", "'", "“", `"`, "”", `"`, "°", " deg", "\u00a0", " ",
)

// toASCII spells s in ASCII: the characters of asciiFor as it says, any
// other non-ASCII character as "?".
func toASCII(s string) string {
	s = asciiFor.Replace(s)
	return strings.Map(func(r rune) rune {
		if r > unicode.MaxASCII {
			return '?'
		}
		return r
	}, s)
}

// headerWords are the words a header keeps in capitals (or mixed case) when
// a shouted header (NAME, VMS CREATED) is put in lower case.
var headerWords = map[string]string{
	"VM": "VM", "VMS": "VMs", "URI": "URI", "CPU": "CPU", "CPUS": "CPUs", "MIB": "MiB", "GIB": "GiB",
	"MB/S": "MB/s", "I/O": "I/O", "ID": "ID", "V95": "V95", "P95": "p95", "DP": "DP", "FIFO": "FIFO", "HDFS": "HDFS",
}

// headerCase puts a header in the one case of packer's tables, lower case
// with acronyms and units as they are written ("VMs", "MiB"): a header with
// no lower-case letter (HOST, MEMORY MIB) is lowered word by word, and any
// other is left as it is written.
func headerCase(h string) string {
	if strings.IndexFunc(h, unicode.IsLower) >= 0 || len(strings.FieldsFunc(h, func(r rune) bool { return !unicode.IsLetter(r) })) == 0 {
		return h
	}
	letters := 0
	for _, r := range h {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 2 { // "M", "r": a symbol, not a shout
		return h
	}
	words := strings.Split(h, " ")
	for i, w := range words {
		if keep, ok := headerWords[w]; ok {
			words[i] = keep
		} else {
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

// fitWidth wraps the cells of a table (the header first) so that its box
// takes at most width columns, and reports whether it does: each column's
// width is the smaller of what its cells need and a common cap, the cap as
// large as fits, and no narrower than the column's longest word. When even
// that is too wide, cells are left as they are, or, with cut, words are cut.
func fitWidth(cells [][]string, width int, cut bool) bool {
	if len(cells) == 0 || len(cells[0]) == 0 {
		return true
	}
	need, floor := columnWidths(cells)
	if boxWidth(need) <= width {
		return true
	}
	capped := func(cap int) []int {
		w := make([]int, len(need))
		for i := range need {
			w[i] = max(min(need[i], cap), floor[i])
		}
		return w
	}
	if boxWidth(capped(0)) > width {
		if !cut {
			return false
		}
		for i := range floor {
			floor[i] = min(need[i], 1)
		}
	}
	cap := 0
	for cap < 1<<20 && boxWidth(capped(cap+1)) <= width {
		cap++
	}
	widths := capped(cap)
	for _, row := range cells {
		for i := range row[:min(len(row), len(need))] {
			if need[i] > widths[i] {
				row[i] = wrapCell(row[i], widths[i])
			}
		}
	}
	return true
}

// wrapCell wraps s into lines of at most width columns, at spaces, cutting a
// word longer than a line.
func wrapCell(s string, width int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			for twwidth.Width(w) > width { // cut a word too long for a line
				if line != "" {
					out, line = append(out, line), ""
				}
				cut := cutAt(w, width)
				out, w = append(out, w[:cut]), w[cut:]
			}
			switch {
			case line == "":
				line = w
			case twwidth.Width(line)+1+twwidth.Width(w) <= width:
				line += " " + w
			default:
				out, line = append(out, line), w
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// cutAt is the byte offset of the longest prefix of w at most width columns
// wide (at least one character).
func cutAt(w string, width int) int {
	cut := 0
	for i, r := range w {
		if i > 0 && twwidth.Width(w[:i+len(string(r))]) > width {
			break
		}
		cut = i + len(string(r))
	}
	return cut
}

// Lines returns the lines of out that belong to a table Render drew, in
// box-drawing or ASCII frames: what a check of a command's tables reads.
func Lines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" && strings.ContainsRune("┌│├└+|", []rune(l)[0]) {
			lines = append(lines, l)
		}
	}
	return lines
}
