package chart

import (
	"fmt"
	"strings"
)

// A fillPattern is a repeating tile of ink squares drawn over a bar's colour,
// so that series sharing a colour still look different, in print and to
// readers who cannot tell the colours apart. Tiles are anchored at the
// picture's origin in both renderers (SVG userSpaceOnUse, and the PNG
// renderer tiles the same way). Each covers well under half its tile, so the
// bar's colour stays the one seen most.
type fillPattern struct {
	Name string
	Tile float64      // the tile's side, in pixels
	Ink  [][4]float64 // x, y, w, h of each inked rectangle within the tile
}

// patterns are the fills a series can have, solid first. None is a diagonal
// hatch: that marks overcommitted hosts.
var patterns = []fillPattern{
	{Name: "solid"},
	{Name: "dots", Tile: 5, Ink: [][4]float64{{1.5, 1.5, 1.6, 1.6}}},
	{Name: "hlines", Tile: 4, Ink: [][4]float64{{0, 1.5, 4, 1.2}}},
	{Name: "vlines", Tile: 4, Ink: [][4]float64{{1.5, 0, 1.2, 4}}},
	{Name: "grid", Tile: 6, Ink: [][4]float64{{0, 2.5, 6, 1}, {2.5, 0, 1, 2.5}, {2.5, 3.5, 1, 2.5}}},
	{Name: "checks", Tile: 6, Ink: [][4]float64{{0.5, 0.5, 2.5, 2.5}, {3.5, 3.5, 2.5, 2.5}}},
	{Name: "bricks", Tile: 8, Ink: [][4]float64{{0, 1.5, 4, 1.2}, {4, 5.5, 4, 1.2}}},
	{Name: "blocks", Tile: 8, Ink: [][4]float64{{2, 2, 4, 4}}},
}

// patternInkOpacity is how strongly pattern ink covers the colour beneath.
const patternInkOpacity = 0.45

// lookupPattern returns the pattern named, and whether it draws anything.
func lookupPattern(name string) (fillPattern, bool) {
	for _, p := range patterns {
		if p.Name == name {
			return p, len(p.Ink) > 0
		}
	}
	return fillPattern{}, false
}

// patternID is the SVG id of a pattern drawn in ink (#000000 or #FFFFFF).
func patternID(name, ink string) string {
	return "pattern-" + name + "-" + strings.TrimPrefix(strings.ToLower(ink), "#")
}

// patternDef is the SVG <pattern> element for a pattern drawn in ink.
func patternDef(p fillPattern, ink string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<pattern id="%s" width="%s" height="%s" patternUnits="userSpaceOnUse">`, patternID(p.Name, ink), num(p.Tile), num(p.Tile))
	for _, r := range p.Ink {
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="%s"/>`, num(r[0]), num(r[1]), num(r[2]), num(r[3]), ink, num(patternInkOpacity))
	}
	b.WriteString("</pattern>")
	return b.String()
}

// patternInk calls fn for every inked rectangle of p within the rectangle
// x, y, w, h, clipped to it, with the tiles anchored at the origin.
func patternInk(p fillPattern, x, y, w, h float64, fn func(x0, y0, x1, y1 float64)) {
	if p.Tile <= 0 {
		return
	}
	for ty := float64(int(y/p.Tile)) * p.Tile; ty < y+h; ty += p.Tile {
		for tx := float64(int(x/p.Tile)) * p.Tile; tx < x+w; tx += p.Tile {
			for _, r := range p.Ink {
				x0, y0 := max(tx+r[0], x), max(ty+r[1], y)
				x1, y1 := min(tx+r[0]+r[2], x+w), min(ty+r[1]+r[3], y+h)
				if x1 > x0 && y1 > y0 {
					fn(x0, y0, x1, y1)
				}
			}
		}
	}
}
