package main

import (
	"encoding/json"
	"fmt"
	chromiumtest "github.com/packer-sched/packer/internal/chromium"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/sim"
)

// reportFixture writes a W5 plan on 10 hosts, a two-policy simulation result
// and a profile with observations, and runs packer report over them.
func reportFixture(t *testing.T) (dir, html string, makespan float64) {
	t.Helper()
	dir = t.TempDir()
	planPath := filepath.Join(dir, "plan.json")
	if code, _, errs := packer(t, "", "plan", "-w", "W5", "--hosts", "10", "-o", planPath); code != 0 {
		t.Fatalf("plan: %s", errs)
	}
	var pl struct{ Makespan float64 }
	b, _ := os.ReadFile(planPath)
	if err := json.Unmarshal(b, &pl); err != nil {
		t.Fatal(err)
	}
	var results []*sim.Result
	for i, name := range []string{"fifo", "plan"} {
		r := &sim.Result{Policy: name, Makespan: 4000 - 300*float64(i)}
		for j := range 5 {
			r.Jobs = append(r.Jobs, sim.JobResult{Name: fmt.Sprint("j", j), Response: float64(100 * (j + 1)), Slowdown: 1 + float64(j)/2})
		}
		r.Summary.MeanResponse = 300
		results = append(results, r)
	}
	simPath := filepath.Join(dir, "sim.json")
	sb, _ := json.Marshal(map[string]any{"results": results})
	if err := os.WriteFile(simPath, sb, 0o644); err != nil {
		t.Fatal(err)
	}
	prof := &model.Workload{Name: "prof", Jobs: []model.Job{{Name: "wordcount", Model: model.PowerLaw{A: 1000, B: -0.7},
		Profile: &model.Profile{R2: 0.987, Observations: []model.Observation{{Nodes: 2, Seconds: 620}, {Nodes: 4, Seconds: 377}, {Nodes: 8, Seconds: 236}}}}}}
	pb, _ := prof.MarshalIndent()
	profPath := filepath.Join(dir, "profile.json")
	if err := os.WriteFile(profPath, pb, 0o644); err != nil {
		t.Fatal(err)
	}
	html = filepath.Join(dir, "report.html")
	if code, _, errs := packer(t, "", "report", "--plan", planPath, "--simulation", simPath, "--profile", profPath, "--output", html); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	return dir, html, pl.Makespan
}

func TestReportIsSelfContained(t *testing.T) {
	_, html, makespan := reportFixture(t)
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{fmt.Sprintf(`id="makespan">%.1f s`, makespan), "<svg", "Simulation", "fifo", "Model fits", "wordcount", "0.987", "@media print", "viewport"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Nothing to fetch: no script, no external stylesheet, font or image; the
	// only URLs are XML namespace names and in-document references.
	if strings.Contains(page, "<script") || strings.Contains(page, "@import") || strings.Contains(page, "<link") || strings.Contains(page, "<img") {
		t.Error("report loads or runs something")
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"|url\(([^)]*)\)`).FindAllStringSubmatch(page, -1) {
		ref := m[1] + m[2]
		if !strings.HasPrefix(ref, "#") {
			t.Errorf("external reference %q", ref)
		}
	}
	for _, u := range regexp.MustCompile(`https?://[^"' )]*`).FindAllString(page, -1) {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("URL %q in report", u)
		}
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"results": []}`), 0o644)
	out := filepath.Join(dir, "r.html")
	if code, _, errs := packer(t, "", "report", "--plan", filepath.Join(dir, "none.json"), "-o", out); code != 2 || !strings.Contains(errs, "none.json") {
		t.Errorf("missing plan: exit %d, %q", code, errs)
	}
	planPath := filepath.Join(dir, "plan.json")
	packer(t, "", "plan", "-o", planPath)
	if code, _, errs := packer(t, "", "report", "--plan", planPath, "--simulation", bad, "-o", out); code != 2 || !strings.Contains(errs, "bad.json") {
		t.Errorf("empty simulation: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("report written despite bad input")
	}
}

// TestReportInChromium opens the report in headless Chromium (as a reader
// would), dumps the DOM it built and takes a screenshot: the page must load
// with no console message, show the plan's makespan, lay out the Gantt chart,
// and paint more than a blank page.
func TestReportInChromium(t *testing.T) {
	browser := chromiumtest.Find(t)
	dir, html, makespan := reportFixture(t)
	shot := filepath.Join(dir, "report.png")
	run := func(extra ...string) (string, string) {
		return chromiumtest.Run(t, browser, html, 1280, 2000, append([]string{"--enable-logging=stderr", "--v=0"}, extra...)...)
	}
	dom, logs := run("--dump-dom")
	if strings.Contains(logs, "CONSOLE") {
		t.Errorf("the page logged to the console:\n%s", logs)
	}
	if !strings.Contains(dom, fmt.Sprintf("%.1f s", makespan)) || !strings.Contains(dom, `class="vm"`) {
		t.Errorf("the rendered page does not show the makespan %.1f s and the chart's bars", makespan)
	}
	run("--screenshot=" + shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2000 {
		t.Errorf("screenshot %v", b)
	}
	// Count non-white pixels: a page that failed to render is blank.
	ink := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xF000 || g < 0xF000 || bl < 0xF000 {
				ink++
			}
		}
	}
	if total := (b.Dx() / 4) * (b.Dy() / 4); ink < total/20 {
		t.Errorf("screenshot nearly blank: %d of %d sampled pixels inked", ink, total)
	}
}
