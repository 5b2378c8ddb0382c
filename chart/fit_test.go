package chart

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// profiled returns a job whose observations follow a·n^b times a small,
// fixed wiggle, fitted with model.FitPowerLaw as the profiler does.
func profiled(t *testing.T, name string, a, b float64) model.Job {
	t.Helper()
	var obs []model.Observation
	var ns, ss []float64
	for i, n := range []int{2, 4, 6, 8, 12} {
		s := a * math.Pow(float64(n), b) * (1 + 0.03*float64(i%3-1))
		obs = append(obs, model.Observation{Nodes: n, Seconds: s})
		ns, ss = append(ns, float64(n)), append(ss, s)
	}
	obs = append(obs, model.Observation{Nodes: 16, Seconds: 1, Failed: true})
	f, err := model.FitPowerLaw(ns, ss)
	if err != nil {
		t.Fatal(err)
	}
	return model.Job{Name: name, Model: f.PowerLaw, Profile: &model.Profile{Observations: obs, R2: f.R2}}
}

func TestFitsChart(t *testing.T) {
	w := &model.Workload{Name: "p", Jobs: []model.Job{
		profiled(t, "sort", 1800, -0.6),
		{Name: "unprofiled", Model: model.PowerLaw{A: 1, B: -1}},
		profiled(t, "kmeans", 900, -0.45),
		profiled(t, "grep", 300, -0.9),
		profiled(t, "join", 5000, -0.8),
	}}
	g, err := Fits(w)
	if err != nil {
		t.Fatal(err)
	}
	// Four profiled jobs, three to a row.
	if len(g.Plots) != 2 || len(g.Plots[0]) != 3 || len(g.Plots[1]) != 1 {
		t.Fatalf("panels laid out as %d rows", len(g.Plots))
	}
	svg, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	root := parseSVG(t, svg)
	var texts []string
	for _, n := range find(root, "text", "") {
		texts = append(texts, n.Text)
	}
	all := strings.Join(texts, "\n")
	for _, j := range w.Jobs {
		if j.Profile == nil {
			if strings.Contains(all, j.Name) {
				t.Errorf("unprofiled job %s drawn", j.Name)
			}
			continue
		}
		want := fmt.Sprintf("R² = %.3f", j.Profile.R2)
		if !strings.Contains(all, j.Name) || !strings.Contains(all, want) {
			t.Errorf("panel for %s lacks its title or %q", j.Name, want)
		}
	}
	if !strings.Contains(all, "VMs (n)") || !strings.Contains(all, "runtime (s)") {
		t.Error("axis labels missing")
	}
	png, err := g.Encode("fits.png")
	if err != nil || string(png[1:4]) != "PNG" {
		t.Errorf("png: %v", err)
	}
	if _, err := Fits(&model.Workload{Jobs: []model.Job{{Name: "x", Model: model.PowerLaw{A: 1, B: -1}}}}); !errors.Is(err, ErrNothingToPlot) {
		t.Errorf("no profiles: %v", err)
	}
}
