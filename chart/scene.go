package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
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
}

func (*Rect) item() {}
func (*Line) item() {}
func (*Text) item() {}

// The Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008) without
// black, which is kept for text; past seven jobs the colours repeat and the
// bar labels tell jobs apart.
var palette = []string{"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}

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

// textFace is the font the PNG renderer uses, and the one text widths are
// measured with: Liberation Sans, metrically compatible with Arial and
// Helvetica, which the SVG names first.
func textFace(size float64, bold bool) font.Face {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Length(size)}
	if bold {
		f.Weight = 700
	}
	_ = plot.DefaultFont // importing plot registers the Liberation fonts
	return font.DefaultCache.Lookup(f, vg.Length(size))
}

// TextWidth is the width in pixels of s at the given size.
func TextWidth(s string, size float64) float64 {
	f := textFace(size, false)
	return float64(f.Width(s))
}

// SVG renders the scene as a standalone SVG document.
func (s *Scene) SVG() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`+"\n",
		num(s.W), num(s.H), num(s.W), num(s.H), esc(s.Title))
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(s.Title))
	b.WriteString(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
		`<line x1="0" y1="0" x2="0" y2="6" stroke="#000000" stroke-opacity="0.22" stroke-width="2"/></pattern></defs>` + "\n")
	fmt.Fprintf(&b, `<rect class="background" x="0" y="0" width="%s" height="%s" fill="#FFFFFF"/>`+"\n", num(s.W), num(s.H))
	b.WriteString(`<g font-family="Arial, Helvetica, 'Liberation Sans', sans-serif">` + "\n")
	for _, it := range s.Items {
		switch v := it.(type) {
		case *Rect:
			fill := v.Fill
			if fill == "" {
				fill = "none"
			}
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"`, num(v.X), num(v.Y), num(v.W), num(v.H), fill)
			if v.Stroke != "" {
				fmt.Fprintf(&b, ` stroke="%s"`, v.Stroke)
			}
			if v.Class != "" {
				fmt.Fprintf(&b, ` class="%s"`, esc(v.Class))
			}
			for _, a := range v.Attrs {
				fmt.Fprintf(&b, ` %s="%s"`, a[0], esc(a[1]))
			}
			if v.Tooltip != "" {
				fmt.Fprintf(&b, "><title>%s</title></rect>\n", esc(v.Tooltip))
			} else {
				b.WriteString("/>\n")
			}
			if v.Hatch {
				class := "hatch"
				if v.Class != "vm" {
					class = v.Class + "-hatch"
				}
				fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="url(#hatch)" class="%s"/>`+"\n", num(v.X), num(v.Y), num(v.W), num(v.H), class)
			}
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
			fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="%s"`, num(v.X), num(v.Y), num(orF(v.Size, 12)))
			if v.Anchor != "" && v.Anchor != "start" {
				fmt.Fprintf(&b, ` text-anchor="%s"`, v.Anchor)
			}
			if v.Fill != "" && v.Fill != "#000000" {
				fmt.Fprintf(&b, ` fill="%s"`, v.Fill)
			}
			if v.Bold {
				b.WriteString(` font-weight="bold"`)
			}
			if v.Class != "" {
				fmt.Fprintf(&b, ` class="%s"`, esc(v.Class))
			}
			fmt.Fprintf(&b, ">%s</text>\n", esc(v.S))
		}
	}
	b.WriteString("</g>\n</svg>\n")
	return b.Bytes()
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
	h := s.H
	pt := func(x, y float64) vg.Point { return vg.Point{X: vg.Length(x), Y: vg.Length(h - y)} }
	for _, it := range s.Items {
		switch v := it.(type) {
		case *Rect:
			var p vg.Path
			p.Move(pt(v.X, v.Y))
			p.Line(pt(v.X+v.W, v.Y))
			p.Line(pt(v.X+v.W, v.Y+v.H))
			p.Line(pt(v.X, v.Y+v.H))
			p.Close()
			if v.Fill != "" {
				c.SetColor(parseHex(v.Fill))
				c.Fill(p)
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
					l.Move(pt(x0, v.Y+v.H-(x0-v.X-off)))
					l.Line(pt(x1, v.Y+v.H-(x1-v.X-off)))
					c.Stroke(l)
				}
				c.Pop()
			}
			if v.Stroke != "" {
				c.SetColor(parseHex(v.Stroke))
				c.SetLineWidth(1)
				c.Stroke(p)
			}
		case *Line:
			c.Push()
			c.SetColor(parseHex(or(v.Stroke, "#000000")))
			c.SetLineWidth(vg.Length(orF(v.Width, 1)))
			if v.Dash {
				c.SetLineDash([]vg.Length{4, 3}, 0)
			}
			var p vg.Path
			p.Move(pt(v.X1, v.Y1))
			p.Line(pt(v.X2, v.Y2))
			c.Stroke(p)
			c.Pop()
		case *Text:
			size := orF(v.Size, 12)
			face := textFace(size, v.Bold)
			x := v.X
			switch v.Anchor {
			case "middle":
				x -= TextWidth(v.S, size) / 2
			case "end":
				x -= TextWidth(v.S, size)
			}
			c.SetColor(parseHex(or(v.Fill, "#000000")))
			c.FillString(face, pt(x, v.Y), v.S)
		}
	}
	return pngBytes(c)
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
