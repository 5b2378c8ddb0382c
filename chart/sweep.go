package chart

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SweepPoint is one x of a sweep's line: the mean of a metric over the
// runs there (seeds), and their least and greatest values.
type SweepPoint struct {
	X              float64
	Mean, Min, Max float64
	// Runs is how many runs the mean is of.
	Runs int
}

// SweepLine is one policy's or algorithm's values across a sweep's
// cluster sizes, in increasing X.
type SweepLine struct {
	Name   string
	Points []SweepPoint
}

// SweepPanel is one workload's (and option set's) lines.
type SweepPanel struct {
	Title, XLabel, YLabel string
	Lines                 []SweepLine
}

// SweepLines draws a sweep's results: a panel per workload and option set,
// cols to a row (3 if cols is not positive), each with a line per policy or algorithm through its
// means. Where a mean is of runs that differ (seeds), a bar in the line's
// colour spans their least to greatest value, and the legend says so. The
// i-th line of every panel has the same colour, dash pattern and glyph,
// so that a policy looks alike across panels. A panel without points is
// drawn with its title and "no results". The y axis starts at 0, with room
// above the lines for the legend in the top right corner.
func SweepLines(panels []SweepPanel, cols int) (*Grid, error) {
	if len(panels) == 0 {
		return nil, errors.New("chart: no sweep panels")
	}
	var plots []*plot.Plot
	for _, pn := range panels {
		p, err := sweepPanel(pn)
		if err != nil {
			return nil, fmt.Errorf("chart: panel %q: %w", pn.Title, err)
		}
		plots = append(plots, p)
	}
	if cols <= 0 {
		cols = 3
	}
	g := &Grid{TileW: SweepTileW, TileH: SweepTileH}
	for i := 0; i < len(plots); i += cols {
		g.Plots = append(g.Plots, plots[i:min(i+cols, len(plots))])
	}
	return g, nil
}

// SweepTileW and SweepTileH are a sweep chart's panel size, in points.
const SweepTileW, SweepTileH = 400, 320

// sweepGlyphs tell lines apart in print as well as dashes do: the filled
// ones first.
var sweepGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}}

// sweepPanel is one panel of SweepLines.
func sweepPanel(pn SweepPanel) (*plot.Plot, error) {
	p := newPlot()
	p.Title.Text = pn.Title
	p.X.Label.Text, p.Y.Label.Text = pn.XLabel, pn.YLabel
	top, ranged, legend := 0.0, false, 0
	for i, ln := range pn.Lines {
		if len(ln.Points) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(ln.Points))
		errs := make(plotter.YErrors, len(ln.Points))
		spread := false
		for k, q := range ln.Points {
			if bad(q.X) || bad(q.Mean) || bad(q.Min) || bad(q.Max) || q.Min > q.Mean || q.Mean > q.Max {
				return nil, fmt.Errorf("line %q at x %v: mean %v outside its range %v to %v", ln.Name, q.X, q.Mean, q.Min, q.Max)
			}
			if k > 0 && q.X <= ln.Points[k-1].X {
				return nil, fmt.Errorf("line %q: x %v after %v", ln.Name, q.X, ln.Points[k-1].X)
			}
			xys[k] = plotter.XY{X: q.X, Y: q.Mean}
			errs[k] = struct{ Low, High float64 }{q.Mean - q.Min, q.Max - q.Mean}
			spread = spread || q.Max > q.Min
			top = max(top, q.Max)
		}
		colour := rgb(linePalette[i%len(linePalette)])
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, s.Color = colour, colour
		l.Width = vg.Points(1.5)
		l.Dashes = dashes[i%len(dashes)]
		s.Shape = sweepGlyphs[i%len(sweepGlyphs)]
		p.Add(l, s)
		p.Legend.Add(ln.Name, l, s)
		legend++
		if spread {
			bars, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xys, errs})
			if err != nil {
				return nil, err
			}
			bars.Color = colour
			bars.CapWidth = vg.Points(6)
			p.Add(bars)
			ranged = true
		}
	}
	if legend == 0 {
		p.Title.Text += ": no results"
		p.HideAxes()
		return p, nil
	}
	if ranged {
		p.Legend.Add("bars: least to greatest run", rangeThumb{})
		legend++
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	// Each legend row takes about 16 of the data area's 240 points: leave
	// that much headroom above the highest value.
	p.Y.Min = 0
	if top > 0 {
		p.Y.Max = top / max(0.3, 1-float64(legend)*16/240)
	}
	return p, nil
}

// bad is true of a value no chart can place.
func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// rangeThumb is the legend's sample of a range bar: black, capped.
type rangeThumb struct{}

func (rangeThumb) Thumbnail(c *draw.Canvas) {
	st := draw.LineStyle{Color: rgb("#000000"), Width: vg.Points(1)}
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(st, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(st, x-vg.Points(3), c.Min.Y, x+vg.Points(3), c.Min.Y)
	c.StrokeLine2(st, x-vg.Points(3), c.Max.Y, x+vg.Points(3), c.Max.Y)
}
