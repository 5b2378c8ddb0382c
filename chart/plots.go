package chart

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Grid is a set of gonum plots laid out in rows and columns: the pictures
// with axes (model fits, comparisons) that are not scenes.
type Grid struct {
	Plots [][]*plot.Plot // rows of plots; nil entries leave a tile empty
	// TileW and TileH are each plot's size in points; defaults 320 × 240.
	TileW, TileH vg.Length
}

func (g *Grid) size() (rows, cols int, w, h vg.Length) {
	rows = len(g.Plots)
	for _, r := range g.Plots {
		cols = max(cols, len(r))
	}
	tw, th := g.TileW, g.TileH
	if tw == 0 {
		tw = 320
	}
	if th == 0 {
		th = 240
	}
	return rows, cols, tw * vg.Length(cols), th * vg.Length(rows)
}

func (g *Grid) draw(c vg.CanvasSizer) {
	rows, cols, _, _ := g.size()
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	// plot.Align needs a full grid; fill gaps with empty, hidden plots.
	full := make([][]*plot.Plot, rows)
	for i := range rows {
		full[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if j < len(g.Plots[i]) && g.Plots[i][j] != nil {
				full[i][j] = g.Plots[i][j]
			} else {
				p := plot.New()
				p.HideAxes()
				full[i][j] = p
			}
		}
	}
	canvases := plot.Align(full, tiles, dc)
	for i := range rows {
		for j := range cols {
			full[i][j].Draw(canvases[i][j])
		}
	}
}

// SVG renders the grid as an SVG document.
func (g *Grid) SVG() ([]byte, error) {
	_, _, w, h := g.size()
	c := vgsvg.New(w, h)
	g.draw(c)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart: svg: %w", err)
	}
	return pinWidths(b.Bytes()), nil
}

// gonumText matches a text element as vgsvg writes it: attributes, a style
// naming Liberation Sans and its size, and escaped content.
var gonumText = regexp.MustCompile(`<text ([^>]*?)style="font-family:Liberation Sans;([^"]*?)font-size:([0-9.]+)px"\s*>([^<]*)</text>`)

// pinWidths gives every Liberation Sans text of a gonum SVG the font stack
// and pins its width (textLength) to the one gonum laid it out with, so that
// a browser without Liberation Sans or Arial squeezes its fallback font into
// the same room instead of running into the neighbouring text; embedding the
// font would cost hundreds of kilobytes a picture.
func pinWidths(svg []byte) []byte {
	return gonumText.ReplaceAllFunc(svg, func(m []byte) []byte {
		sub := gonumText.FindSubmatch(m)
		size, err := strconv.ParseFloat(string(sub[3]), 64)
		if err != nil {
			return m
		}
		bold := bytes.Contains(sub[2], []byte("font-weight:bold"))
		face := textFace(size, bold)
		w := float64(face.Width(html.UnescapeString(string(sub[4]))))
		return fmt.Appendf(nil, `<text %stextLength="%.2f" lengthAdjust="spacingAndGlyphs" style="font-family:%s;%sfont-size:%spx">%s</text>`,
			sub[1], w, fontFamily, sub[2], sub[3], sub[4])
	})
}

// PNG renders the grid at 2 pixels per point.
func (g *Grid) PNG() ([]byte, error) {
	_, _, w, h := g.size()
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(144), vgimg.UseBackgroundColor(color.White))
	g.draw(c)
	return pngBytes(c)
}

// Encode renders the grid in the format the file name asks for: .svg or .png.
func (g *Grid) Encode(path string) ([]byte, error) {
	return encodeByExt(path, g.SVG, g.PNG)
}

// encodeByExt renders with svg or png as the file name's extension asks.
func encodeByExt(path string, svg, png func() ([]byte, error)) ([]byte, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return svg()
	case ".png":
		return png()
	}
	return nil, fmt.Errorf("chart: %s: unknown picture format %q (want .svg or .png)", path, filepath.Ext(path))
}

// pngBytes encodes a drawn canvas as PNG.
func pngBytes(c *vgimg.Canvas) ([]byte, error) {
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart: png: %w", err)
	}
	return b.Bytes(), nil
}

// Picture is anything chart renders to a file: a Scene or a Grid.
type Picture interface {
	Encode(path string) ([]byte, error)
}

var (
	_ Picture = (*Scene)(nil)
	_ Picture = (*Grid)(nil)
)

// rgb turns a palette entry into a color.Color for gonum plots.
func rgb(hex string) color.Color { return parseHex(hex) }

// newPlot returns a gonum plot set in Liberation Sans (gonum's default is the
// serif face), matching the scenes and reading better at small sizes.
func newPlot() *plot.Plot {
	p := plot.New()
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = "Sans"
	}
	// Room between tick labels and the axis label, which gonum otherwise
	// sets closer than a browser's line boxes.
	p.X.Label.Padding, p.Y.Label.Padding = vg.Points(3), vg.Points(3)
	// gonum spaces legend rows by less than a browser line box (1.16 em in
	// DejaVu Sans); 5 points make up the difference at 12 points.
	p.Legend.Padding = vg.Points(5)
	return p
}
