package main

import (
	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/sweep"
)

// sweepChart draws the results' --metric for --chart (sweep.Results.Chart,
// chart.SweepLines), as the bytes of the file the flag names.
func sweepChart(res *sweep.Results, metric, path string) ([]byte, error) {
	panels, cols, err := res.Chart(metric)
	if err != nil {
		return nil, badUsage("--metric: %v", err)
	}
	out := make([]chart.SweepPanel, len(panels))
	for i, p := range panels {
		out[i] = chart.SweepPanel{Title: p.Title, XLabel: p.XLabel, YLabel: p.YLabel}
		for _, l := range p.Lines {
			line := chart.SweepLine{Name: l.Name}
			for _, q := range l.Points {
				line.Points = append(line.Points, chart.SweepPoint(q))
			}
			out[i].Lines = append(out[i].Lines, line)
		}
	}
	g, err := chart.SweepLines(out, cols)
	if err != nil {
		return nil, err
	}
	return g.Encode(pictureName(path))
}
