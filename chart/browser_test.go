package chart

import (
	"bytes"
	"encoding/json"
	"flag"
	chromiumtest "github.com/packer-sched/packer/internal/chromium"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var shots = flag.String("shots", "", "directory to keep the Chromium screenshots of TestChartsInChromium in")

// measureScript runs in the page after the picture: it writes, as JSON into
// <pre id="measured">, the box Chromium laid out for every non-empty text
// (with the fonts this machine has), every legend swatch, and the width each
// printable ASCII character takes in the font stack at 1000 px, regular and
// bold, to hold the width table against.
const measureScript = `<script>
const out = {texts: [], marks: [], swatches: [], advance: [], advanceBold: []};
for (const t of document.querySelectorAll("svg text")) {
  if (!t.textContent.trim()) continue;
  const r = t.getBoundingClientRect(), cs = getComputedStyle(t);
  out.texts.push({s: t.textContent, cls: t.getAttribute("class") || "", x: r.x, y: r.y, w: r.width, h: r.height,
    size: parseFloat(cs.fontSize), bold: parseInt(cs.fontWeight) >= 600, len: t.getComputedTextLength(),
    pinned: parseFloat(t.getAttribute("textLength") || "0"), scene: t.hasAttribute("font-size")});
}
for (const e of document.querySelectorAll("rect.legend, line.legend, rect.legend-swatch")) {
  const r = e.getBoundingClientRect();
  out.marks.push({cls: e.getAttribute("class"), x: r.x, y: r.y, w: r.width, h: r.height});
}
for (const s of document.querySelectorAll("rect.legend-swatch")) {
  const r = s.getBoundingClientRect();
  out.swatches.push({job: s.dataset.job, fill: s.getAttribute("fill"), pattern: s.dataset.pattern, x: r.x, y: r.y, w: r.width, h: r.height});
}
const probe = document.createElementNS("http://www.w3.org/2000/svg", "svg");
document.body.appendChild(probe);
for (const weight of ["normal", "bold"]) {
  for (let c = 32; c < 127; c++) {
    const t = document.createElementNS("http://www.w3.org/2000/svg", "text");
    t.setAttribute("font-family", FONTS);
    t.setAttribute("font-size", "1000");
    t.setAttribute("font-weight", weight);
    t.style.whiteSpace = "pre";
    t.textContent = String.fromCharCode(c);
    probe.appendChild(t);
    (weight == "bold" ? out.advanceBold : out.advance).push(t.getComputedTextLength());
  }
}
probe.remove();
document.getElementById("measured").textContent = JSON.stringify(out);
</script>`

// measured is what measureScript reports.
type measured struct {
	Texts []struct {
		S, Cls     string
		X, Y, W, H float64
		// Size is the font size and Len the width Chromium gave the
		// text, both in the picture's units; Pinned its textLength, if any.
		Size, Len, Pinned float64
		Bold              bool
		Scene             bool // drawn by a Scene (which sets font-size), not by gonum
	}
	// Marks are the Gantt legend's swatches and line samples.
	Marks []struct {
		Cls        string
		X, Y, W, H float64
	}
	Swatches []struct {
		Job, Fill, Pattern string
		X, Y, W, H         float64
	}
	Advance, AdvanceBold []float64
}

// chromium runs headless Chromium on a page with extra arguments and returns
// its standard output.
func chromium(t *testing.T, browser, page string, w, h int, extra ...string) string {
	t.Helper()
	out, _ := chromiumtest.Run(t, browser, page, w, h, append([]string{"--hide-scrollbars", "--force-device-scale-factor=1"}, extra...)...)
	return out
}

var (
	measuredPre = regexp.MustCompile(`(?s)<pre id="measured">(.*?)</pre>`)
	svgSize     = regexp.MustCompile(`<svg[^>]*?\swidth="([0-9.]+)(pt)?"[^>]*?\sheight="([0-9.]+)(pt)?"`)
)

// render puts an SVG picture alone on a page, lets Chromium lay it out and
// measure it, and screenshots it; it returns the measurements and the
// screenshot, kept as name.png in -shots if given.
func render(t *testing.T, browser, name string, svg []byte) (*measured, image.Image) {
	t.Helper()
	m := svgSize.FindSubmatch(svg)
	if m == nil {
		t.Fatalf("%s: no SVG size", name)
	}
	px := func(v, unit []byte) int {
		f, _ := strconv.ParseFloat(string(v), 64)
		if len(unit) > 0 {
			f *= 96.0 / 72
		}
		return int(math.Ceil(f))
	}
	w, h := px(m[1], m[2]), px(m[3], m[4])
	dir := t.TempDir()
	page := filepath.Join(dir, name+".html")
	html := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0} svg{display:block}</style></head><body>` +
		string(svg) + `<pre id="measured"></pre>` + strings.Replace(measureScript, "FONTS", strconv.Quote(fontFamily), 1) + `</body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := chromium(t, browser, page, w, h+200, "--dump-dom")
	mm := measuredPre.FindStringSubmatch(dom)
	if mm == nil {
		t.Fatalf("%s: the page reported no measurements", name)
	}
	var got measured
	if err := json.Unmarshal([]byte(strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(mm[1])), &got); err != nil {
		t.Fatalf("%s: measurements: %v", name, err)
	}
	shot := filepath.Join(dir, name+".png")
	chromium(t, browser, page, w, h, "--screenshot="+shot)
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", name, err)
	}
	if *shots != "" {
		if err := os.WriteFile(filepath.Join(*shots, name+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &got, img
}

// checkBrowserTextApart fails for any two texts whose boxes, as Chromium laid
// them out, overlap by more than half a pixel both ways, and for any text
// over a legend mark.
func checkBrowserTextApart(t *testing.T, m *measured) {
	t.Helper()
	if len(m.Texts) < 10 {
		t.Fatalf("only %d texts measured", len(m.Texts))
	}
	const slack = 0.5
	for i, a := range m.Texts {
		for _, b := range m.Texts[i+1:] {
			if a.X+slack < b.X+b.W && b.X+slack < a.X+a.W && a.Y+slack < b.Y+b.H && b.Y+slack < a.Y+a.H {
				t.Errorf("%q (%s) at %.1f,%.1f %.1f×%.1f overlaps %q (%s) at %.1f,%.1f %.1f×%.1f",
					a.S, a.Cls, a.X, a.Y, a.W, a.H, b.S, b.Cls, b.X, b.Y, b.W, b.H)
			}
		}
		for _, b := range m.Marks {
			if a.X+slack < b.X+b.W && b.X+slack < a.X+a.W && a.Y+slack < b.Y+b.H && b.Y+slack < a.Y+a.H {
				t.Errorf("%q (%s) at %.1f,%.1f %.1f×%.1f overlaps a legend mark (%s) at %.1f,%.1f %.1f×%.1f",
					a.S, a.Cls, a.X, a.Y, a.W, a.H, b.Cls, b.X, b.Y, b.W, b.H)
			}
		}
	}
}

// checkBrowserWidths fails for any text Chromium drew wider than the layout
// reserved for it: the width it was pinned to (gonum's plots), or else
// TextWidth (scenes).
func checkBrowserWidths(t *testing.T, m *measured) {
	t.Helper()
	for _, x := range m.Texts {
		want := x.Pinned
		switch {
		case x.Scene:
			want = textWidth(x.S, x.Size, x.Bold)
		case want == 0:
			t.Errorf("%q (%s): a gonum text without a pinned width", x.S, x.Cls)
			continue
		}
		if x.Len > want+0.5 {
			t.Errorf("%q (%s) at %v px is %.2f wide, the layout reserved %.2f", x.S, x.Cls, x.Size, x.Len, want)
		}
	}
}

// inkedShare is the share of an image's pixels, every 3rd each way, that
// are not near white.
func inkedShare(img image.Image) float64 {
	ink, all := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			all++
			if r < 0xF000 || g < 0xF000 || bl < 0xF000 {
				ink++
			}
		}
	}
	return float64(ink) / float64(all)
}

// near reports whether pixel (x, y) is within tol of colour hex in every channel.
func near(img image.Image, x, y int, hex string, tol int) bool {
	c := parseHex(hex)
	r, g, b, _ := img.At(x, y).RGBA()
	d := func(a uint32, b uint8) int { return int(a>>8) - int(b) }
	return abs(d(r, c.R)) <= tol && abs(d(g, c.G)) <= tol && abs(d(b, c.B)) <= tol
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestChartsInChromium renders the 60-job Gantt chart and the nine-policy
// simulation comparison in headless Chromium, with the fonts this machine
// has (DejaVu Sans and no Arial, on the usual Linux), and checks what a
// reader would see: no two texts overlap; no text is wider than the layout
// reserved for it; the width table reserves at least
// what every character takes; the screenshots are not blank; each Gantt
// legend swatch shows its job's colour, with its pattern where it has one;
// and each policy's colour is painted. The pictures committed in docs/img
// must keep their texts apart too.
func TestChartsInChromium(t *testing.T) {
	browser := chromiumtest.Find(t)
	t.Run("gantt60", func(t *testing.T) {
		m, img := render(t, browser, "gantt60", Gantt(manyJobsPlan(t)).SVG())
		checkBrowserTextApart(t, m)
		checkBrowserWidths(t, m)
		for i := range 95 {
			for _, c := range []struct {
				got   []float64
				table *[95]uint16
			}{{m.Advance, &advance}, {m.AdvanceBold, &advanceBold}} {
				if len(c.got) != 95 || c.got[i] > float64(c.table[i])+0.5 {
					t.Fatalf("%q takes %v of 1000 in Chromium, the table reserves %d", rune(' '+i), c.got, c.table[i])
				}
			}
		}
		if s := inkedShare(img); s < 0.2 {
			t.Errorf("screenshot nearly blank: %.0f %% inked", 100*s)
		}
		checkSwatches(t, m, img)
	})
	// The committed pictures of docs/ (make pictures), as a reader of the
	// README sees them.
	docs, err := filepath.Glob(filepath.Join("..", "docs", "img", "*.svg"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no pictures in docs/img: %v", err)
	}
	for _, path := range docs {
		name := strings.TrimSuffix(filepath.Base(path), ".svg")
		t.Run(name, func(t *testing.T) {
			svg, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, img := render(t, browser, name, svg)
			checkBrowserTextApart(t, m)
			checkBrowserWidths(t, m)
			if s := inkedShare(img); s < 0.05 {
				t.Errorf("screenshot nearly blank: %.1f %% inked", 100*s)
			}
		})
	}
	t.Run("simulate9", func(t *testing.T) {
		results := ninePolicies(t)
		g, err := Comparison(results)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := g.SVG()
		if err != nil {
			t.Fatal(err)
		}
		m, img := render(t, browser, "simulate9", svg)
		checkBrowserTextApart(t, m)
		checkBrowserWidths(t, m)
		for _, r := range results {
			// The legend names a policy whose runs match an earlier one's
			// "name (same as other)".
			n := 0
			for _, tx := range m.Texts {
				if tx.S == r.Policy || strings.HasPrefix(tx.S, r.Policy+" (same as ") {
					n++
				}
			}
			if n != 3 {
				t.Errorf("policy %s named %d times, want on both bar axes and in the legend", r.Policy, n)
			}
		}
		if s := inkedShare(img); s < 0.05 {
			t.Errorf("screenshot nearly blank: %.1f %% inked", 100*s)
		}
		// Each policy's bars are painted in its colour: two bars of 14 pt
		// (18.7 px) high, hundreds of pixels long.
		b := img.Bounds()
		for i := range min(len(results), len(linePalette)) {
			n := 0
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if near(img, x, y, policyColour(i), 6) {
						n++
					}
				}
			}
			if n < 2000 {
				t.Errorf("policy %s's colour %s covers %d pixels", results[i].Policy, policyColour(i), n)
			}
		}
	})
}

// checkSwatches reads each Gantt legend swatch off the screenshot: most of
// its inside (a swatch is 18 × 14 px: 13 × 9 inside the outline and
// antialiasing) must be its job's colour, and more than a tenth other (the
// pattern's ink) exactly when it has a pattern; and the swatches show all
// eight colours.
func checkSwatches(t *testing.T, m *measured, img image.Image) {
	t.Helper()
	if len(m.Swatches) != 60 {
		t.Fatalf("%d swatches measured, want 60", len(m.Swatches))
	}
	colours := map[string]bool{}
	for _, s := range m.Swatches {
		fill, other, all := 0, 0, 0
		for y := int(s.Y) + 3; y < int(s.Y+s.H)-2; y++ {
			for x := int(s.X) + 3; x < int(s.X+s.W)-2; x++ {
				all++
				if near(img, x, y, s.Fill, 8) {
					fill++
				} else {
					other++
				}
			}
		}
		if all == 0 || float64(fill) < 0.4*float64(all) {
			t.Errorf("swatch of %s: %d of %d pixels in its colour %s", s.Job, fill, all, s.Fill)
			continue
		}
		colours[s.Fill] = true
		if patterned := s.Pattern != "solid"; patterned != (float64(other) > 0.1*float64(all)) {
			t.Errorf("swatch of %s (pattern %s): %d of %d pixels not its colour", s.Job, s.Pattern, other, all)
		}
	}
	if len(colours) != len(palette) {
		t.Errorf("the swatches show %d colours, want %d", len(colours), len(palette))
	}
}
