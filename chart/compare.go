package chart

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/packer-sched/packer/sim"
)

// Comparison draws a simulation comparison: makespan and mean response time
// per policy as horizontal bars, named on their axis and valued at their
// ends, so that any number of policies with long names stay legible; and
// each policy's slowdown distribution as an empirical CDF (the Tyrex paper's
// Figures 14–16 show slowdowns this way), one line per policy in its own
// colour and dash pattern. A policy's bars take its line's colour. A
// policy whose jobs ran as under an earlier one (sim.SameAs) is named "P
// (same as Q)" in the legend, since its line lies under Q's.
func Comparison(results []*sim.Result) (*Grid, error) {
	if len(results) == 0 {
		return nil, errors.New("chart: no simulation results to compare")
	}
	names := make([]string, len(results))
	mk := make(plotter.Values, len(results))
	resp := make(plotter.Values, len(results))
	for i, r := range results {
		names[i], mk[i], resp[i] = r.Policy, r.Makespan, r.Summary.MeanResponse
	}
	pm, err := policyBars("Makespan", names, mk)
	if err != nil {
		return nil, err
	}
	pr, err := policyBars("Mean response time", names, resp)
	if err != nil {
		return nil, err
	}
	cdf := newPlot()
	cdf.Title.Text = "Slowdown distribution"
	cdf.X.Label.Text = "slowdown (response ÷ time alone)"
	cdf.Y.Label.Text = "fraction of jobs ≤ x"
	cdf.X.Scale = plot.LogScale{}
	cdf.X.Tick.Marker = ticks125{}
	cdf.Y.Min, cdf.Y.Max = 0, 1
	// A line that another hides is named after it in the legend.
	same := sim.SameAs(results)
	legend := slices.Clone(names)
	drawn := 0
	for i, r := range results {
		if j := same[i]; j >= 0 {
			legend[i] = fmt.Sprintf("%s (same as %s)", r.Policy, results[j].Policy)
		}
		var sl []float64
		for _, j := range r.Jobs {
			if j.Slowdown > 0 {
				sl = append(sl, j.Slowdown)
			}
		}
		if len(sl) == 0 {
			continue
		}
		slices.Sort(sl)
		pts := make(plotter.XYs, 0, 2*len(sl))
		for k, s := range sl {
			// Steps of the empirical CDF.
			pts = append(pts, plotter.XY{X: s, Y: float64(k) / float64(len(sl))}, plotter.XY{X: s, Y: float64(k+1) / float64(len(sl))})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = rgb(policyColour(i))
		l.Width = vg.Points(1.8)
		l.Dashes = dashes[i%len(dashes)]
		cdf.Add(l)
		cdf.Legend.Add(legend[i], l)
		drawn++
	}
	// Rows of at least 22 points keep the names and values apart.
	g := &Grid{Plots: [][]*plot.Plot{{pm, pr}}, TileW: 300, TileH: vg.Length(max(240, 70+22*len(results)))}
	if drawn > 0 {
		cdf.Add(plotter.NewGrid())
		cdf.Legend.Left, cdf.Legend.Top = false, false
		cdf.Legend.XOffs, cdf.Legend.YOffs = -vg.Points(4), vg.Points(8)
		cdf.Legend.TextStyle.Font.Size = vg.Points(10)
		clearForLegend(cdf, legend, g.TileW)
		g.Plots[0] = append(g.Plots[0], cdf)
	}
	return g, nil
}

// linePalette is the Okabe–Ito palette reordered so that the first lines get
// the colours that stand out most against white.
var linePalette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

// clearForLegend widens a CDF plot's log x axis past its data so that the
// legend, in the bottom right corner, stands where no line is: every CDF
// ends at its largest slowdown, and the axis goes on for as large a share of
// the plot as the legend (its longest name, the line sample and padding)
// takes of a tile of width tileW, less about 60 points of y axis.
func clearForLegend(p *plot.Plot, names []string, tileW vg.Length) {
	longest := 0.0
	for _, n := range names {
		longest = max(longest, TextWidth(n, float64(p.Legend.TextStyle.Font.Size)))
	}
	share := min(0.6, (longest+float64(p.Legend.ThumbnailWidth)+16)/float64(tileW-60))
	lo, hi := p.X.Min, p.X.Max
	if lo <= 0 || hi <= lo {
		lo, hi = max(lo, 1), max(lo, 1)*2
	}
	p.X.Min, p.X.Max = lo, lo*math.Pow(hi/lo, 1/(1-share))
}

// policyColour is the i-th policy's colour (from 0).
func policyColour(i int) string { return linePalette[i%len(linePalette)] }

// policyBars is a panel of one horizontal bar per policy, the first on top,
// each in its policy's colour, named on the axis and valued at its end.
func policyBars(title string, names []string, v plotter.Values) (*plot.Plot, error) {
	p := newPlot()
	p.Title.Text = title
	p.X.Label.Text = "seconds"
	n := len(v)
	rows := make([]string, n)
	tops := make(plotter.XYs, n)
	for i, y := range v {
		row := n - 1 - i
		rows[row] = names[i]
		tops[i] = plotter.XY{X: y, Y: float64(row)}
		b, err := plotter.NewBarChart(plotter.Values{y}, vg.Points(14))
		if err != nil {
			return nil, fmt.Errorf("chart: %s of %s: %w", title, names[i], err)
		}
		b.Horizontal = true
		b.XMin = float64(row)
		b.Color = rgb(policyColour(i))
		b.LineStyle.Width = 0
		p.Add(b)
	}
	p.Add(plotter.NewGrid())
	p.NominalY(rows...)
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: tops, Labels: valueLabels(v)})
	if err != nil {
		return nil, err
	}
	labels.Offset = vg.Point{X: vg.Points(3), Y: -vg.Points(3)}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font.Size = vg.Points(8)
		labels.TextStyle[i].Font.Variant = "Sans"
	}
	p.Add(labels)
	// Room right of the longest bar for its value.
	p.X.Min, p.X.Max = 0, max(slices.Max(v), 1)*1.25
	return p, nil
}

// dashes tell policies apart without colour.
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// LocalityPoint is one point of a delay-scheduling sweep: the skip count D and
// the fraction of map tasks that ran node-local.
type LocalityPoint struct {
	D        int
	Locality float64
	// Expected is the model's prediction, 1 − (1 − p)^D (Zaharia et al., Delay Scheduling, EuroSys 2010), or a
	// negative number when there is none.
	Expected float64
}

// LocalitySweep draws node locality against the delay-scheduling skip count D,
// with the delay scheduling paper's 1 − (1 − p)^D where the points carry it.
func LocalitySweep(points []LocalityPoint) (*Grid, error) {
	if len(points) == 0 {
		return nil, errors.New("chart: no delay sweep points")
	}
	p := newPlot()
	p.Title.Text = "Locality vs delay D"
	p.X.Label.Text = "D (scheduling opportunities a job may skip)"
	p.Y.Label.Text = "node-local map tasks"
	p.Y.Min, p.Y.Max = 0, 1
	var got, want plotter.XYs
	for _, q := range points {
		got = append(got, plotter.XY{X: float64(q.D), Y: q.Locality})
		if q.Expected >= 0 {
			want = append(want, plotter.XY{X: float64(q.D), Y: q.Expected})
		}
	}
	l, s, err := plotter.NewLinePoints(got)
	if err != nil {
		return nil, err
	}
	l.Color, s.Color = rgb("#0072B2"), rgb("#0072B2")
	s.Shape = draw.CircleGlyph{}
	p.Add(plotter.NewGrid(), l, s)
	p.Legend.Add("simulated", l, s)
	if len(want) > 0 {
		m, err := plotter.NewLine(want)
		if err != nil {
			return nil, err
		}
		m.Color = rgb("#D55E00")
		m.Dashes = dashes[1]
		p.Add(m)
		p.Legend.Add("1 − (1 − p)^D", m)
	}
	p.Legend.Top = false
	p.Legend.Left = false
	return &Grid{Plots: [][]*plot.Plot{{p}}, TileW: 420, TileH: 280}, nil
}

func valueLabels(v plotter.Values) []string {
	out := make([]string, len(v))
	for i, y := range v {
		out[i] = fmt.Sprintf("%.0f", y)
	}
	return out
}
