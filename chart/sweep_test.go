package chart

import (
	"math"
	"strings"
	"testing"
)

// TestSweepLinesRefuses: no panels, a mean outside its range, a value no
// axis can place and x out of order are errors naming the panel and line;
// the fixture renders as SVG and PNG alike, the same bytes each time.
func TestSweepLinesRefuses(t *testing.T) {
	if _, err := SweepLines(nil, 3); err == nil {
		t.Error("no error for no panels")
	}
	for _, c := range []struct {
		pts  []SweepPoint
		want string
	}{
		{[]SweepPoint{{X: 1, Mean: 5, Min: 6, Max: 7}}, "outside its range"},
		{[]SweepPoint{{X: 1, Mean: math.NaN()}}, "outside its range"},
		{[]SweepPoint{{X: math.Inf(1), Mean: 1, Min: 1, Max: 1}}, "outside its range"},
		{[]SweepPoint{{X: 2, Mean: 1, Min: 1, Max: 1}, {X: 1, Mean: 1, Min: 1, Max: 1}}, "x 1 after 2"},
	} {
		_, err := SweepLines([]SweepPanel{{Title: "W1", Lines: []SweepLine{{Name: "fifo", Points: c.pts}}}}, 3)
		if err == nil || !strings.Contains(err.Error(), `panel "W1"`) || !strings.Contains(err.Error(), `"fifo"`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming W1, fifo and %q", c.pts, err, c.want)
		}
	}
	g, err := SweepLines(sweepFixturePanels(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Plots) != 1 || len(g.Plots[0]) != 3 {
		t.Errorf("cols 0: %d rows, want one of 3", len(g.Plots))
	}
	for _, name := range []string{"a.svg", "a.png"} {
		a, err := g.Encode(name)
		if err != nil {
			t.Fatal(err)
		}
		g2, _ := SweepLines(sweepFixturePanels(), 0)
		b, _ := g2.Encode(name)
		if string(a) != string(b) {
			t.Errorf("%s: two drawings of the same panels differ", name)
		}
	}
}
