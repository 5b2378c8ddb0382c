package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFitChart(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "fits.svg")
	code, _, errs := packer(t, "", "fit", "--observations", filepath.Join("testdata", "fit-observations.csv"), "--chart", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fileContains(t, svg, "fit chart", "<svg", "sort", "kmeans", "R² = ", "VMs (n)")
	// A bad --chart is refused before any work, and nothing is written.
	bad := filepath.Join(dir, "fits.bmp")
	if code, _, errs := packer(t, "", "fit", "--observations", filepath.Join("testdata", "fit-observations.csv"), "--chart", bad); code != 2 || !strings.Contains(errs, ".bmp") {
		t.Errorf("--chart .bmp: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("bad chart written")
	}
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "cmp.svg")
	code, out, errs := packer(t, "", "compare", "--workloads", "W1,W4", "--algorithms", "sequential,pair,exact", "--format", "json", "--chart", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []comparison
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 2 workloads × 3 algorithms", len(rows))
	}
	// The exact optimum is never worse than the pair plan, which is never
	// worse than sequential; and the sequential row saves nothing.
	for i := 0; i < 6; i += 3 {
		seq, pair, exact := rows[i], rows[i+1], rows[i+2]
		if seq.SavingPercent != 0 || pair.Makespan > seq.Makespan || exact.Makespan > pair.Makespan*(1+1e-9) {
			t.Errorf("%s: sequential %v, pair %v, exact %v", seq.Workload, seq.Makespan, pair.Makespan, exact.Makespan)
		}
	}
	fileContains(t, svg, "comparison chart", "W1", "W4", "sequential", "pair", "exact")
	if code, _, errs := packer(t, "", "compare", "--algorithms", "pair,magic"); code != 2 || !strings.Contains(errs, "magic") {
		t.Errorf("unknown algorithm: exit %d, %q", code, errs)
	}
}

func TestSimulateChart(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "sim.svg")
	code, _, errs := packer(t, "", "simulate", "-w", filepath.Join("testdata", "simulate-small.json"), "-p", "fifo,fair,fair:5,fair:20", "--chart", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	// Three fair delays make a sweep: the locality panel joins the
	// makespan, response and slowdown panels.
	for _, want := range []string{"fifo", "fair D=5", "fair D=20", "Makespan", "Mean response time", "Slowdown distribution", "Locality vs delay D"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("simulation chart lacks %q", want)
		}
	}
	// Without a sweep there is no locality panel.
	code, _, _ = packer(t, "", "simulate", "-w", filepath.Join("testdata", "simulate-small.json"), "-p", "fifo,fair", "--chart", svg)
	b, _ = os.ReadFile(svg)
	if code != 0 || strings.Contains(string(b), "Locality vs delay") {
		t.Errorf("exit %d; a single fair policy is no sweep", code)
	}
}

// fileContains fails the test unless the file at path holds every one of
// wants; what names the file in the message.
func fileContains(t *testing.T, path, what string, wants ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range wants {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", what, want)
		}
	}
}

// TestSimulateChartNinePolicies: nine policies' names stay legible, each on
// both bar panels and in the slowdown legend, and every text has its width
// pinned, so that browsers without Arial lay it out as gonum did.
func TestSimulateChartNinePolicies(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "sim.svg")
	policies := []string{"fifo", "fair", "sequential", "dp", "dp-preempt", "hybs", "hybs-fcfs", "hybs-sjf", "hybs-smallest"}
	code, _, errs := packer(t, "", "simulate", "-w", filepath.Join("testdata", "simulate-small.json"), "-p", strings.Join(policies, ","), "--chart", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range policies {
		// A policy that ran as an earlier one is "P (same as Q)" in the legend.
		if n := strings.Count(string(b), ">"+p+"</text>") + strings.Count(string(b), ">"+p+" (same as "); n != 3 {
			t.Errorf("policy %s named %d times, want 3", p, n)
		}
	}
	if texts, pinned := strings.Count(string(b), "<text "), strings.Count(string(b), `textLength="`); texts == 0 || pinned != texts {
		t.Errorf("%d of %d texts have a pinned width", pinned, texts)
	}
}

// TestChartToAPipe: a pipe or device named without an extension
// (--chart >(display), --chart /dev/null) gets an SVG; a regular file with
// no extension still has no format and is refused.
func TestChartToAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pic")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	if code, _, errs := packer(t, "", "plan", "--chart", fifo); code != 0 {
		t.Fatalf("--chart FIFO: exit %d: %s", code, errs)
	}
	select {
	case b := <-got:
		if !strings.Contains(string(b), "<svg") {
			t.Errorf("the pipe read %d bytes, no SVG: %.80q", len(b), b)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("packer exited 0 and never wrote the pipe")
	}
	if code, _, errs := packer(t, "", "plan", "--chart", "-"); code != 2 || !strings.Contains(errs, "give /dev/stdout") {
		t.Errorf("--chart -: exit %d, %q", code, errs)
	}
	if code, _, errs := packer(t, "", "plan", "--chart", os.DevNull); code != 0 {
		t.Errorf("--chart /dev/null: exit %d: %s", code, errs)
	}
	plain := filepath.Join(dir, "picture")
	if code, _, errs := packer(t, "", "plan", "--chart", plain); code != 2 || !strings.Contains(errs, "unknown picture format") {
		t.Errorf("--chart without extension: exit %d, %q", code, errs)
	}
}
