package chart

import (
	"errors"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// AlgorithmRow is one workload's makespans under several planning algorithms.
type AlgorithmRow struct {
	Workload string
	Makespan []float64 // in the order of the algorithm names
}

// Algorithms draws grouped bars: per workload, one bar per algorithm, the
// bars of an algorithm sharing a colour; the legend names them. Heights are
// makespans relative to the first algorithm's (usually sequential), in
// percent, so that workloads of very different lengths share one axis.
func Algorithms(names []string, rows []AlgorithmRow) (*Grid, error) {
	if len(names) == 0 || len(rows) == 0 {
		return nil, errors.New("chart: nothing to compare")
	}
	p := newPlot()
	p.Title.Text = "Makespan by algorithm (% of " + names[0] + ")"
	p.Y.Label.Text = "% of " + names[0] + " makespan"
	labels := make([]string, len(rows))
	for i, r := range rows {
		labels[i] = r.Workload
	}
	w := vg.Points(14)
	for a, name := range names {
		v := make(plotter.Values, len(rows))
		for i, r := range rows {
			if a < len(r.Makespan) && r.Makespan[0] > 0 {
				v[i] = 100 * r.Makespan[a] / r.Makespan[0]
			}
		}
		b, err := plotter.NewBarChart(v, w)
		if err != nil {
			return nil, err
		}
		b.Color = rgb(linePalette[a%len(linePalette)])
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(a)-float64(len(names)-1)/2) * w
		p.Add(b)
		p.Legend.Add(name, b)
	}
	p.Add(plotter.NewGrid())
	p.NominalX(labels...)
	p.Y.Min, p.Y.Max = 0, 100+12*float64(len(names)) // headroom for the legend above the bars
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	p.Legend.Top = true
	p.Legend.Left = false
	return &Grid{Plots: [][]*plot.Plot{{p}}, TileW: vg.Length(max(420, 90*len(rows))), TileH: 300}, nil
}
