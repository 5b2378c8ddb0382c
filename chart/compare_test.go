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
