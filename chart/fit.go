package chart

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/packer-sched/packer/model"
)

// ErrNothingToPlot is returned when a workload has no job with observations.
var ErrNothingToPlot = errors.New("chart: no job has observations to plot (fit charts need profiled jobs)")

// Fits draws, for every job with measurements, its successful observations
// and its fitted power law F(n) = a·n^b on log-log axes, one panel per job,
// with a, b and R² in the legend. Jobs without a profile are left out.
func Fits(w *model.Workload) (*Grid, error) {
	var panels []*plot.Plot
	for _, j := range w.Jobs {
		if j.Profile == nil {
			continue
		}
		var pts plotter.XYs
		for _, o := range j.Profile.Observations {
			if !o.Failed && o.Nodes > 0 && o.Seconds > 0 {
				pts = append(pts, plotter.XY{X: float64(o.Nodes), Y: o.Seconds})
			}
		}
		if len(pts) == 0 {
			continue
		}
		p := newPlot()
		p.Title.Text = j.Name
		p.X.Label.Text = "VMs (n)"
		p.Y.Label.Text = "runtime (s)"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = ticks125{}, ticks125{}
		lo, hi := math.Inf(1), math.Inf(-1)
		ylo, yhi := math.Inf(1), math.Inf(-1)
		for _, q := range pts {
			lo, hi = min(lo, q.X), max(hi, q.X)
			ylo, yhi = min(ylo, q.Y), max(yhi, q.Y)
		}
		// Draw the model a little past the measured range on both sides, so
		// the extrapolation a plan might make is visible.
		from, to := lo/1.5, hi*1.5
		line, legend := modelLine(j, from, to)
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		// One job a panel: the line needs no colour of its own, only contrast.
		l.Color = rgb("#0072B2")
		l.Width = vg.Points(1.5)
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(3)
		s.GlyphStyle.Color = rgb("#000000")
		p.Add(plotter.NewGrid(), l, s)
		p.Legend.Add("observed", s)
		p.Legend.Add(legend, l)
		p.Legend.Top = true
		p.Legend.TextStyle.Font.Size = vg.Points(9)
		p.Y.Min, p.Y.Max = min(ylo, j.Model.Seconds(int(math.Ceil(to))))/1.2, max(yhi, line[0].Y)*1.6
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil, ErrNothingToPlot
	}
	cols := min(3, len(panels))
	g := &Grid{}
	for i := 0; i < len(panels); i += cols {
		g.Plots = append(g.Plots, panels[i:min(i+cols, len(panels))])
	}
	return g, nil
}

// ticks125 labels a log axis at 1, 2 and 5 times powers of ten, with minor
// ticks at the other integers: plot.LogTicks labels only powers of ten, too
// few on the one or two decades a profile spans.
type ticks125 struct{}

func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := float64(m) * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			out = append(out, t)
		}
	}
	return out
}

// modelLine is the job's model from n = from to to, and its legend. A power
// law is drawn as the smooth curve it is; another form only at whole VM
// counts (from 1), the only ones it is defined at, joined by straight lines.
func modelLine(j model.Job, from, to float64) (plotter.XYs, string) {
	var line plotter.XYs
	if pl, ok := j.Model.(model.PowerLaw); ok {
		for k := 0; k <= 64; k++ {
			n := from * math.Pow(to/from, float64(k)/64)
			line = append(line, plotter.XY{X: n, Y: pl.A * math.Pow(n, pl.B)})
		}
		return line, fmt.Sprintf("F(n) = %.4g·n^%.3f, R² = %.3f", pl.A, pl.B, j.Profile.R2)
	}
	for n := max(1, int(math.Floor(from))); n <= int(math.Ceil(to)); n++ {
		line = append(line, plotter.XY{X: float64(n), Y: j.Model.Seconds(n)})
	}
	return line, fmt.Sprintf("F(n) = %s (%s)", j.Model, j.Model.Kind())
}
