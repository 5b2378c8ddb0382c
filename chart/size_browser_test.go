package chart

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	chromiumtest "github.com/packer-sched/packer/internal/chromium"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/workloads"
)

// sizeScript runs in the page after the picture: it writes, as JSON into
// <pre id="drawn">, every path as Chromium laid it out (its stroke, fill and
// dash pattern as computed, its vertices in page pixels when it is a
// polyline, and the centre of its box) and every text with its box.
const sizeScript = `<script>
const out = {paths: [], texts: []};
for (const p of document.querySelectorAll("svg path")) {
  const d = p.getAttribute("d"), m = p.getScreenCTM(), cs = getComputedStyle(p), r = p.getBoundingClientRect();
  const pts = [];
  if (!/[AZ]/.test(d)) {
    const n = d.match(/-?[0-9.]+(e-?[0-9]+)?/g).map(Number);
    for (let i = 0; i + 1 < n.length; i += 2) {
      const q = new DOMPoint(n[i], n[i + 1]).matrixTransform(m);
      pts.push([q.x, q.y]);
    }
  }
  out.paths.push({stroke: cs.stroke, fill: cs.fill, dash: cs.strokeDasharray, pts: pts, cx: r.x + r.width / 2, cy: r.y + r.height / 2});
}
for (const t of document.querySelectorAll("svg text")) {
  const r = t.getBoundingClientRect();
  out.texts.push({s: t.textContent, x: r.x, y: r.y, w: r.width, h: r.height});
}
document.getElementById("drawn").textContent = JSON.stringify(out);
</script>`

// drawn is what sizeScript reports.
type drawn struct {
	Paths []struct {
		Stroke, Fill, Dash string
		Pts                [][2]float64
		Cx, Cy             float64
	}
	Texts []struct {
		S          string
		X, Y, W, H float64
	}
}

// readSizeChart loads an SVG picture in headless Chromium and returns what
// it drew.
func readSizeChart(t *testing.T, browser string, svg []byte) *drawn {
	t.Helper()
	page := filepath.Join(t.TempDir(), "size.html")
	html := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0} svg{display:block}</style></head><body>` +
		string(svg) + `<pre id="drawn"></pre>` + sizeScript + `</body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := chromiumtest.Run(t, browser, page, 700, 700, "--dump-dom")
	start, end := strings.Index(dom, `<pre id="drawn">`), strings.Index(dom, `</pre>`)
	if start < 0 || end < start {
		t.Fatal("the page reported nothing drawn")
	}
	raw := strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(dom[start+len(`<pre id="drawn">`) : end])
	var d drawn
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		t.Fatalf("drawn: %v", err)
	}
	return &d
}

// cssColour is a palette entry as a computed style spells it.
func cssColour(hex string) string {
	c := parseHex(hex)
	return fmt.Sprintf("rgb(%d, %d, %d)", c.R, c.G, c.B)
}

// axis maps a data value to a page pixel, as read off the tick labels:
// each numeric label paired with the tick mark beside it.
type axis struct{ at, per float64 }

func (a axis) px(v float64) float64 { return a.at + a.per*v }

// readAxes reads both axes off the drawn chart: the x axis's labels are the
// numbers on the lowest row of numeric texts, each below a vertical black
// tick mark; the y axis's, the numbers in the leftmost column, each
// beside a horizontal one. Each axis is fitted through its two outermost
// ticks, and every other tick must lie on it within half a pixel.
func readAxes(t *testing.T, d *drawn) (x, y axis) {
	t.Helper()
	type tick struct{ v, px float64 }
	var xs, ys []tick
	bottom, left := 0.0, math.Inf(1)
	for _, tx := range d.Texts {
		if _, err := strconv.ParseFloat(tx.S, 64); err == nil {
			bottom, left = max(bottom, tx.Y), min(left, tx.X+tx.W)
		}
	}
	for _, tx := range d.Texts {
		v, err := strconv.ParseFloat(tx.S, 64)
		if err != nil {
			continue
		}
		cx, cy := tx.X+tx.W/2, tx.Y+tx.H/2
		for _, p := range d.Paths {
			if p.Stroke != "rgb(0, 0, 0)" || len(p.Pts) != 2 {
				continue
			}
			a, b := p.Pts[0], p.Pts[1]
			switch {
			case math.Abs(tx.Y-bottom) < 1 && a[0] == b[0] && math.Abs(a[0]-cx) < 3 && math.Abs(a[1]-b[1]) > 5:
				xs = append(xs, tick{v, a[0]})
			case math.Abs(tx.X+tx.W-left) < 1 && a[1] == b[1] && math.Abs(a[1]-cy) < 4 && math.Abs(a[0]-b[0]) > 5:
				ys = append(ys, tick{v, a[1]})
			}
		}
	}
	fit := func(name string, ts []tick) axis {
		if len(ts) < 2 {
			t.Fatalf("%s axis: %d labelled ticks read, want at least 2", name, len(ts))
		}
		lo, hi := ts[0], ts[0]
		for _, k := range ts {
			if k.v < lo.v {
				lo = k
			}
			if k.v > hi.v {
				hi = k
			}
		}
		a := axis{per: (hi.px - lo.px) / (hi.v - lo.v)}
		a.at = lo.px - a.per*lo.v
		for _, k := range ts {
			if math.Abs(a.px(k.v)-k.px) > 0.5 {
				t.Errorf("%s axis: tick %v at %.2f px, the others put it at %.2f", name, k.v, k.px, a.px(k.v))
			}
		}
		return a
	}
	return fit("x", xs), fit("y", ys)
}

// sizeSeries are a chart's lines (stroked, unfilled polylines) and glyphs
// (filled shapes, by the centre of their box) in one colour.
func sizeSeries(d *drawn, hex string) (lines [][][2]float64, dashes []string, glyphs [][2]float64) {
	c := cssColour(hex)
	for _, p := range d.Paths {
		switch {
		case p.Stroke == c && p.Fill == "none" && len(p.Pts) >= 2:
			lines, dashes = append(lines, p.Pts), append(dashes, p.Dash)
		case p.Fill == c:
			glyphs = append(glyphs, [2]float64{p.Cx, p.Cy})
		}
	}
	return lines, dashes, glyphs
}

// near2 reports whether two page points are within tol pixels each way.
func near2(a, b [2]float64, tol float64) bool {
	return math.Abs(a[0]-b[0]) <= tol && math.Abs(a[1]-b[1]) <= tol
}

// TestSizeChartInChromium sizes W3 for a 40-minute deadline (5 hosts; 4
// proven too few by their optimum), draws the cost curve as packer size
// --chart does, and reads it back from headless Chromium's DOM: the axes
// from their labelled ticks, then, in data units, the lower-bound curve
// through every host count examined and the plan curve through every count
// planned (lines and glyphs), the deadline line at the deadline across the
// counts, the chosen count's vertical line from 0 to its plan or above, the legend
// naming each beside a sample in its colour, four distinct dash patterns,
// and the title's answer. Its texts keep apart and within their widths.
func TestSizeChartInChromium(t *testing.T) {
	browser := chromiumtest.Find(t)
	w, err := workloads.Get("W3")
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.Size(w, model.Cluster{}, 2400, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Hosts != 5 || !res.Exact {
		t.Fatalf("W3 for 40 minutes: %s; the test expects 5 hosts, exact", res)
	}
	var pts []SizePoint
	for _, pt := range res.Curve {
		if pt.Hosts <= 2*res.Hosts+2 {
			pts = append(pts, SizePoint{Hosts: pt.Hosts, Bound: pt.Bound, Planned: pt.Planned, Makespan: pt.Makespan})
		}
	}
	g, err := SizeCurve(pts, res.Deadline, res.Hosts, res.Lo)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	d := readSizeChart(t, browser, svg)
	x, y := readAxes(t, d)
	at := func(hosts int, secs float64) [2]float64 { return [2]float64{x.px(float64(hosts)), y.px(secs / 3600)} }
	const tol = 0.6
	var bounds, plans [][2]float64
	for _, pt := range pts {
		bounds = append(bounds, at(pt.Hosts, pt.Bound))
		if pt.Planned {
			plans = append(plans, at(pt.Hosts, pt.Makespan))
		}
	}
	if len(plans) < 2 || len(bounds) < 4 {
		t.Fatalf("the fixture has %d plans and %d bounds; the test wants both curves drawn", len(plans), len(bounds))
	}
	var patterns []string
	for _, s := range []struct {
		name, colour string
		want         [][2]float64
	}{{"proven lower bound", linePalette[1], bounds}, {"plan makespan", linePalette[0], plans}} {
		lines, dash, glyphs := sizeSeries(d, s.colour)
		checkCurve(t, s.name, lines, glyphs, s.want, tol)
		patterns = append(patterns, dash[0])
	}
	chosenTop := 0.0
	for _, pt := range pts {
		if pt.Hosts == res.Hosts {
			chosenTop = pt.Makespan
		}
	}
	for _, s := range []struct {
		name, colour string
		from, to     [2]float64
	}{
		{"deadline", linePalette[2], at(pts[0].Hosts, res.Deadline), at(pts[len(pts)-1].Hosts, res.Deadline)},
		{"chosen: 5 hosts", linePalette[3], at(res.Hosts, 0), at(res.Hosts, chosenTop)},
	} {
		lines, dash, _ := sizeSeries(d, s.colour)
		// The chosen line may rise past its plan, to the chart's top.
		found := false
		for _, l := range lines {
			found = found || len(l) == 2 && near2(l[0], s.from, tol) &&
				(near2(l[1], s.to, tol) || s.from[0] == s.to[0] && math.Abs(l[1][0]-s.to[0]) <= tol && l[1][1] <= s.to[1])
		}
		if !found {
			t.Errorf("%s: no line from %.1f,%.1f to %.1f,%.1f px among %v", s.name, s.from[0], s.from[1], s.to[0], s.to[1], lines)
		}
		patterns = append(patterns, dash[0])
	}
	checkSizeLegend(t, d)
	for i, p := range patterns {
		for _, q := range patterns[i+1:] {
			if p == q {
				t.Errorf("two of the four lines share the dash pattern %q: %v", p, patterns)
			}
		}
	}
	checkTitle(t, d, "Hosts for a deadline of 2400 s (40m0s): 5")
	m, _ := render(t, browser, "size", svg)
	checkBrowserTextApart(t, m)
	checkBrowserWidths(t, m)
}

// checkCurve finds, among a series' lines, one through every wanted point
// in order, and a glyph on each point.
func checkCurve(t *testing.T, name string, lines [][][2]float64, glyphs, want [][2]float64, tol float64) {
	t.Helper()
	found := false
	for _, l := range lines {
		ok := len(l) == len(want)
		for i := 0; ok && i < len(l); i++ {
			ok = near2(l[i], want[i], tol)
		}
		found = found || ok
	}
	if !found {
		t.Errorf("%s: no line through %v px among %v", name, want, lines)
	}
	for _, p := range want {
		ok := false
		for _, g := range glyphs {
			ok = ok || near2(g, p, tol)
		}
		if !ok {
			t.Errorf("%s: no glyph at %.1f,%.1f px among %v", name, p[0], p[1], glyphs)
		}
	}
}

// checkSizeLegend finds each legend label with a short horizontal sample in
// its series' colour at its height, right beside it.
func checkSizeLegend(t *testing.T, d *drawn) {
	t.Helper()
	for i, label := range []string{"plan makespan", "proven lower bound", "deadline", "chosen: 5 hosts"} {
		found := false
		for _, tx := range d.Texts {
			if tx.S != label {
				continue
			}
			lines, _, _ := sizeSeries(d, linePalette[i])
			for _, l := range lines {
				found = found || len(l) == 2 && l[0][1] == l[1][1] && math.Abs(l[0][1]-(tx.Y+tx.H/2)) < 3 &&
					l[0][0] >= tx.X+tx.W && l[0][0] < tx.X+tx.W+20
			}
		}
		if !found {
			t.Errorf("legend: no %q beside a sample line in %s", label, linePalette[i])
		}
	}
}

// checkTitle fails unless the chart has the title text.
func checkTitle(t *testing.T, d *drawn, title string) {
	t.Helper()
	var texts []string
	for _, tx := range d.Texts {
		if tx.S == title {
			return
		}
		texts = append(texts, tx.S)
	}
	t.Errorf("no title %q among %q", title, texts)
}

// TestSizeChartIntervalInChromium: an answer the bounds leave open is
// titled as the interval.
func TestSizeChartIntervalInChromium(t *testing.T) {
	browser := chromiumtest.Find(t)
	g, err := SizeCurve([]SizePoint{{Hosts: 22, Bound: 16700, Planned: true, Makespan: 23440}, {Hosts: 30, Bound: 10336},
		{Hosts: 36, Bound: 8764, Planned: true, Makespan: 14000}}, 4*3600, 36, 23)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	checkTitle(t, readSizeChart(t, browser, svg), "Hosts for a deadline of 14400 s (4h0m0s): between 23 and 36")
}
