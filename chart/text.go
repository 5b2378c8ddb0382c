package chart

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// fontFamily is the font stack of every SVG picture. DejaVu Sans comes first
// because most Linux systems have it and few have Arial; Liberation Sans,
// Arial and Helvetica share one set of metrics. Layout never depends on which
// of them a viewer has: scenes reserve the widest of them for every
// character (TextWidth), and gonum's plots pin each text's width (pinWidths).
const fontFamily = `'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif`

// advance holds, for the printable ASCII characters from ' ' to '~', the
// larger of the advance widths of DejaVu Sans and Liberation Sans (Arial's
// metrics), in thousandths of an em, rounded up; advanceBold the same for
// their bold faces. DejaVu's were measured in Chromium with
// getComputedTextLength at 1000 px, Liberation's with gonum's font cache;
// TestTextWidthCoversFonts checks both.
var (
	advance = [95]uint16{
		318, 401, 460, 838, 637, 951, 780, 275, 391, 391, 500, 838, 318, 361, 318, 337,
		637, 637, 637, 637, 637, 637, 637, 637, 637, 637, 337, 337, 838, 838, 838, 557,
		1016, 685, 687, 723, 771, 667, 611, 778, 752, 295, 500, 667, 558, 863, 749, 788,
		667, 788, 723, 667, 611, 732, 685, 989, 686, 667, 686, 391, 337, 391, 838, 557,
		500, 613, 635, 550, 635, 616, 353, 635, 634, 278, 278, 580, 278, 975, 634, 612,
		635, 635, 412, 521, 393, 634, 592, 818, 592, 592, 525, 637, 337, 637, 838,
	}
	advanceBold = [95]uint16{
		349, 457, 521, 838, 696, 1002, 873, 307, 458, 458, 523, 838, 380, 416, 380, 366,
		696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 581,
		1016, 774, 763, 734, 831, 684, 684, 821, 837, 373, 500, 775, 638, 996, 837, 851,
		733, 851, 771, 721, 683, 813, 774, 1104, 771, 725, 726, 458, 366, 458, 838, 557,
		500, 675, 716, 593, 716, 679, 436, 716, 712, 343, 343, 666, 343, 1042, 712, 688,
		716, 716, 494, 596, 479, 712, 652, 924, 646, 652, 583, 712, 366, 712, 838,
	}
)

// otherAdvance is the width reserved for a character outside ASCII, in
// thousandths of an em: an em dash, the widest that packer writes (×, ·, →,
// ≤ and − are narrower in both faces), plus a tenth for bold.
const (
	otherAdvance     = 1000
	otherAdvanceBold = 1100
)

// TextWidth is the width in pixels that s at the given size may take in any
// font of the stack: the sum of each character's widest advance. Laying out
// with it leaves room for the text whichever font a browser picks.
func TextWidth(s string, size float64) float64 { return textWidth(s, size, false) }

func textWidth(s string, size float64, bold bool) float64 {
	table, other := &advance, otherAdvance
	if bold {
		table, other = &advanceBold, otherAdvanceBold
	}
	em := 0
	for _, r := range s {
		if r >= ' ' && r <= '~' {
			em += int(table[r-' '])
		} else {
			em += other
		}
	}
	return float64(em) * size / 1000
}

// textFace is the font the PNG renderer draws with: Liberation Sans, which
// gonum embeds, so PNGs look the same on every machine.
func textFace(size float64, bold bool) font.Face {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Length(size)}
	if bold {
		f.Weight = 700
	}
	_ = plot.DefaultFont // importing plot registers the Liberation fonts
	return font.DefaultCache.Lookup(f, vg.Length(size))
}

// Box is the room t may take in any font of the stack: TextWidth across
// (from its anchor) and, up and down from the baseline, DejaVu Sans'
// ascender (0.93 em) and descender (0.24 em), the taller of the faces.
func (t *Text) Box() (x0, y0, x1, y1 float64) {
	size := orF(t.Size, 12)
	w := textWidth(t.S, size, t.Bold)
	x0 = t.X
	switch t.Anchor {
	case "middle":
		x0 -= w / 2
	case "end":
		x0 -= w
	}
	return x0, t.Y - 0.93*size, x0 + w, t.Y + 0.24*size
}
