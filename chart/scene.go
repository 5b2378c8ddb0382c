package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// Scene is a picture as a list of items in pixel coordinates, origin at the
// top left, y downwards (as in SVG).
type Scene struct {
	W, H  float64
	Title string // the picture's accessible title
	Items []Item
}

// Item is one drawable element: a *Rect, *Line or *Text.
type Item interface{ item() }

// Rect is a filled rectangle, optionally outlined.
type Rect struct {
	X, Y, W, H float64
	Fill       string // #rrggbb, or "" for none
	Stroke     string // #rrggbb, or "" for none
	Class      string
	Attrs      [][2]string // extra SVG attributes, e.g. {"data-job", "s-srt-1"}
	Tooltip    string
	Hatch      bool // draw diagonal hatching over the fill
	// Pattern names a fill pattern (patterns) drawn over the fill in black or
	// white, whichever reads better on it; "" or "solid" for none.
	Pattern string
}

// Line is a straight stroke.
type Line struct {
	X1, Y1, X2, Y2 float64
	Stroke         string
	Width          float64
	Dash           bool
	Class          string
}

// Text is a single line of text; Y is its baseline.
type Text struct {
	X, Y   float64
	S      string
	Size   float64 // pixels; default 12
	Anchor string  // start (default), middle or end
	Fill   string  // default #000000
	Bold   bool
	Class  string
	Attrs  [][2]string // extra SVG attributes
}

func (*Rect) item() {}
func (*Line) item() {}
func (*Text) item() {}

// The Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008) with
// grey in place of black, which is kept for text and the makespan mark. Past
// eight series the colours repeat with another fill pattern (seriesStyle).
var palette = []string{"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999"}

// textColorOn returns black or white, whichever has the higher WCAG 2
// contrast ratio against fill.
func textColorOn(fill string) string {
	c := parseHex(fill)
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
	if (1.05)/(l+0.05) > (l+0.05)/0.05 {
		return "#FFFFFF"
	}
	return "#000000"
}

func parseHex(s string) color.RGBA {
	if len(s) != 7 || s[0] != '#' {
		return color.RGBA{A: 255}
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.RGBA{A: 255}
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// SVG renders the scene as a standalone SVG document.
func (s *Scene) SVG() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`+"\n",
		num(s.W), num(s.H), num(s.W), num(s.H), esc(s.Title))
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(s.Title))
	b.WriteString(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
		`<line x1="0" y1="0" x2="0" y2="6" stroke="#000000" stroke-opacity="0.22" stroke-width="2"/></pattern>` + "\n")
	defined := map[string]bool{}
	for _, it := range s.Items {
		if r, ok := it.(*Rect); ok {
			if p, ok := lookupPattern(r.Pattern); ok && !defined[patternID(p.Name, textColorOn(r.Fill))] {
				defined[patternID(p.Name, textColorOn(r.Fill))] = true
				b.WriteString(patternDef(p, textColorOn(r.Fill)) + "\n")
			}
		}
	}
	b.WriteString("</defs>\n")
	fmt.Fprintf(&b, `<rect class="background" x="0" y="0" width="%s" height="%s" fill="#FFFFFF"/>`+"\n", num(s.W), num(s.H))
	fmt.Fprintf(&b, `<g font-family="%s">`+"\n", fontFamily)
	for _, it := range s.Items {
		switch v := it.(type) {
		case *Rect:
			svgRect(&b, v)
		case *Line:
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"`, num(v.X1), num(v.Y1), num(v.X2), num(v.Y2), or(v.Stroke, "#000000"), num(orF(v.Width, 1)))
			if v.Dash {
				b.WriteString(` stroke-dasharray="4 3"`)
			}
			if v.Class != "" {
				fmt.Fprintf(&b, ` class="%s"`, esc(v.Class))
			}
			b.WriteString("/>\n")
		case *Text:
			svgText(&b, v)
		}
	}
	b.WriteString("</g>\n</svg>\n")
	return b.Bytes()
}

// svgRect writes a rectangle, then its pattern and hatching as rectangles
// of their own over it (class pattern and hatch), which tests count.
func svgRect(b *bytes.Buffer, v *Rect) {
	fill := v.Fill
	if fill == "" {
		fill = "none"
	}
	fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"`, num(v.X), num(v.Y), num(v.W), num(v.H), fill)
	if v.Stroke != "" {
		fmt.Fprintf(b, ` stroke="%s"`, v.Stroke)
	}
	if v.Class != "" {
		fmt.Fprintf(b, ` class="%s"`, esc(v.Class))
	}
	for _, a := range v.Attrs {
		fmt.Fprintf(b, ` %s="%s"`, a[0], esc(a[1]))
	}
	if v.Tooltip != "" {
		fmt.Fprintf(b, "><title>%s</title></rect>\n", esc(v.Tooltip))
	} else {
		b.WriteString("/>\n")
	}
	if p, ok := lookupPattern(v.Pattern); ok {
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" fill="url(#%s)" class="pattern"/>`+"\n",
			num(v.X), num(v.Y), num(v.W), num(v.H), patternID(p.Name, textColorOn(v.Fill)))
	}
	if v.Hatch {
		class := "hatch"
		if v.Class != "vm" {
			class = v.Class + "-hatch"
		}
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" fill="url(#hatch)" class="%s"/>`+"\n", num(v.X), num(v.Y), num(v.W), num(v.H), class)
	}
}

// svgText writes a text element.
func svgText(b *bytes.Buffer, v *Text) {
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s"`, num(v.X), num(v.Y), num(orF(v.Size, 12)))
	if v.Anchor != "" && v.Anchor != "start" {
		fmt.Fprintf(b, ` text-anchor="%s"`, v.Anchor)
	}
	if v.Fill != "" && v.Fill != "#000000" {
		fmt.Fprintf(b, ` fill="%s"`, v.Fill)
	}
	if v.Bold {
		b.WriteString(` font-weight="bold"`)
	}
	if v.Class != "" {
		fmt.Fprintf(b, ` class="%s"`, esc(v.Class))
	}
	for _, a := range v.Attrs {
		fmt.Fprintf(b, ` %s="%s"`, a[0], esc(a[1]))
	}
	fmt.Fprintf(b, ">%s</text>\n", esc(v.S))
}

// PNG renders the scene at the given scale (2 gives a sharp image on
// high-density screens).
func (s *Scene) PNG(scale float64) ([]byte, error) {
	if scale <= 0 {
		scale = 1
	}
	// 72 DPI makes one point one pixel; the scale multiplies both.
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(s.W*scale), vg.Length(s.H*scale)), vgimg.UseDPI(72), vgimg.UseBackgroundColor(color.White))
	c.Scale(scale, scale)
	r := pngRenderer{c: c, h: s.H}
	for _, it := range s.Items {
		switch v := it.(type) {
		case *Rect:
			r.rect(v)
		case *Line:
			c.Push()
			c.SetColor(parseHex(or(v.Stroke, "#000000")))
			c.SetLineWidth(vg.Length(orF(v.Width, 1)))
			if v.Dash {
				c.SetLineDash([]vg.Length{4, 3}, 0)
			}
			var p vg.Path
			p.Move(r.pt(v.X1, v.Y1))
			p.Line(r.pt(v.X2, v.Y2))
			c.Stroke(p)
			c.Pop()
		case *Text:
			size := orF(v.Size, 12)
			face := textFace(size, v.Bold)
			// Anchored by the width of the face drawn, not the
			// conservative TextWidth, so the PNG centres truly.
			x := v.X
			switch v.Anchor {
			case "middle":
				x -= float64(face.Width(v.S)) / 2
			case "end":
				x -= float64(face.Width(v.S))
			}
			c.SetColor(parseHex(or(v.Fill, "#000000")))
			c.FillString(face, r.pt(x, v.Y), v.S)
		}
	}
	return pngBytes(c)
}

// pngRenderer draws scene items on a raster canvas of height h (gonum's y
// axis points up).
type pngRenderer struct {
	c *vgimg.Canvas
	h float64
}

func (r pngRenderer) pt(x, y float64) vg.Point {
	return vg.Point{X: vg.Length(x), Y: vg.Length(r.h - y)}
}

// box is the closed path around a rectangle.
func (r pngRenderer) box(x0, y0, x1, y1 float64) vg.Path {
	var p vg.Path
	p.Move(r.pt(x0, y0))
	p.Line(r.pt(x1, y0))
	p.Line(r.pt(x1, y1))
	p.Line(r.pt(x0, y1))
	p.Close()
	return p
}

// rect draws a rectangle in the SVG's order: fill, pattern, hatching, outline.
func (r pngRenderer) rect(v *Rect) {
	c := r.c
	p := r.box(v.X, v.Y, v.X+v.W, v.Y+v.H)
	if v.Fill != "" {
		c.SetColor(parseHex(v.Fill))
		c.Fill(p)
	}
	if pat, ok := lookupPattern(v.Pattern); ok {
		ink := parseHex(textColorOn(v.Fill))
		c.SetColor(color.NRGBA{R: ink.R, G: ink.G, B: ink.B, A: uint8(math.Round(patternInkOpacity * 255))})
		patternInk(pat, v.X, v.Y, v.W, v.H, func(x0, y0, x1, y1 float64) { c.Fill(r.box(x0, y0, x1, y1)) })
	}
	if v.Hatch {
		c.Push()
		c.SetColor(color.RGBA{A: 56})
		c.SetLineWidth(1.5)
		for off := -v.H; off < v.W; off += 6 {
			x0, x1 := max(v.X+off, v.X), min(v.X+off+v.H, v.X+v.W)
			if x1 <= x0 {
				continue
			}
			var l vg.Path
			l.Move(r.pt(x0, v.Y+v.H-(x0-v.X-off)))
			l.Line(r.pt(x1, v.Y+v.H-(x1-v.X-off)))
			c.Stroke(l)
		}
		c.Pop()
	}
	if v.Stroke != "" {
		c.SetColor(parseHex(v.Stroke))
		c.SetLineWidth(1)
		c.Stroke(p)
	}
}

// Encode renders the scene in the format the file name asks for: .svg or .png.
func (s *Scene) Encode(path string) ([]byte, error) {
	return encodeByExt(path, func() ([]byte, error) { return s.SVG(), nil }, func() ([]byte, error) { return s.PNG(2) })
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orF(f, def float64) float64 {
	if f == 0 {
		return def
	}
	return f
}

func esc(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
