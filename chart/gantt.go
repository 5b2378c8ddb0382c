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
	c := pl.Cluster
	// Extra slots per host: the most extra VMs it carries in any phase.
	extraSlots := make([]int, c.Hosts)
	for _, ph := range pl.Phases {
		for _, h := range ph.Hosts {
			n := 0
			for _, v := range h.VMs {
				if v.Disk == nil {
					n++
				}
			}
			extraSlots[h.Host] = max(extraSlots[h.Host], n)
		}
	}
	var lanes []lane
	laneOf := map[[3]int]int{} // host, disk, extra slot → lane index
	y := ganttTop
	for h := range c.Hosts {
		for d := range c.DisksPerHost {
			laneOf[[3]int{h, d, 0}] = len(lanes)
			lanes = append(lanes, lane{host: h, disk: d, y: y})
			y += laneHeight + laneGap
		}
		for e := range extraSlots[h] {
			laneOf[[3]int{h, -1, e}] = len(lanes)
			lanes = append(lanes, lane{host: h, disk: -1, extra: e, y: y})
			y += laneHeight + laneGap
		}
		y += hostGap
	}
	plotBottom := y - hostGap
	colour := map[string]string{}
	for i, j := range pl.Jobs {
		colour[j.Name] = palette[i%len(palette)]
	}
	tmax := max(pl.Makespan, pl.SequentialMakespan) * 1.02
	if tmax <= 0 {
		tmax = 1
	}
	plotW := ganttWidth - ganttLeft - ganttRight
	xOf := func(t float64) float64 { return ganttLeft + t/tmax*plotW }

	s := &Scene{W: ganttWidth, Title: fmt.Sprintf("Plan %s: workload %s, algorithm %s, makespan %s, %.1f %% below sequential",
		pl.ID, pl.Workload, pl.Algorithm, secs(pl.Makespan), pl.SavingPercent)}
	add := func(it Item) { s.Items = append(s.Items, it) }
	add(&Text{X: ganttLeft, Y: 22, S: fmt.Sprintf("Plan %s — %s, %s", pl.ID, pl.Workload, pl.Algorithm), Size: 15, Bold: true, Class: "title"})
	add(&Text{X: ganttLeft, Y: 40, S: fmt.Sprintf("%d hosts × %d disks, r = %d, alpha = %g · makespan %s · sequential %s · saving %.1f %%",
		c.Hosts, c.DisksPerHost, c.ExtraRatio, c.Alpha, secs(pl.Makespan), secs(pl.SequentialMakespan), pl.SavingPercent), Size: 12, Class: "subtitle"})

	// Lanes: a light band per host, a label per lane.
	for _, l := range lanes {
		if l.disk == 0 {
			n := c.DisksPerHost + extraSlots[l.host]
			if l.host%2 == 0 {
				add(&Rect{X: ganttLeft, Y: l.y - laneGap/2, W: plotW, H: float64(n) * (laneHeight + laneGap), Fill: "#F2F2F2", Class: "host-band"})
			}
		}
		label := fmt.Sprintf("host %d · disk %d", l.host, l.disk)
		if l.disk < 0 {
			label = fmt.Sprintf("host %d · extra", l.host)
			if extraSlots[l.host] > 1 {
				label = fmt.Sprintf("host %d · extra %d", l.host, l.extra)
			}
		}
		disk := "extra"
		if l.disk >= 0 {
			disk = strconv.Itoa(l.disk)
		}
		add(&Rect{X: ganttLeft, Y: l.y, W: 0, H: laneHeight, Class: "lane",
			Attrs: [][2]string{{"data-host", strconv.Itoa(l.host)}, {"data-disk", disk}, {"data-slot", strconv.Itoa(l.extra)}}})
		add(&Text{X: ganttLeft - 6, Y: l.y + laneHeight - 5, S: label, Size: 11, Anchor: "end", Class: "lane-label"})
	}
	// Bars.
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
				l := lanes[laneOf[key]]
				x0, x1 := xOf(ph.Start), xOf(ph.Start+runtime[v.Job])
				fill := colour[v.Job]
				disk := "extra"
				if v.Disk != nil {
					disk = strconv.Itoa(*v.Disk)
				}
				add(&Rect{X: x0, Y: l.y, W: x1 - x0, H: laneHeight, Fill: fill, Stroke: "#333333", Class: "vm", Hatch: h.Overcommitted,
					Attrs: [][2]string{{"data-job", v.Job}, {"data-index", strconv.Itoa(v.Index)}, {"data-role", string(v.Role)},
						{"data-host", strconv.Itoa(h.Host)}, {"data-disk", disk}, {"data-phase", strconv.Itoa(ph.Index)},
						{"data-start", num(ph.Start)}, {"data-end", num(ph.Start + runtime[v.Job])}},
					Tooltip: fmt.Sprintf("%s VM %d (%s) on host %d, disk %s: phase %d, %s → %s", v.Job, v.Index, v.Role, h.Host, disk, ph.Index+1, secs(ph.Start), secs(ph.Start+runtime[v.Job]))})
				for _, label := range []string{fmt.Sprintf("%s[%d]", v.Job, v.Index), v.Job} {
					if TextWidth(label, barLabelSize)+6 <= x1-x0 {
						add(&Text{X: x0 + 3, Y: l.y + laneHeight - 5, S: label, Size: barLabelSize, Fill: textColorOn(fill), Class: "bar-label"})
						break
					}
				}
			}
		}
	}
	// Phase boundaries and labels.
	for _, ph := range pl.Phases {
		if ph.Index > 0 {
			add(&Line{X1: xOf(ph.Start), Y1: ganttTop - 14, X2: xOf(ph.Start), Y2: plotBottom, Stroke: "#555555", Dash: true, Class: "phase-boundary"})
		}
		mid := (xOf(ph.Start) + xOf(ph.Start+ph.Duration)) / 2
		label := fmt.Sprintf("phase %d", ph.Index+1)
		if TextWidth(label, 11) > xOf(ph.Start+ph.Duration)-xOf(ph.Start) {
			label = strconv.Itoa(ph.Index + 1)
		}
		add(&Text{X: mid, Y: ganttTop - 6, S: label, Size: 11, Anchor: "middle", Class: "phase-label"})
	}
	// Makespan and sequential makespan.
	xm, xs := xOf(pl.Makespan), xOf(pl.SequentialMakespan)
	add(&Line{X1: xm, Y1: ganttTop - 14, X2: xm, Y2: plotBottom + 4, Stroke: "#000000", Width: 2, Class: "makespan"})
	add(&Line{X1: xs, Y1: ganttTop - 14, X2: xs, Y2: plotBottom + 4, Stroke: "#D55E00", Width: 2, Dash: true, Class: "sequential-makespan"})
	// Axis with round ticks.
	axisY := plotBottom + 6
	add(&Line{X1: ganttLeft, Y1: axisY, X2: ganttLeft + plotW, Y2: axisY, Stroke: "#000000", Class: "axis"})
	step := niceStep(tmax / 8)
	for t := 0.0; t <= tmax; t += step {
		x := xOf(t)
		add(&Line{X1: x, Y1: axisY, X2: x, Y2: axisY + 4, Stroke: "#000000", Class: "tick"})
		add(&Text{X: x, Y: axisY + 16, S: num(t), Size: 11, Anchor: "middle", Class: "tick-label"})
	}
	add(&Text{X: ganttLeft + plotW, Y: axisY + 30, S: "time (s)", Size: 11, Anchor: "end", Class: "axis-label"})
	// Legend: makespan marks, overcommit hatch, one swatch per job.
	y = axisY + axisHeight + 8
	x := ganttLeft
	legend := func(draw func(x, y float64) float64) {
		if x+160 > ganttWidth-ganttRight {
			x, y = ganttLeft, y+legendRow
		}
		x = draw(x, y)
	}
	legend(func(x, y float64) float64 {
		s.Items = append(s.Items, &Line{X1: x, Y1: y + 6, X2: x + 18, Y2: y + 6, Stroke: "#000000", Width: 2, Class: "legend"},
			&Text{X: x + 22, Y: y + 10, S: "makespan " + secs(pl.Makespan), Size: 11, Class: "legend"})
		return x + 30 + TextWidth("makespan "+secs(pl.Makespan), 11)
	})
	legend(func(x, y float64) float64 {
		s.Items = append(s.Items, &Line{X1: x, Y1: y + 6, X2: x + 18, Y2: y + 6, Stroke: "#D55E00", Width: 2, Dash: true, Class: "legend"},
			&Text{X: x + 22, Y: y + 10, S: "sequential " + secs(pl.SequentialMakespan), Size: 11, Class: "legend"})
		return x + 30 + TextWidth("sequential "+secs(pl.SequentialMakespan), 11)
	})
	legend(func(x, y float64) float64 {
		s.Items = append(s.Items, &Rect{X: x, Y: y, W: 18, H: 12, Fill: "#FFFFFF", Stroke: "#333333", Hatch: true, Class: "legend"},
			&Text{X: x + 22, Y: y + 10, S: "overcommitted host (× alpha)", Size: 11, Class: "legend"})
		return x + 30 + TextWidth("overcommitted host (× alpha)", 11)
	})
	for _, j := range pl.Jobs {
		legend(func(x, y float64) float64 {
			s.Items = append(s.Items, &Rect{X: x, Y: y, W: 18, H: 12, Fill: colour[j.Name], Stroke: "#333333", Class: "legend-swatch", Attrs: [][2]string{{"data-job", j.Name}}},
				&Text{X: x + 22, Y: y + 10, S: j.Name, Size: 11, Class: "legend"})
			return x + 30 + TextWidth(j.Name, 11)
		})
	}
	s.H = y + legendRow + 8
	return s
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
