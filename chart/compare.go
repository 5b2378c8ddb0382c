package chart

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

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
	// The axis's data area is about the tile less 60 points of y axis, as
	// clearForLegend reckons.
	cdf.X.Tick.Marker = logTicks{width: cdfTileW - 60, size: float64(cdf.X.Tick.Label.Font.Size)}
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
	g := &Grid{Plots: [][]*plot.Plot{{pm, pr}}, TileW: cdfTileW, TileH: vg.Length(max(240, 70+22*len(results)))}
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

// cdfTileW is the width of the comparison's tiles, the CDF's among them.
const cdfTileW = 300

// logTicks labels a log axis about width points long, whose labels are
// size points high, with the densest of these that keeps every two
// neighbouring labels tickGap apart: 1, 2 and 5 times each power of ten;
// each power of ten; every 2nd, 3rd, 5th, 10th … power of ten. The other
// integers of each decade (with labelled decades) or the other powers of
// ten are minor ticks. Slowdowns span one decade on a quiet cluster and
// seven on a busy one: 1-2-5 labels on seven decades ran together.
type logTicks struct {
	width vg.Length
	size  float64
}

// tickGap is the least room between two tick labels, in points.
const tickGap = 6

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return ticks125{}.Ticks(lo, hi)
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	// Candidate label sets, densest first: mantissas per labelled decade,
	// and every how many decades a label goes.
	type set struct {
		mantissas []int
		every     int
	}
	sets := []set{{[]int{1, 2, 5}, 1}, {[]int{1}, 1}}
	for _, k := range []int{2, 3, 5, 10, 20, 50, 100} {
		sets = append(sets, set{[]int{1}, k})
	}
	var chosen []plot.Tick
	every := 1
	for _, s := range sets {
		chosen, every = nil, s.every
		for e := e0; e <= e1; e++ {
			if e%s.every != 0 {
				continue
			}
			for _, m := range s.mantissas {
				if v := float64(m) * math.Pow(10, float64(e)); in(v) {
					chosen = append(chosen, plot.Tick{Value: v, Label: logLabel(v)})
				}
			}
		}
		if t.fits(chosen, lo, hi) {
			break
		}
	}
	// Minor ticks: the other integers of each decade while every decade
	// is labelled, else the unlabelled powers of ten.
	labelled := map[float64]bool{}
	for _, l := range chosen {
		labelled[l.Value] = true
	}
	out := chosen
	for e := e0; e <= e1; e++ {
		for m := 1; m < 10 && (m == 1 || every == 1); m++ {
			if v := float64(m) * math.Pow(10, float64(e)); in(v) && !labelled[v] {
				out = append(out, plot.Tick{Value: v})
			}
		}
	}
	return out
}

// fits reports whether the labels, in order along an axis from lo to hi,
// keep tickGap apart, each centred on its value.
func (t logTicks) fits(labels []plot.Tick, lo, hi float64) bool {
	span := math.Log10(hi / lo)
	x := func(v float64) float64 { return float64(t.width) * math.Log10(v/lo) / span }
	for i := 1; i < len(labels); i++ {
		a, b := labels[i-1], labels[i]
		room := (TextWidth(a.Label, t.size)+TextWidth(b.Label, t.size))/2 + tickGap
		if x(b.Value)-x(a.Value) < room {
			return false
		}
	}
	return true
}

// logLabel is a log axis's label for v: digits up to 10000 and down to
// 0.001, else mantissa and power of ten as 2e5 (not Go's 2e+05).
func logLabel(v float64) string {
	if v >= 1e-3 && v < 1e5 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	e := int(math.Floor(math.Log10(v) + 1e-9))
	m := v / math.Pow(10, float64(e))
	return strconv.FormatFloat(math.Round(m*1e6)/1e6, 'f', -1, 64) + "e" + strconv.Itoa(e)
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
