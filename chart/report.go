package chart

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
)

// ReportInput is what a report shows: a plan, and optionally a simulation
// comparison and the profiles the models came from.
type ReportInput struct {
	Plan       *plan.Plan
	Simulation []*sim.Result   // optional: one result per policy
	Profile    *model.Workload // optional: jobs with profiles (packer profile, packer fit)
}

//go:embed report.html.tmpl
var reportTemplate string

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"secs":  func(s float64) string { return fmt.Sprintf("%.1f", s) },
	"pct":   func(f float64) string { return fmt.Sprintf("%.1f %%", 100*f) },
	"fixed": func(d int, f float64) string { return fmt.Sprintf("%.*f", d, f) },
	"g":     func(f float64) string { return fmt.Sprintf("%.4g", f) },
	"inc":   func(i int) int { return i + 1 },
}).Parse(reportTemplate))

// Report renders a self-contained HTML page: inline CSS and SVG only, no
// script, font or image fetched from anywhere, readable from a phone to a wide
// screen, and printable.
func Report(in ReportInput) ([]byte, error) {
	pl := in.Plan
	if pl == nil {
		return nil, errors.New("chart: report: no plan")
	}
	// Power is the job's power law, shown as a and b; another form is shown
	// as its formula.
	type jobRow struct {
		model.Job
		AtN          float64
		Extrapolated bool
		Power        *model.PowerLaw
	}
	type phaseJob struct {
		plan.Job
		Class string
	}
	type phaseRow struct {
		plan.Phase
		Rows []phaseJob
	}
	type fitRow struct {
		Name       string
		Power      *model.PowerLaw
		Formula    string
		R2         float64
		ResidualSE float64
		Points     int
		Class      string
		Warnings   string
	}
	data := struct {
		Plan       *plan.Plan
		Gantt      template.HTML
		Jobs       []jobRow
		Phases     []phaseRow
		Simulation []*sim.Result
		SimChart   template.HTML
		Fits       []fitRow
		FitChart   template.HTML
		Title      string
		Bound      *boundCard
	}{Plan: pl, Simulation: in.Simulation, Title: fmt.Sprintf("packer plan %s (%s)", pl.ID, pl.Workload), Bound: newBoundCard(pl)}

	data.Gantt = inlineSVG(Gantt(pl).SVG())
	class := map[string]string{}
	for _, j := range pl.Jobs {
		class[j.Name] = j.Class()
		data.Jobs = append(data.Jobs, jobRow{Job: j, AtN: j.Seconds(pl.Cluster.PrimaryVMs), Power: powerLaw(j.Model)})
	}
	for _, ph := range pl.Phases {
		r := phaseRow{Phase: ph}
		for _, j := range ph.Jobs {
			r.Rows = append(r.Rows, phaseJob{Job: j, Class: class[j.Name]})
		}
		data.Phases = append(data.Phases, r)
	}
	if len(in.Simulation) > 0 {
		g, err := Comparison(in.Simulation)
		if err != nil {
			return nil, err
		}
		svg, err := g.SVG()
		if err != nil {
			return nil, err
		}
		data.SimChart = inlineSVG(svg)
	}
	if in.Profile != nil {
		for _, j := range in.Profile.Jobs {
			if j.Profile == nil {
				continue
			}
			n := 0
			for _, o := range j.Profile.Observations {
				if !o.Failed {
					n++
				}
			}
			data.Fits = append(data.Fits, fitRow{Name: j.Name, Power: powerLaw(j.Model), Formula: j.Model.String(), R2: j.Profile.R2,
				ResidualSE: j.Profile.ResidualSE, Points: n, Class: j.Class(), Warnings: strings.Join(j.Profile.Warnings, "; ")})
		}
		if g, err := Fits(in.Profile); err == nil {
			svg, err := g.SVG()
			if err != nil {
				return nil, err
			}
			data.FitChart = inlineSVG(svg)
		} else if !errors.Is(err, ErrNothingToPlot) {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := reportTmpl.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("chart: report: %w", err)
	}
	return b.Bytes(), nil
}

// boundCard is the report's optimum or lower bound and the plan's gap to
// it, labelled as packer plan's summary labels them.
type boundCard struct {
	Label, ID, GapLabel string
	Value, Gap          float64
}

// newBoundCard is the plan's optimum, else its lower bound, with the gap;
// nil when the plan records neither.
func newBoundCard(pl *plan.Plan) *boundCard {
	switch {
	case pl.GapPercent == nil:
		return nil
	case pl.Optimum != nil:
		return &boundCard{Label: "Optimum", ID: "optimum", GapLabel: "Gap to the optimum", Value: *pl.Optimum, Gap: *pl.GapPercent}
	case pl.LowerBound != nil:
		return &boundCard{Label: "Lower bound", ID: "lower-bound", GapLabel: "Gap, at most", Value: *pl.LowerBound, Gap: *pl.GapPercent}
	}
	return nil
}

var (
	xmlDecl    = regexp.MustCompile(`(?s)^\s*<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)
	svgSizeAtt = regexp.MustCompile(`^<svg([^>]*?)\s(width|height)="[^"]*"`)
)

// inlineSVG prepares an SVG document for inclusion in HTML: no XML
// declaration, and no fixed width or height, so that CSS can scale it to the
// page (its viewBox keeps the proportions).
func inlineSVG(svg []byte) template.HTML {
	s := xmlDecl.ReplaceAllString(string(svg), "")
	for range 2 {
		s = svgSizeAtt.ReplaceAllString(s, "<svg$1")
	}
	return template.HTML(s) // #nosec: generated by this package, not user HTML
}

// powerLaw is m when it is a power law, for the tables' a and b columns; nil
// for another form, which the tables show as its formula.
func powerLaw(m model.Model) *model.PowerLaw {
	if p, ok := m.(model.PowerLaw); ok {
		return &p
	}
	return nil
}
