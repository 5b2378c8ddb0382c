package chart

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim"
)

// results makes three policies' outcomes with known makespans and slowdowns.
func results() []*sim.Result {
	var out []*sim.Result
	for i, name := range []string{"fifo", "fair", "plan"} {
		r := &sim.Result{Policy: name, Makespan: 1000 + 250*float64(i)}
		for j := range 20 {
			s := 1 + math.Pow(float64(j)/4, float64(i+1))
			r.Jobs = append(r.Jobs, sim.JobResult{Name: fmt.Sprint("j", j), Response: 10 * s, Slowdown: s})
		}
		r.Summary.MeanResponse = 100 + 10*float64(i)
		out = append(out, r)
	}
	return out
}

func TestComparisonChart(t *testing.T) {
	g, err := Comparison(results())
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Plots) != 1 || len(g.Plots[0]) != 3 {
		t.Fatalf("want makespan, response and slowdown panels, got %d", len(g.Plots[0]))
	}
	svg, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, n := range find(parseSVG(t, svg), "text", "") {
		texts = append(texts, n.Text)
	}
	all := strings.Join(texts, "\n")
	// Each policy named on the bar axes and in the CDF legend; the bars
	// labelled with their values.
	for _, want := range []string{"fifo", "fair", "plan", "1000", "1250", "1500", "100", "120", "Slowdown distribution"} {
		if !strings.Contains(all, want) {
			t.Errorf("comparison lacks %q", want)
		}
	}
	if _, err := Comparison(nil); err == nil {
		t.Error("no results: want an error")
	}
}

func TestLocalitySweepChart(t *testing.T) {
	var pts []LocalityPoint
	for _, d := range []int{0, 5, 10, 20, 40} {
		e := 1 - math.Pow(0.9, float64(d))
		pts = append(pts, LocalityPoint{D: d, Locality: e * 0.98, Expected: e})
	}
	g, err := LocalitySweep(pts)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "1 − (1 − p)^D") || !strings.Contains(string(svg), "simulated") {
		t.Error("legend missing")
	}
}

// TestComparisonSameAs: a policy whose jobs ran as fifo's is named "same
// as fifo" in the CDF legend, since its line lies on fifo's.
func TestComparisonSameAs(t *testing.T) {
	rs := results()
	twin := *rs[0]
	twin.Policy = "dp"
	g, err := Comparison(append(rs, &twin))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	var legend []string
	for _, n := range find(parseSVG(t, svg), "text", "") {
		legend = append(legend, n.Text)
	}
	if all := strings.Join(legend, "\n"); !strings.Contains(all, "dp (same as fifo)") || strings.Contains(all, "fair (same as") {
		t.Errorf("legend texts:\n%s", all)
	}
}

// cdfTickLabels are the slowdown CDF's x tick labels, in order, with their
// left edges and widths as the SVG gives them: the texts between the x
// axis's title and the y axis's.
func cdfTickLabels(t *testing.T, svg []byte) (labels []string, x, w []float64) {
	t.Helper()
	in := false
	for _, n := range find(parseSVG(t, svg), "text", "") {
		switch {
		case n.Text == "slowdown (response ÷ time alone)":
			in = true
		case n.Text == "fraction of jobs ≤ x":
			return labels, x, w
		case in:
			labels, x, w = append(labels, n.Text), append(x, n.f(t, "x")), append(w, n.f(t, "textLength"))
		}
	}
	t.Fatal("no slowdown CDF axis")
	return nil, nil, nil
}

// TestComparisonLogTicks: every two neighbouring labels of the slowdown
// axis are at least 4 px apart, none in Go's 1e+06 form. Slowdowns from 1
// to 3 or 20 keep 1-2-5 labels; to 300 (an axis of about 3.5 decades on
// 240 points, 70 per decade: "100" and "200" would be 21 apart, closer
// than their half widths and the gap) powers of ten; to 10⁷ (FB-2010 on
// 300 nodes spans that) every second power of ten.
func TestComparisonLogTicks(t *testing.T) {
	for _, c := range []struct {
		top  float64
		want []string
	}{
		{1e7, []string{"1", "100", "10000", "1e6"}},
		{3, []string{"1", "2"}},
		{20, []string{"1", "2", "5", "10", "20"}},
		{300, []string{"1", "10", "100", "1000"}},
	} {
		rs := results()
		for _, r := range rs {
			for j := range r.Jobs {
				r.Jobs[j].Slowdown = math.Pow(c.top, float64(j)/float64(len(r.Jobs)-1))
			}
		}
		g, err := Comparison(rs)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := g.SVG()
		if err != nil {
			t.Fatal(err)
		}
		labels, x, w := cdfTickLabels(t, svg)
		if len(labels) < 2 {
			t.Fatalf("up to %g: labels %q", c.top, labels)
		}
		for i := 1; i < len(labels); i++ {
			if gap := x[i] - (x[i-1] + w[i-1]); gap < 4 {
				t.Errorf("up to %g: %q and %q %.1f px apart, want ≥ 4", c.top, labels[i-1], labels[i], gap)
			}
		}
		for _, l := range labels {
			if strings.Contains(l, "e+") || c.top > 1e3 && !strings.HasPrefix(l, "1") {
				t.Errorf("up to %g: label %q", c.top, l)
			}
		}
		if c.want != nil && strings.Join(labels[:min(len(labels), len(c.want))], " ") != strings.Join(c.want, " ") {
			t.Errorf("up to %g: labels %q, want %q first", c.top, labels, c.want)
		}
		t.Logf("up to %g: %q", c.top, labels)
	}
}

func TestLogLabel(t *testing.T) {
	for v, want := range map[float64]string{1: "1", 0.5: "0.5", 20000: "20000", 1e5: "1e5", 2e6: "2e6", 1e7: "1e7", 1e-4: "1e-4"} {
		if got := logLabel(v); got != want {
			t.Errorf("logLabel(%g) = %q, want %q", v, got, want)
		}
	}
}
