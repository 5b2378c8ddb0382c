package chart

import (
	"fmt"
	"strings"
	"testing"

	"github.com/packer-sched/packer/internal/plantest"
	"github.com/packer-sched/packer/plan"
)

func TestTextWidth(t *testing.T) {
	// j 278 + o 612 + b 635 + - 361 + 1 637 + 7 637 = 3160 thousandths of
	// an em: 31.6 px at 10 px.
	if got := TextWidth("job-17", 10); got != 31.6 {
		t.Errorf("TextWidth(job-17, 10) = %v, want 31.6", got)
	}
	// "—" is outside ASCII: a whole em, 1.1 em in bold.
	if got := textWidth("a—", 20, true); got != (675+1100)*20.0/1000 {
		t.Errorf("bold a— at 20 px: %v", got)
	}
}

// TestTextWidthCoversLiberation checks the width table against Liberation
// Sans (Arial's metrics), regular and bold; the browser test checks it
// against the fonts Chromium has.
func TestTextWidthCoversLiberation(t *testing.T) {
	for _, bold := range []bool{false, true} {
		face := textFace(1000, bold)
		for r := ' '; r <= '~'; r++ {
			if lib, ours := float64(face.Width(string(r))), textWidth(string(r), 1000, bold); lib > ours {
				t.Errorf("%q (bold %v): Liberation %v wider than the %v reserved", r, bold, lib, ours)
			}
		}
		for _, r := range "×·—→≤−÷²α≈" {
			if lib, ours := float64(face.Width(string(r))), textWidth(string(r), 1000, bold); lib > ours {
				t.Errorf("%q (bold %v): Liberation %v wider than the %v reserved", r, bold, lib, ours)
			}
		}
	}
}

func TestStyleOf(t *testing.T) {
	seen := map[[2]string]int{}
	n := len(palette) * len(patterns)
	if n != 64 {
		t.Fatalf("%d styles, want 8 colours × 8 patterns", n)
	}
	for i := range n {
		s := styleOf(i)
		if j, dup := seen[[2]string{s.Fill, s.Pattern}]; dup {
			t.Errorf("series %d and %d share %s %s", j, i, s.Fill, s.Pattern)
		}
		seen[[2]string{s.Fill, s.Pattern}] = i
		if i > 0 && styleOf(i-1).Fill == s.Fill {
			t.Errorf("neighbours %d and %d share colour %s", i-1, i, s.Fill)
		}
		if s.Key != fmt.Sprint(i+1) {
			t.Errorf("series %d key %q", i, s.Key)
		}
	}
	if s := styleOf(0); s.Fill != "#E69F00" || s.Pattern != "solid" {
		t.Errorf("first series %+v, want the first colour, solid", s)
	}
	if s := styleOf(9); s.Fill != "#56B4E9" || s.Pattern != "dots" {
		t.Errorf("tenth series %+v, want the second colour, dotted", s)
	}
}

// attr is the value of a scene item's extra attribute.
func attr(attrs [][2]string, name string) string {
	for _, a := range attrs {
		if a[0] == name {
			return a[1]
		}
	}
	return ""
}

// checkSeriesLegible checks that every job of a Gantt scene can be told
// apart: one legend swatch per job, no two with the same colour and pattern;
// every bar in its swatch's colour and pattern; every bar labelled with its
// job (job[i], the name or the key the legend gives it) when the shortest of
// those fits, and otherwise left to its colour and pattern.
func checkSeriesLegible(t *testing.T, s *Scene, jobs []string) {
	t.Helper()
	swatch := map[string]*Rect{}
	pairs := map[[2]string]string{}
	var bars []*Rect
	var labels []*Text
	legendKeys := map[string]string{}
	for _, it := range s.Items {
		switch v := it.(type) {
		case *Rect:
			switch v.Class {
			case "legend-swatch":
				job := attr(v.Attrs, "data-job")
				if swatch[job] != nil {
					t.Errorf("job %s has two legend swatches", job)
				}
				swatch[job] = v
				p := [2]string{v.Fill, v.Pattern}
				if other, dup := pairs[p]; dup {
					t.Errorf("jobs %s and %s both %s with pattern %s", other, job, v.Fill, v.Pattern)
				}
				pairs[p] = job
			case "vm":
				bars = append(bars, v)
			}
		case *Text:
			switch v.Class {
			case "bar-label":
				labels = append(labels, v)
			case "legend-key":
				legendKeys[attr(v.Attrs, "data-job")] = v.S
			}
		}
	}
	if len(swatch) != len(jobs) {
		t.Errorf("%d legend swatches for %d jobs", len(swatch), len(jobs))
	}
	named, keyed, bare := 0, 0, 0
	for _, b := range bars {
		job := attr(b.Attrs, "data-job")
		sw := swatch[job]
		if sw == nil {
			t.Fatalf("bar of %s has no legend swatch", job)
		}
		if b.Fill != sw.Fill || b.Pattern != sw.Pattern || attr(b.Attrs, "data-pattern") != b.Pattern {
			t.Errorf("bar of %s is %s %s, its swatch %s %s", job, b.Fill, b.Pattern, sw.Fill, sw.Pattern)
		}
		var label *Text
		for _, l := range labels {
			x0, y0, x1, y1 := l.Box()
			if x0 >= b.X && x1 <= b.X+b.W && y0 >= b.Y-1 && y1 <= b.Y+b.H+1 {
				if label != nil {
					t.Errorf("bar of %s at x %v carries two labels", job, b.X)
				}
				label = l
			}
		}
		key := styleOf(indexOf(jobs, job)).Key
		switch {
		case label == nil:
			if TextWidth(key, barLabelSize)+6 <= b.W {
				t.Errorf("bar of %s, %.1f px wide, is unlabelled though its key %q fits", job, b.W, key)
			}
			bare++
		case label.S == key:
			if legendKeys[job] != key || attr(sw.Attrs, "data-key") != key {
				t.Errorf("bar of %s is labelled %q, which the legend does not give it (%q)", job, key, legendKeys[job])
			}
			if TextWidth(job, barLabelSize)+6 <= b.W {
				t.Errorf("bar of %s shows its key though its name fits", job)
			}
			keyed++
		case label.S == job || label.S == fmt.Sprintf("%s[%s]", job, attr(b.Attrs, "data-index")):
			named++
		default:
			t.Errorf("bar of %s labelled %q", job, label.S)
		}
	}
	t.Logf("%d bars: %d named, %d by key, %d by colour and pattern alone", len(bars), named, keyed, bare)
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// checkTextApart checks that no two texts of a scene, nor a text and a
// legend mark, may overlap, and that all texts lie within the scene,
// whichever font of the stack draws them (Text.Box).
func checkTextApart(t *testing.T, s *Scene) {
	t.Helper()
	var texts []*Text
	var marks [][4]float64
	for _, it := range s.Items {
		switch v := it.(type) {
		case *Text:
			texts = append(texts, v)
		case *Rect:
			if v.Class == "legend" || v.Class == "legend-swatch" {
				marks = append(marks, [4]float64{v.X, v.Y, v.X + v.W, v.Y + v.H})
			}
		case *Line:
			if v.Class == "legend" {
				marks = append(marks, [4]float64{min(v.X1, v.X2), min(v.Y1, v.Y2) - 1, max(v.X1, v.X2), max(v.Y1, v.Y2) + 1})
			}
		}
	}
	for i, a := range texts {
		ax0, ay0, ax1, ay1 := a.Box()
		if ax0 < 0 || ay0 < 0 || ax1 > s.W || ay1 > s.H {
			t.Errorf("text %q (%s) at %.1f,%.1f–%.1f,%.1f leaves the %vx%v picture", a.S, a.Class, ax0, ay0, ax1, ay1, s.W, s.H)
		}
		for _, m := range marks {
			if ax0 < m[2] && m[0] < ax1 && ay0 < m[3] && m[1] < ay1 {
				t.Errorf("text %q (%s) may run over the legend mark at %.1f,%.1f", a.S, a.Class, m[0], m[1])
			}
		}
		for _, b := range texts[i+1:] {
			bx0, by0, bx1, by1 := b.Box()
			if ax0 < bx1 && bx0 < ax1 && ay0 < by1 && by0 < ay1 {
				t.Errorf("texts %q (%s) and %q (%s) may overlap", a.S, a.Class, b.S, b.Class)
			}
		}
	}
}

// checkGanttLegible draws pl's Gantt chart, checks that its jobs are told
// apart and its texts do not collide, and returns the chart.
func checkGanttLegible(t *testing.T, pl *plan.Plan) *Scene {
	t.Helper()
	var jobs []string
	for _, j := range pl.Jobs {
		jobs = append(jobs, j.Name)
	}
	s := Gantt(pl)
	checkSeriesLegible(t, s, jobs)
	checkTextApart(t, s)
	return s
}

// TestGanttLegibleAtSixtyJobs: 60 jobs in 32 phases, far more than the eight
// colours, most bars too narrow for a name.
func TestGanttLegibleAtSixtyJobs(t *testing.T) {
	s := checkGanttLegible(t, manyJobsPlan(t))
	// The SVG draws every pattern it names: one overlay per patterned bar
	// and swatch, over a defined <pattern>.
	svg := string(s.SVG())
	want := 0
	for _, it := range s.Items {
		if r, ok := it.(*Rect); ok && r.Pattern != "" && r.Pattern != "solid" {
			want++
			if !strings.Contains(svg, `<pattern id="`+patternID(r.Pattern, textColorOn(r.Fill))+`"`) {
				t.Fatalf("pattern %s in %s is not defined", r.Pattern, textColorOn(r.Fill))
			}
		}
	}
	if got := len(find(parseSVG(t, s.SVG()), "rect", "pattern")); got != want || want == 0 {
		t.Errorf("%d pattern overlays, want %d", got, want)
	}
}

// TestGanttLegibleOnCatalogue runs the same checks on the built-in
// workloads' plans, the pictures in docs/.
func TestGanttLegibleOnCatalogue(t *testing.T) {
	for _, name := range []string{"W1", "W2", "W3", "W4", "W5", "W6"} {
		t.Run(name, func(t *testing.T) {
			checkGanttLegible(t, plantest.PaperPair(t, name, 9))
		})
	}
}
