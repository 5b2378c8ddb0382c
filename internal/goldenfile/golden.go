// Package goldenfile compares tests' output with golden files under testdata/,
// and rewrites them under go test -update: the one -update flag of a test
// binary that imports it. Tests only.
package goldenfile

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Update is the -update flag: rewrite the golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Check compares got with testdata/name, or writes got there under -update.
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it; review the diff):\n%s", path, got)
	}
}
