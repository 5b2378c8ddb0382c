package chart

import (
	"errors"
	"fmt"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// SizePoint is one host count of a sizing search (optimize.Size): the
// proven lower bound on the makespan, and the plan's makespan where a plan
// was made (seconds).
type SizePoint struct {
	Hosts    int
	Bound    float64
	Planned  bool
	Makespan float64
}

// SizeCurve draws the cost curve of a sizing search: hosts against the
// plans' makespans and the proven lower bounds, the deadline as a
// horizontal line, and the chosen host count as a vertical one, so that a
// planner sees where more hosts stop paying. lo is the fewest hosts not
// ruled out: the title gives the answer as "5" when lo is hosts, else as
// "between lo and hosts". Lines differ in dash pattern and glyph as well as
// colour. Times are in hours.
func SizeCurve(points []SizePoint, deadline float64, hosts, lo int) (*Grid, error) {
	if len(points) == 0 {
		return nil, errors.New("chart: no sizing points")
	}
	p := newPlot()
	answer := fmt.Sprint(hosts)
	if lo < hosts {
		answer = fmt.Sprintf("between %d and %d", lo, hosts)
	}
	p.Title.Text = fmt.Sprintf("Hosts for a deadline of %s (%v): %s", secs(deadline), time.Duration(deadline*float64(time.Second)).Round(time.Second), answer)
	p.X.Label.Text = "hosts"
	p.Y.Label.Text = "makespan (h)"
	var plans, bounds plotter.XYs
	top := deadline
	for _, q := range points {
		bounds = append(bounds, plotter.XY{X: float64(q.Hosts), Y: q.Bound / 3600})
		if q.Planned {
			plans = append(plans, plotter.XY{X: float64(q.Hosts), Y: q.Makespan / 3600})
			top = max(top, q.Makespan)
		}
	}
	p.Add(plotter.NewGrid())
	if err := addSizeLine(p, bounds, "proven lower bound", 1, draw.BoxGlyph{}); err != nil {
		return nil, err
	}
	if len(plans) > 0 {
		if err := addSizeLine(p, plans, "plan makespan", 0, draw.CircleGlyph{}); err != nil {
			return nil, err
		}
	}
	x0, x1 := float64(points[0].Hosts), float64(points[len(points)-1].Hosts)
	marks := []struct {
		xy    plotter.XYs
		label string
		i     int
	}{
		{plotter.XYs{{X: x0, Y: deadline / 3600}, {X: x1, Y: deadline / 3600}}, "deadline", 2},
		{plotter.XYs{{X: float64(hosts), Y: 0}, {X: float64(hosts), Y: top / 3600}}, fmt.Sprintf("chosen: %d hosts", hosts), 3},
	}
	for _, m := range marks {
		l, err := plotter.NewLine(m.xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = rgb(linePalette[m.i]), dashes[m.i]
		p.Add(l)
		p.Legend.Add(m.label, l)
	}
	p.Y.Min = 0
	p.Legend.Top = true
	return &Grid{Plots: [][]*plot.Plot{{p}}, TileW: 480, TileH: 320}, nil
}

// addSizeLine adds one series with points, in colour and dash pattern i.
func addSizeLine(p *plot.Plot, xys plotter.XYs, label string, i int, glyph draw.GlyphDrawer) error {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	l.Color, s.Color = rgb(linePalette[i]), rgb(linePalette[i])
	l.Dashes = dashes[i]
	s.Shape = glyph
	p.Add(l, s)
	p.Legend.Add(label, l, s)
	return nil
}
