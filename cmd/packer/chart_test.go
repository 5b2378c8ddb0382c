package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFitChart(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "fits.svg")
	code, _, errs := packer(t, "", "fit", "--observations", filepath.Join("testdata", "fit-observations.csv"), "--chart", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "sort", "kmeans", "R² = ", "VMs (n)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("fit chart lacks %q", want)
		}
	}
	// A bad --chart is refused before any work, and nothing is written.
	bad := filepath.Join(dir, "fits.bmp")
	if code, _, errs := packer(t, "", "fit", "--observations", filepath.Join("testdata", "fit-observations.csv"), "--chart", bad); code != 2 || !strings.Contains(errs, ".bmp") {
		t.Errorf("--chart .bmp: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("bad chart written")
	}
}
