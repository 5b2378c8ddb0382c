package chart

import (
	"math"
	"slices"
	"testing"

	chromiumtest "github.com/packer-sched/packer/internal/chromium"
)

// sweepFixturePanels are three panels: W1 with a line whose seeds differ
// (bars), one whose seeds agree, a line of one point and an empty line; W3
// with one line; W9 with no points at all.
func sweepFixturePanels() []SweepPanel {
	const x, y = "cluster nodes", "makespan (min), mean of 3 seeds"
	return []SweepPanel{
		{Title: "W1", XLabel: x, YLabel: y, Lines: []SweepLine{
			{Name: "fifo", Points: []SweepPoint{{X: 10, Mean: 50, Min: 40, Max: 65, Runs: 3}, {X: 20, Mean: 30, Min: 30, Max: 30, Runs: 3}, {X: 40, Mean: 20, Min: 15, Max: 22, Runs: 3}}},
			{Name: "fair", Points: []SweepPoint{{X: 10, Mean: 45, Min: 45, Max: 45, Runs: 3}, {X: 20, Mean: 28, Min: 28, Max: 28, Runs: 3}, {X: 40, Mean: 18, Min: 18, Max: 18, Runs: 3}}},
			{Name: "tyrex (3 of 9 runs failed)", Points: []SweepPoint{{X: 20, Mean: 35, Min: 33, Max: 38, Runs: 2}}},
			{Name: "hybs"},
		}},
		{Title: "W3", XLabel: x, YLabel: y, Lines: []SweepLine{
			{Name: "fifo", Points: []SweepPoint{{X: 10, Mean: 60, Min: 60, Max: 60, Runs: 3}, {X: 20, Mean: 40, Min: 40, Max: 40, Runs: 3}}},
			{Name: "fair"},
		}},
		{Title: "W9", XLabel: x, YLabel: y, Lines: []SweepLine{{Name: "fifo"}, {Name: "fair"}}},
	}
}

// panelOf keeps what lies in the tile at row r, column c of a sweep chart
// (by the centre of each text and path), in page pixels.
func panelOf(d *drawn, r, c int) *drawn {
	w, h := float64(SweepTileW)*96/72, float64(SweepTileH)*96/72
	in := func(x, y float64) bool {
		return x >= float64(c)*w && x < float64(c+1)*w && y >= float64(r)*h && y < float64(r+1)*h
	}
	out := &drawn{}
	for _, p := range d.Paths {
		if in(p.Cx, p.Cy) {
			out.Paths = append(out.Paths, p)
		}
	}
	for _, t := range d.Texts {
		if in(t.X+t.W/2, t.Y+t.H/2) {
			out.Texts = append(out.Texts, t)
		}
	}
	return out
}

// texts are a drawing's strings.
func texts(d *drawn) []string {
	var out []string
	for _, t := range d.Texts {
		out = append(out, t.S)
	}
	return out
}

// TestSweepChartInChromium draws the fixture's panels two to a row, as
// packer sweep --chart does, and reads them back from headless Chromium's
// DOM, each panel apart: its title and axis labels; its axes from their
// labelled ticks; then, in data units, each line through its means with a
// glyph on each, in its index's colour in every panel; a bar from the
// least to the greatest run at each x of a line whose seeds differ, and no
// bar on one whose seeds agree; the legend naming every line with points
// (and no other) beside a sample in its colour, and the bars' entry where
// there are bars. The lines differ in dash pattern; W9 says it has no
// results. Its texts keep apart and within their widths.
func TestSweepChartInChromium(t *testing.T) {
	browser := chromiumtest.Find(t)
	panels := sweepFixturePanels()
	g, err := SweepLines(panels, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Plots) != 2 || len(g.Plots[0]) != 2 || len(g.Plots[1]) != 1 {
		t.Fatalf("layout: %d rows, want 2 of 2 and 1", len(g.Plots))
	}
	svg, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	d := readSizeChart(t, browser, svg)
	const tol = 0.6
	var patterns []string
	for k, pn := range panels[:2] {
		sub := panelOf(d, 0, k)
		checkTitle(t, sub, pn.Title)
		for _, label := range []string{pn.XLabel, pn.YLabel} {
			if !slices.Contains(texts(sub), label) {
				t.Errorf("%s: no axis label %q among %q", pn.Title, label, texts(sub))
			}
		}
		x, y := readAxes(t, sub)
		ranged := false
		for i, ln := range pn.Lines {
			lines, dash, glyphs := sizeSeries(sub, linePalette[i])
			var want [][2]float64
			spread := false
			for _, q := range ln.Points {
				want = append(want, [2]float64{x.px(q.X), y.px(q.Mean)})
				spread = spread || q.Max > q.Min
			}
			if len(want) == 0 {
				if len(lines)+len(glyphs) > 0 {
					t.Errorf("%s: %q has no points but %d paths in its colour", pn.Title, ln.Name, len(lines)+len(glyphs))
				}
				continue
			}
			if len(want) > 1 {
				checkCurve(t, pn.Title+" "+ln.Name, lines, glyphs, want, tol)
				if i < 2 && k == 0 {
					patterns = append(patterns, dash[0])
				}
			} else { // the pyramid's box centre stands a pixel above its point
				checkCurve(t, pn.Title+" "+ln.Name, [][][2]float64{want}, glyphs, want, 1.5)
			}
			checkBars(t, pn.Title+" "+ln.Name, lines, ln.Points, spread, x, y, tol)
			ranged = ranged || spread
			checkSweepLegend(t, sub, ln.Name, linePalette[i], true)
		}
		checkSweepLegend(t, sub, "bars: least to greatest run", "#000000", ranged)
		for _, ln := range pn.Lines {
			if len(ln.Points) == 0 && slices.Contains(texts(sub), ln.Name) {
				t.Errorf("%s: the legend names %q, which has no points", pn.Title, ln.Name)
			}
		}
	}
	if len(patterns) != 2 || patterns[0] == patterns[1] {
		t.Errorf("fifo and fair dash patterns: %q, want two that differ", patterns)
	}
	checkTitle(t, panelOf(d, 1, 0), "W9: no results")
	m, _ := render(t, browser, "sweep", svg)
	checkBrowserTextApart(t, m)
	checkBrowserWidths(t, m)
}

// checkBars finds, where a line's seeds differ, a vertical stroke at each
// x from the least to the greatest run; where they agree, no vertical
// stroke longer than a pixel.
func checkBars(t *testing.T, name string, lines [][][2]float64, pts []SweepPoint, spread bool, x, y axis, tol float64) {
	t.Helper()
	vertical := func(l [][2]float64) bool {
		return len(l) == 2 && math.Abs(l[0][0]-l[1][0]) < 0.01 && math.Abs(l[0][1]-l[1][1]) > 1
	}
	if !spread {
		for _, l := range lines {
			if vertical(l) {
				t.Errorf("%s: its seeds agree, yet a bar %v", name, l)
			}
		}
		return
	}
	for _, q := range pts {
		if q.Max == q.Min {
			continue
		}
		lo, hi := [2]float64{x.px(q.X), y.px(q.Min)}, [2]float64{x.px(q.X), y.px(q.Max)}
		found := false
		for _, l := range lines {
			found = found || vertical(l) && (near2(l[0], lo, tol) && near2(l[1], hi, tol) || near2(l[0], hi, tol) && near2(l[1], lo, tol))
		}
		if !found {
			t.Errorf("%s at %v: no bar from %.1f to %.1f px (%v to %v) among %v", name, q.X, lo[1], hi[1], q.Min, q.Max, lines)
		}
	}
}

// checkSweepLegend finds label with a sample in its colour right beside it
// (a horizontal line for a series, a vertical bar for the range), or, if
// !want, finds no such label.
func checkSweepLegend(t *testing.T, d *drawn, label, colour string, want bool) {
	t.Helper()
	found, named := false, false
	lines, _, _ := sizeSeries(d, colour)
	for _, tx := range d.Texts {
		if tx.S != label {
			continue
		}
		named = true
		for _, l := range lines {
			mid := (l[0][1] + l[1][1]) / 2
			found = found || len(l) == 2 && math.Abs(mid-(tx.Y+tx.H/2)) < 3 && l[0][0] >= tx.X+tx.W && l[0][0] < tx.X+tx.W+20
		}
	}
	switch {
	case want && !found:
		t.Errorf("legend: no %q beside a sample in %s", label, colour)
	case !want && named:
		t.Errorf("legend: %q, but nothing to name", label)
	}
}
