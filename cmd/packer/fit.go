package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/packer-sched/packer/chart"
	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/profile"
)

// thresholdFlags set the classification thresholds; shared by profile and fit.
var thresholdFlags = []cli.Flag{
	&cli.Float64Flag{Name: "cpu-threshold", Value: 0.6, Usage: "CPU utilisation (0–1) above which a job is CPU-intensive"},
	&cli.Float64Flag{Name: "io-threshold", Value: 100, Usage: "aggregate I/O rate in MB/s above which a job is I/O-intensive"},
	&cli.IntFlag{Name: "reference-nodes", Value: 6, Usage: "node count the class is decided at (interpolated in log space when not measured)"},
	&cli.BoolFlag{Name: "summary", Usage: "print only each model form's leave-one-node-count-out errors over all jobs (table format)"},
	&cli.StringFlag{Name: "model", Value: "auto", Usage: "runtime model form: auto (the best leave-one-node-count-out predictor, the power law while within 2 points of it) or one of " + model.KindNames()},
}

// analysisSettings reads the threshold flags.
func analysisSettings(c *cli.Context) (*profile.Settings, error) {
	th := model.Thresholds{CPUUtil: c.Float64("cpu-threshold"), IOMBps: c.Float64("io-threshold"), ReferenceNodes: c.Int("reference-nodes")}
	if err := th.Validate(); err != nil {
		flag := map[string]string{"cpu_util": "--cpu-threshold", "io_mbps": "--io-threshold", "reference_nodes": "--reference-nodes"}
		for field, name := range flag {
			if strings.HasPrefix(err.Error(), "thresholds: "+field+" ") {
				return nil, badUsage("%s: %v", name, err)
			}
		}
		return nil, badInput(err)
	}
	var form model.Kind
	if m := c.String("model"); m != "auto" {
		var err error
		if form, err = model.ParseKind(m); err != nil {
			return nil, badUsage("--model: %v (or auto)", err)
		}
	}
	return &profile.Settings{Thresholds: th, Form: form}, nil
}

var fitCommand = &cli.Command{
	Name:  "fit",
	Usage: "fit runtime models and classes to runs measured elsewhere, writing a workload file",
	Description: "Reads a CSV of runs with a header and the columns job, nodes, seconds and optionally\n" +
		"cpu_util (0–1) and io_mbps, for any number of jobs (for example from Hadoop job\n" +
		"histories), fits every runtime model form to each job's runs (power law a·n^b, Amdahl\n" +
		"a + c/n, Ernest, measured table), keeps the one --model names or, with auto, the best\n" +
		"leave-one-node-count-out predictor (the power law while within 2 points of it), classifies\n" +
		"the job at the reference size, and prints the fits; --summary prints only each form's errors\n" +
		"over all jobs. A job that cannot be fitted (runs at a single node count, or fewer than the\n" +
		"--model form needs) is left out and named on standard error; --strict refuses the file\n" +
		"instead. --output writes the profiled jobs as a workload file for packer plan.\n\n" +
		"--rumen FILE instead takes the real jobs of a Rumen trace: each job's own task durations are\n" +
		"replayed alone in the simulator at every --nodes count and those runtimes fitted (fit_rumen.go).",
	Flags: append([]cli.Flag{
		&cli.StringSliceFlag{Name: "observations", Aliases: []string{"i"}, Usage: "CSV `FILE` of runs (- for stdin); repeat it to fit the runs of several files together (a profile's and apply's observations.csv); or --rumen FILE"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the workload file (JSON) to `FILE`"},
		&cli.StringFlag{Name: "name", Usage: "workload name (default: the observations file's name)"},
		&cli.StringFlag{Name: "check", Usage: "CSV `FILE` of runs to predict: for every fitted job, its runs there at node counts it was not fitted on, predicted and compared (fit on small counts, check on large ones)"},
		&cli.BoolFlag{Name: "strict", Usage: "refuse the file when a job cannot be fitted (runs at one node count, or too few for --model) instead of leaving it out with a note"},
		chartFlag,
		formatFlag,
	}, append(thresholdFlags, fitRumenFlags...)...),
	Action: fitAction,
}

// openInput opens the file --flag names for a streaming reader (which bounds
// what it reads itself, as profile's observations reader does): an empty
// name is one line naming the flag, not "open : no such file".
func openInput(flag, path string) (*os.File, error) {
	if path == "" {
		return nil, badUsage("--%s: the file name is empty", flag)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, badInput(&model.InputError{File: path, Err: err})
	}
	return f, nil
}

func fitAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return badUsage("fit takes no arguments, got %q (did you mean --observations %s?)", c.Args().First(), c.Args().First())
	}
	format, err := checkFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if err := checkChart(c); err != nil {
		return err
	}
	set, err := analysisSettings(c)
	if err != nil {
		return err
	}
	if c.IsSet("rumen") {
		return fitRumen(c, set, format) // fit_rumen.go: runs replayed from a real trace
	}
	paths := c.StringSlice("observations")
	if len(paths) == 0 {
		return badUsage("fit needs --observations FILE (measured runs) or --rumen FILE (a real trace)")
	}
	var files []profile.ObservationFile
	for _, path := range paths {
		if path == "-" {
			files = append(files, profile.ObservationFile{R: c.App.Reader, File: "<stdin>"})
			continue
		}
		f, err := openInput("observations", path)
		if err != nil {
			return err
		}
		defer f.Close()
		files = append(files, profile.ObservationFile{R: f, File: path})
	}
	set.Strict = c.Bool("strict")
	fitted, err := profile.FitObservationFiles(files, c.String("name"), set)
	if err != nil {
		return badInput(err)
	}
	if n := len(fitted.Skipped); n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "packer: note: %d of %d jobs cannot be fitted; left out (--strict refuses the file instead):\n",
			n, n+len(fitted.Results))
		for _, sk := range fitted.Skipped {
			fmt.Fprintf(c.App.ErrWriter, "  %s\n", sk)
		}
	}
	var checked []profile.Prediction
	if path := c.String("check"); path != "" {
		if checked, err = checkFit(c, path, fitted.Workload); err != nil {
			return err
		}
	}
	if err := emitWorkload(c, fitted.Workload, fitted.Results, format); err != nil {
		return err
	}
	if c.String("check") == "" {
		return nil
	}
	w := c.App.Writer
	if format == "json" {
		w = c.App.ErrWriter
	}
	return printCheck(w, c.String("check"), checked)
}

// emitWorkload validates the profiled workload, writes it to --output, and
// prints it: the fits as tables, or the workload file itself as JSON.
func emitWorkload(c *cli.Context, w *model.Workload, results []*profile.Result, format string) error {
	if err := w.Validate(); err != nil {
		return badInput(err)
	}
	doc, err := w.MarshalIndent()
	if err != nil {
		return err
	}
	// Draw before writing anything, so that a chart that fails leaves no
	// profile behind either.
	var pic []byte
	if path := c.String("chart"); path != "" {
		g, err := chart.Fits(w)
		if err != nil {
			return err
		}
		if pic, err = g.Encode(pictureName(path)); err != nil {
			return err
		}
	}
	if out := c.String("output"); out != "" {
		if err := writeOutput(out, doc); err != nil {
			return err
		}
	}
	if pic != nil {
		if err := safefile.WriteFile(c.String("chart"), pic, 0o644); err != nil {
			return err
		}
	}
	if c.Bool("summary") && format != "json" {
		return printSummary(c.App.Writer, profile.Summarise(results))
	}
	if format == "json" {
		for _, r := range results {
			for _, warn := range r.Warnings {
				fmt.Fprintf(c.App.ErrWriter, "packer: warning: job %s: %s\n", r.Job.Name, warn)
			}
		}
		_, err = c.App.Writer.Write(doc)
		return err
	}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		if err := printFit(c.App.Writer, r); err != nil {
			return err
		}
	}
	if out := c.String("output"); out != "" {
		jobs := "1 job"
		if len(w.Jobs) != 1 {
			jobs = fmt.Sprintf("%d jobs", len(w.Jobs))
		}
		fmt.Fprintf(c.App.Writer, "\nWrote %s: workload %s with %s (packer plan --workload %s).\n", out, w.Name, jobs, out)
	} else {
		fmt.Fprintln(c.App.Writer, "\nNothing saved: --output FILE writes the workload file, --format json prints it.")
	}
	return nil
}

// printFit shows one job's fit for people: the model with its uncertainty,
// the spread of the runs per node count, the class and why, and the warnings.
func printFit(w io.Writer, r *profile.Result) error {
	j, p, f := r.Job, r.Job.Profile, r.Fit
	if j.Model.Kind() == model.KindPower {
		fmt.Fprintf(w, "Job %s: F(n) = %.4g · n^%.4f, fitted on %d runs at %d–%d nodes\n", j.Name, f.A, f.B, f.Points, j.Range.Min, j.Range.Max)
	} else {
		fmt.Fprintf(w, "Job %s: F(n) = %s (%s), fitted on %d runs at %d–%d nodes\n", j.Name, j.Model, j.Model.Kind(), f.Points, j.Range.Min, j.Range.Max)
		fmt.Fprintf(w, "  the power law for comparison: F(n) = %.4g · n^%.4f\n", f.A, f.B)
	}
	if p.AInterval != nil {
		fmt.Fprintf(w, "  a = %.4g (%g %% interval %.4g to %.4g), b = %.4f (%.4f to %.4f)\n",
			f.A, 100*p.IntervalLevel, p.AInterval[0], p.AInterval[1], f.B, p.BInterval[0], p.BInterval[1])
	} else {
		fmt.Fprintf(w, "  no intervals for a and b: %d runs leave no residual to estimate the noise from\n", f.Points)
	}
	fmt.Fprintf(w, "  R² = %.4f, residual standard error = %.4f (log scale, ≈ %.1f %% typical error)\n",
		f.R2, f.ResidualSE, 100*(math.Exp(f.ResidualSE)-1))
	if err := printForms(w, r.Choice); err != nil {
		return err
	}
	t := newTable(w, "nodes", "runs", "failed", "median s", "min–max s", "CPU util", "I/O MB/s")
	for _, ns := range r.Nodes {
		med, span := "-", "-"
		if ns.Runs > 0 {
			med = strconv.FormatFloat(ns.Median, 'f', 3, 64)
			span = fmt.Sprintf("%.3f–%.3f", ns.Min, ns.Max)
		}
		t.Append([]string{strconv.Itoa(ns.Nodes), strconv.Itoa(ns.Runs), strconv.Itoa(ns.Failed), med, span,
			percent(ns.CPUUtil), rate(ns.IOMBps)})
	}
	if err := t.Render(); err != nil {
		return err
	}
	th := p.Thresholds
	fmt.Fprintf(w, "  At %d nodes (%s): CPU %s (CPU-intensive above %s), I/O %s MB/s (I/O-intensive above %g) → class %s\n",
		th.ReferenceNodes, r.ReferenceSource(), percent(p.CPUUtil), percent(&th.CPUUtil), rate(p.IOMBps), th.IOMBps, j.Class())
	for _, o := range p.Observations {
		if o.Failed {
			fmt.Fprintf(w, "  Failed run at %d nodes (repeat %d): %s\n", o.Nodes, o.Repeat, o.Error)
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  Warning: %s\n", warn)
	}
	return nil
}

func percent(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100**v)
}

func rate(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

// printForms shows every form's leave-one-node-count-out errors side by side
// and which was chosen, and why.
func printForms(w io.Writer, c model.Choice) error {
	fmt.Fprintf(w, "  Model forms by leave-one-node-count-out error: %s\n", c.Reason)
	t := newTable(w, "form", "fitted on all runs", "median error", "worst error", "")
	for _, f := range c.Forms {
		formula, med, worst, mark := "-", "-", "-", ""
		if f.Model != nil {
			formula = f.Model.String()
		}
		if f.Folds > 0 {
			med, worst = fmt.Sprintf("%.1f %%", 100*f.Median), fmt.Sprintf("%.1f %%", 100*f.Worst)
		} else {
			worst = "too few node counts"
		}
		if f.Kind == c.Chosen {
			mark = "chosen"
		}
		t.Append([]string{string(f.Kind), formula, med, worst, mark})
	}
	return t.Render()
}

// printSummary shows every form's leave-one-out errors over a set of jobs.
func printSummary(w io.Writer, rows []profile.FormSummary) error {
	t := newTable(w, "form", "jobs judged", "median of medians", "worst", "chosen for")
	for _, r := range rows {
		med, worst := "-", "-"
		if r.Jobs > 0 {
			med, worst = fmt.Sprintf("%.1f %%", 100*r.Median), fmt.Sprintf("%.1f %%", 100*r.Worst)
		}
		t.Append([]string{r.Form, strconv.Itoa(r.Jobs), med, worst, strconv.Itoa(r.Chosen)})
	}
	return t.Render()
}
