package goldenfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheckRewritesUnderUpdate: with -update, Check writes the file, and a
// later Check without it passes on the same text. (A mismatch fails the
// test, so it cannot be checked from inside one.)
func TestCheckRewritesUnderUpdate(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	old := *Update
	defer func() { *Update = old }()
	*Update = true
	Check(t, "x.golden", "hello\n")
	b, err := os.ReadFile(filepath.Join(dir, "testdata", "x.golden"))
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("wrote %q, %v", b, err)
	}
	*Update = false
	Check(t, "x.golden", "hello\n")
}
