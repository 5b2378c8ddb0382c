package chart

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/packer-sched/packer/internal/plantest"
)

// svgNode is a generic SVG element, enough to walk the chart's structure.
type svgNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []svgNode  `xml:",any"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n svgNode) f(t *testing.T, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.attr(name), 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.XMLName.Local, name, n.attr(name), err)
	}
	return v
}

// find returns every element with the given tag and class, depth first.
func find(n svgNode, tag, class string) []svgNode {
	var out []svgNode
	if n.XMLName.Local == tag && (class == "" || n.attr("class") == class) {
		out = append(out, n)
	}
	for _, c := range n.Nodes {
		out = append(out, find(c, tag, class)...)
	}
	return out
}

func parseSVG(t *testing.T, b []byte) svgNode {
	t.Helper()
	var root svgNode
	if err := xml.Unmarshal(b, &root); err != nil {
		t.Fatalf("not well-formed SVG: %v", err)
	}
	if root.XMLName.Local != "svg" {
		t.Fatalf("root element %s", root.XMLName.Local)
	}
	return root
}

// TestGanttStructure checks the chart against the plan's own numbers: one
// lane per host disk and extra slot; one bar per VM in the lane of its host
// and disk, starting at its phase's start and as long as its job's runtime on
// the chart's time scale; hatching exactly on overcommitted hosts; a boundary
// per phase after the first; makespan and sequential makespan at their times.
func TestGanttStructure(t *testing.T) {
	for _, c := range []struct {
		name  string
		hosts int
	}{{"W1", 9}, {"W5", 10}, {"W3", 4}} {
		t.Run(c.name, func(t *testing.T) {
			pl := plantest.PaperPair(t, c.name, c.hosts)
			root := parseSVG(t, Gantt(pl).SVG())

			// The time scale, read off the chart: the axis starts at t = 0
			// and the makespan line stands at t = makespan.
			axis := find(root, "line", "axis")
			mk := find(root, "line", "makespan")
			seq := find(root, "line", "sequential-makespan")
			if len(axis) != 1 || len(mk) != 1 || len(seq) != 1 {
				t.Fatalf("axis %d, makespan %d, sequential %d lines", len(axis), len(mk), len(seq))
			}
			x0 := axis[0].f(t, "x1")
			scale := (mk[0].f(t, "x1") - x0) / pl.Makespan
			xOf := func(s float64) float64 { return x0 + s*scale }
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
			if !near(seq[0].f(t, "x1"), xOf(pl.SequentialMakespan)) {
				t.Errorf("sequential line at x %v, want %v", seq[0].f(t, "x1"), xOf(pl.SequentialMakespan))
			}

			// Lanes: k per host, plus the extra slots hosts use.
			laneY := map[string]float64{}
			for _, l := range find(root, "rect", "lane") {
				laneY[l.attr("data-host")+"/"+l.attr("data-disk")+"/"+l.attr("data-slot")] = l.f(t, "y")
			}
			wantLanes := pl.Cluster.Hosts * pl.Cluster.DisksPerHost
			slots := map[int]int{}
			vms := 0
			for _, ph := range pl.Phases {
				for _, h := range ph.Hosts {
					n := 0
					for _, v := range h.VMs {
						vms++
						if v.Disk == nil {
							n++
						}
					}
					slots[h.Host] = max(slots[h.Host], n)
				}
			}
			for _, n := range slots {
				wantLanes += n
			}
			if len(laneY) != wantLanes {
				t.Errorf("%d lanes, want %d", len(laneY), wantLanes)
			}

			bars := find(root, "rect", "vm")
			if len(bars) != vms {
				t.Fatalf("%d bars, want one per VM: %d", len(bars), vms)
			}
			byKey := map[string]svgNode{}
			for _, b := range bars {
				byKey[b.attr("data-phase")+"/"+b.attr("data-job")+"/"+b.attr("data-index")] = b
			}
			for _, ph := range pl.Phases {
				rt := map[string]float64{}
				for _, j := range ph.Jobs {
					rt[j.Name] = j.Runtime
				}
				for _, h := range ph.Hosts {
					extra := 0
					for _, v := range h.VMs {
						b, ok := byKey[fmt.Sprintf("%d/%s/%d", ph.Index, v.Job, v.Index)]
						if !ok {
							t.Fatalf("no bar for phase %d %s[%d]", ph.Index, v.Job, v.Index)
						}
						var lane string
						if v.Disk != nil {
							lane = fmt.Sprintf("%d/%d/0", h.Host, *v.Disk)
						} else {
							lane = fmt.Sprintf("%d/extra/%d", h.Host, extra)
							extra++
						}
						if !near(b.f(t, "y"), laneY[lane]) {
							t.Errorf("%s[%d] at y %v, its lane %s is at %v", v.Job, v.Index, b.f(t, "y"), lane, laneY[lane])
						}
						if !near(b.f(t, "x"), xOf(ph.Start)) || !near(b.f(t, "width"), rt[v.Job]*scale) {
							t.Errorf("%s[%d]: x %v width %v, want %v and %v", v.Job, v.Index, b.f(t, "x"), b.f(t, "width"), xOf(ph.Start), rt[v.Job]*scale)
						}
						if b.attr("data-role") != string(v.Role) {
							t.Errorf("%s[%d] role %s, want %s", v.Job, v.Index, b.attr("data-role"), v.Role)
						}
						if len(find(b, "title", "")) != 1 {
							t.Errorf("%s[%d] has no tooltip", v.Job, v.Index)
						}
					}
				}
			}
			// Hatching covers exactly the VMs of overcommitted hosts.
			over := 0
			for _, ph := range pl.Phases {
				for _, h := range ph.Hosts {
					if h.Overcommitted {
						over += len(h.VMs)
					}
				}
			}
			if got := len(find(root, "rect", "hatch")); got != over {
				t.Errorf("%d hatched bars, want %d", got, over)
			}
			// Phase boundaries at every phase start but the first.
			bounds := find(root, "line", "phase-boundary")
			if len(bounds) != len(pl.Phases)-1 {
				t.Fatalf("%d phase boundaries, want %d", len(bounds), len(pl.Phases)-1)
			}
			for i, b := range bounds {
				if !near(b.f(t, "x1"), xOf(pl.Phases[i+1].Start)) {
					t.Errorf("boundary %d at %v, want %v", i, b.f(t, "x1"), xOf(pl.Phases[i+1].Start))
				}
			}
			// Every job in the legend; makespans annotated in text.
			if got := len(find(root, "rect", "legend-swatch")); got != len(pl.Jobs) {
				t.Errorf("%d legend swatches, want %d", got, len(pl.Jobs))
			}
			var texts []string
			for _, n := range find(root, "text", "") {
				texts = append(texts, n.Text)
			}
			all := strings.Join(texts, "\n")
			for _, want := range []string{"makespan " + secs(pl.Makespan), "sequential " + secs(pl.SequentialMakespan), pl.ID} {
				if !strings.Contains(all, want) {
					t.Errorf("chart text lacks %q", want)
				}
			}
		})
	}
}

func TestGanttPNGAndFormats(t *testing.T) {
	s := Gantt(plantest.PaperPair(t, "W2", 9))
	b, err := s.Encode("w2.png")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 1000 || string(b[1:4]) != "PNG" {
		t.Errorf("not a PNG: %d bytes", len(b))
	}
	if _, err := s.Encode("w2.gif"); err == nil || !strings.Contains(err.Error(), ".gif") {
		t.Errorf("unknown format: %v", err)
	}
}

func TestTextContrast(t *testing.T) {
	// WCAG 2 contrast: blue #0072B2 has relative luminance ≈ 0.152, so white
	// gives 1.05/0.202 ≈ 5.2 against black's 0.202/0.05 ≈ 4.0; vermillion
	// #D55E00 (≈ 0.200) gives black 5.0 against white's 4.2.
	for fill, want := range map[string]string{"#0072B2": "#FFFFFF", "#F0E442": "#000000", "#E69F00": "#000000", "#D55E00": "#000000", "#000000": "#FFFFFF"} {
		if got := textColorOn(fill); got != want {
			t.Errorf("text on %s: %s, want %s", fill, got, want)
		}
	}
}
