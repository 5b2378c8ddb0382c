package chart

import (
	"strings"
	"testing"
)

// TestSizeCurveChart: both curves, the deadline and the chosen count are in
// the legend, and an empty curve is refused.
func TestSizeCurveChart(t *testing.T) {
	pts := []SizePoint{{Hosts: 2, Bound: 13000}, {Hosts: 3, Bound: 9400}, {Hosts: 4, Bound: 9800, Planned: true, Makespan: 9800},
		{Hosts: 5, Bound: 8000, Planned: true, Makespan: 8000}, {Hosts: 7, Bound: 4800}}
	g, err := SizeCurve(pts, 9000, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"plan makespan", "proven lower bound", "deadline", "chosen: 5 hosts"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if _, err := SizeCurve(nil, 9000, 5, 5); err == nil {
		t.Error("no error for an empty curve")
	}
}
