package chart

import (
	"fmt"
	"math"
	"strconv"

	"github.com/packer-sched/packer/plan"
)

// Gantt geometry, in pixels.
const (
	ganttWidth   = 960.0
	ganttLeft    = 118.0 // room for lane labels
	ganttRight   = 24.0
	ganttTop     = 64.0 // title and phase labels
	laneHeight   = 18.0
	laneGap      = 2.0
	hostGap      = 8.0
	axisHeight   = 34.0
	legendRow    = 20.0
	barLabelSize = 10.0
)

// lane is one row of the chart: a disk slot of a host, or one of its extra slots.
type lane struct {
	host, disk int // disk −1 for an extra slot
	extra      int // which extra slot, for disk −1
	y          float64
}

// Gantt draws a plan as a Gantt chart: one lane per host disk (and per extra
// slot where a host ever runs extra VMs), time across; each VM a bar from its
// phase's start for its job's runtime, coloured by job and labelled where the
// label fits; bars on overcommitted hosts hatched; phase boundaries dashed;
// makespan and sequential makespan marked.
func Gantt(pl *plan.Plan) *Scene {
	g := newGantt(pl)
	g.header()
	g.drawLanes()
	for _, ph := range pl.Phases {
		runtime := map[string]float64{}
		for _, j := range ph.Jobs {
			runtime[j.Name] = j.Runtime
		}
		for _, h := range ph.Hosts {
			extra := 0
			for _, v := range h.VMs {
				key := [3]int{h.Host, -1, extra}
				if v.Disk != nil {
					key = [3]int{h.Host, *v.Disk, 0}
				} else {
					extra++
				}
				g.drawBar(g.lanes[g.laneOf[key]], vmBar{job: v.Job, index: v.Index, role: string(v.Role), host: h.Host, disk: v.Disk,
					phase: ph.Index, start: ph.Start, end: ph.Start + runtime[v.Job], hatch: h.Overcommitted})
			}
		}
	}
	for _, ph := range pl.Phases {
		g.drawPhase(ph.Index, ph.Start, ph.Duration)
	}
	axisY := g.drawAxis()
	g.drawLegend(axisY + axisHeight + 8)
	return g.s
}

// gantt is a Gantt chart being drawn: the plan, its lanes and the time scale.
type gantt struct {
	pl         *plan.Plan
	s          *Scene
	lanes      []lane
	laneOf     map[[3]int]int         // host, disk (−1 for extra), extra slot → lane index
	extraSlots []int                  // per host, the most extra VMs it carries in any phase
	style      map[string]seriesStyle // by job name
	keyed      map[string]bool        // jobs with a bar labelled only by their key
	tmax       float64                // the time axis' end, in seconds
	plotW      float64
	plotBottom float64
}

// newGantt lays out the lanes, the colours and the time scale of a plan.
func newGantt(pl *plan.Plan) *gantt {
	c := pl.Cluster
	g := &gantt{pl: pl, laneOf: map[[3]int]int{}, extraSlots: make([]int, c.Hosts), style: map[string]seriesStyle{}, keyed: map[string]bool{}}
	for _, ph := range pl.Phases {
		for _, h := range ph.Hosts {
			n := 0
			for _, v := range h.VMs {
				if v.Disk == nil {
					n++
				}
			}
			g.extraSlots[h.Host] = max(g.extraSlots[h.Host], n)
		}
	}
	y := ganttTop
	for h := range c.Hosts {
		for d := range c.DisksPerHost {
			g.laneOf[[3]int{h, d, 0}] = len(g.lanes)
			g.lanes = append(g.lanes, lane{host: h, disk: d, y: y})
			y += laneHeight + laneGap
		}
		for e := range g.extraSlots[h] {
			g.laneOf[[3]int{h, -1, e}] = len(g.lanes)
			g.lanes = append(g.lanes, lane{host: h, disk: -1, extra: e, y: y})
			y += laneHeight + laneGap
		}
		y += hostGap
	}
	g.plotBottom = y - hostGap
	for i, j := range pl.Jobs {
		g.style[j.Name] = styleOf(i)
	}
	g.tmax = max(pl.Makespan, pl.SequentialMakespan) * 1.02
	if g.tmax <= 0 {
		g.tmax = 1
	}
	g.plotW = ganttWidth - ganttLeft - ganttRight
	return g
}

// x is the horizontal position of time t.
func (g *gantt) x(t float64) float64 { return ganttLeft + t/g.tmax*g.plotW }

func (g *gantt) add(it ...Item) { g.s.Items = append(g.s.Items, it...) }

// header starts the scene with the title and the plan's numbers.
func (g *gantt) header() {
	pl, c := g.pl, g.pl.Cluster
	g.s = &Scene{W: ganttWidth, Title: fmt.Sprintf("Plan %s: workload %s, algorithm %s, makespan %s, %.1f %% below sequential",
		pl.ID, pl.Workload, pl.Algorithm, secs(pl.Makespan), pl.SavingPercent)}
	g.add(&Text{X: ganttLeft, Y: 22, S: fmt.Sprintf("Plan %s — %s, %s", pl.ID, pl.Workload, pl.Algorithm), Size: 15, Bold: true, Class: "title"})
	g.add(&Text{X: ganttLeft, Y: 40, S: fmt.Sprintf("%d hosts × %d disks, r = %d, alpha = %g · makespan %s · sequential %s · saving %.1f %%",
		c.Hosts, c.DisksPerHost, c.ExtraRatio, c.Alpha, secs(pl.Makespan), secs(pl.SequentialMakespan), pl.SavingPercent), Size: 12, Class: "subtitle"})
}

// drawLanes draws a light band per host and a label per lane.
func (g *gantt) drawLanes() {
	for _, l := range g.lanes {
		if l.disk == 0 {
			n := g.pl.Cluster.DisksPerHost + g.extraSlots[l.host]
			if l.host%2 == 0 {
				g.add(&Rect{X: ganttLeft, Y: l.y - laneGap/2, W: g.plotW, H: float64(n) * (laneHeight + laneGap), Fill: "#F2F2F2", Class: "host-band"})
			}
		}
		label := fmt.Sprintf("host %d · disk %d", l.host, l.disk)
		if l.disk < 0 {
			label = fmt.Sprintf("host %d · extra", l.host)
			if g.extraSlots[l.host] > 1 {
				label = fmt.Sprintf("host %d · extra %d", l.host, l.extra)
			}
		}
		disk := "extra"
		if l.disk >= 0 {
			disk = strconv.Itoa(l.disk)
		}
		g.add(&Rect{X: ganttLeft, Y: l.y, W: 0, H: laneHeight, Class: "lane",
			Attrs: [][2]string{{"data-host", strconv.Itoa(l.host)}, {"data-disk", disk}, {"data-slot", strconv.Itoa(l.extra)}}})
		g.add(&Text{X: ganttLeft - 6, Y: l.y + laneHeight - 5, S: label, Size: 11, Anchor: "end", Class: "lane-label"})
	}
}

// vmBar is one VM's run: its job, where and when.
type vmBar struct {
	job         string
	index       int
	role        string
	host, phase int
	disk        *int // nil for an extra VM
	start, end  float64
	hatch       bool // on an overcommitted host
}

// drawBar draws a VM's bar on its lane, labelled with job[index], the job's
// name or its key, whichever is the longest that fits; a bar too narrow for
// any is told by its colour and pattern, which no other job shares.
func (g *gantt) drawBar(l lane, v vmBar) {
	x0, x1 := g.x(v.start), g.x(v.end)
	st := g.style[v.job]
	disk := "extra"
	if v.disk != nil {
		disk = strconv.Itoa(*v.disk)
	}
	g.add(&Rect{X: x0, Y: l.y, W: x1 - x0, H: laneHeight, Fill: st.Fill, Pattern: st.Pattern, Stroke: "#333333", Class: "vm", Hatch: v.hatch,
		Attrs: [][2]string{{"data-job", v.job}, {"data-index", strconv.Itoa(v.index)}, {"data-role", v.role},
			{"data-host", strconv.Itoa(v.host)}, {"data-disk", disk}, {"data-phase", strconv.Itoa(v.phase)},
			{"data-start", num(v.start)}, {"data-end", num(v.end)}, {"data-pattern", st.Pattern}},
		Tooltip: fmt.Sprintf("%s VM %d (%s) on host %d, disk %s: phase %d, %s → %s", v.job, v.index, v.role, v.host, disk, v.phase+1, secs(v.start), secs(v.end))})
	for _, label := range []string{fmt.Sprintf("%s[%d]", v.job, v.index), v.job, st.Key} {
		w := TextWidth(label, barLabelSize)
		if w+6 > x1-x0 {
			continue
		}
		if label == st.Key {
			g.keyed[v.job] = true
		}
		if st.Pattern != "solid" {
			// A patch of plain colour keeps the label off the pattern.
			g.add(&Rect{X: x0 + 1.5, Y: l.y + 2.5, W: w + 3, H: laneHeight - 5, Fill: st.Fill, Class: "label-background"})
		}
		g.add(&Text{X: x0 + 3, Y: l.y + laneHeight - 5, S: label, Size: barLabelSize, Fill: textColorOn(st.Fill), Class: "bar-label",
			Attrs: [][2]string{{"data-job", v.job}}})
		break
	}
}

// drawPhase draws a phase's boundary (after the first) and its label where it fits.
func (g *gantt) drawPhase(index int, start, duration float64) {
	if index > 0 {
		g.add(&Line{X1: g.x(start), Y1: ganttTop - 14, X2: g.x(start), Y2: g.plotBottom, Stroke: "#555555", Dash: true, Class: "phase-boundary"})
	}
	mid, width := (g.x(start)+g.x(start+duration))/2, g.x(start+duration)-g.x(start)
	// A label stays within its phase, so labels never collide; a phase too
	// narrow for even its number goes unlabelled.
	for _, label := range []string{fmt.Sprintf("phase %d", index+1), strconv.Itoa(index + 1)} {
		if TextWidth(label, 11)+2 <= width {
			g.add(&Text{X: mid, Y: ganttTop - 6, S: label, Size: 11, Anchor: "middle", Class: "phase-label"})
			return
		}
	}
}

// drawAxis marks the makespan and the sequential makespan and draws the
// time axis with round ticks; it returns where the axis is drawn.
func (g *gantt) drawAxis() (axisY float64) {
	xm, xs := g.x(g.pl.Makespan), g.x(g.pl.SequentialMakespan)
	g.add(&Line{X1: xm, Y1: ganttTop - 14, X2: xm, Y2: g.plotBottom + 4, Stroke: "#000000", Width: 2, Class: "makespan"})
	g.add(&Line{X1: xs, Y1: ganttTop - 14, X2: xs, Y2: g.plotBottom + 4, Stroke: "#D55E00", Width: 2, Dash: true, Class: "sequential-makespan"})
	axisY = g.plotBottom + 6
	g.add(&Line{X1: ganttLeft, Y1: axisY, X2: ganttLeft + g.plotW, Y2: axisY, Stroke: "#000000", Class: "axis"})
	step := niceStep(g.tmax / 8)
	for t := 0.0; t <= g.tmax; t += step {
		x := g.x(t)
		g.add(&Line{X1: x, Y1: axisY, X2: x, Y2: axisY + 4, Stroke: "#000000", Class: "tick"})
		g.add(&Text{X: x, Y: axisY + 16, S: num(t), Size: 11, Anchor: "middle", Class: "tick-label"})
	}
	g.add(&Text{X: ganttLeft + g.plotW, Y: axisY + 30, S: "time (s)", Size: 11, Anchor: "end", Class: "axis-label"})
	return axisY
}

// drawLegend draws, from height y, the makespan marks, the overcommit hatch
// and one swatch per job (with its key, where a bar shows only that),
// wrapping into rows by the room each entry's text may take in any font, and
// sets the scene's height.
func (g *gantt) drawLegend(y float64) {
	pl := g.pl
	x := ganttLeft
	entry := func(mark Item, key, text string, attrs [][2]string) {
		kw := 0.0
		if key != "" {
			kw = textWidth(key+" ", 11, true)
		}
		w := 22 + kw + TextWidth(text, 11)
		if x > ganttLeft && x+w > ganttWidth-ganttRight {
			x, y = ganttLeft, y+legendRow
		}
		switch m := mark.(type) {
		case *Line:
			m.X1, m.Y1, m.X2, m.Y2 = x, y+6, x+18, y+6
		case *Rect:
			m.X, m.Y, m.W, m.H = x, y-1, 18, 14
		}
		g.add(mark)
		if key != "" {
			g.add(&Text{X: x + 22, Y: y + 10, S: key, Size: 11, Bold: true, Class: "legend-key", Attrs: attrs})
		}
		g.add(&Text{X: x + 22 + kw, Y: y + 10, S: text, Size: 11, Class: "legend", Attrs: attrs})
		x += w + 14
	}
	entry(&Line{Stroke: "#000000", Width: 2, Class: "legend"}, "", "makespan "+secs(pl.Makespan), nil)
	entry(&Line{Stroke: "#D55E00", Width: 2, Dash: true, Class: "legend"}, "", "sequential "+secs(pl.SequentialMakespan), nil)
	entry(&Rect{Fill: "#FFFFFF", Stroke: "#333333", Hatch: true, Class: "legend"}, "", "overcommitted host (× alpha)", nil)
	for _, j := range pl.Jobs {
		st, key := g.style[j.Name], ""
		if g.keyed[j.Name] {
			key = st.Key
		}
		attrs := [][2]string{{"data-job", j.Name}}
		entry(&Rect{Fill: st.Fill, Pattern: st.Pattern, Stroke: "#333333", Class: "legend-swatch",
			Attrs: append(attrs, [2]string{"data-pattern", st.Pattern}, [2]string{"data-key", key})}, key, j.Name, attrs)
	}
	g.s.H = y + legendRow + 8
}

// seriesStyle is how one series (a job) is drawn: its colour, the pattern
// over it, and the key that labels bars too narrow for its name.
type seriesStyle struct {
	Fill, Pattern, Key string
}

// styleOf is the style of the i-th series (from 0): the palette's colours in
// turn, each round of them with the next pattern, so that the first
// len(palette)·len(patterns) series (64) all differ in colour or pattern, and
// neighbours in the list always differ in colour. The key is i+1.
func styleOf(i int) seriesStyle {
	return seriesStyle{Fill: palette[i%len(palette)], Pattern: patterns[(i/len(palette))%len(patterns)].Name, Key: strconv.Itoa(i + 1)}
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// secs renders seconds compactly for labels.
func secs(s float64) string {
	if s >= 100 {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}
