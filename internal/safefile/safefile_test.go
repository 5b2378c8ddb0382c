package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "new" || st.Mode().Perm() != 0o644 {
		t.Errorf("content %q, mode %v", b, st.Mode())
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil {
		t.Error("a missing directory must fail")
	}
	assertOnly(t, dir, "out.json")
}

func TestFileCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "trace.csv")
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("a,b\n"))
	if _, err := os.Stat(p); err == nil {
		t.Fatal("the target exists before Commit")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if b, _ := os.ReadFile(p); string(b) != "a,b\n" {
		t.Errorf("content %q", b)
	}
	g, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("half"))
	g.Abort()
	if b, _ := os.ReadFile(p); string(b) != "a,b\n" {
		t.Errorf("an aborted write changed the target: %q", b)
	}
	if err := g.Commit(); err == nil {
		t.Error("Commit after Abort must fail")
	}
	assertOnly(t, dir, "trace.csv")
}

// assertOnly fails unless dir holds exactly the named file: no temporaries.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	if len(es) != 1 || es[0].Name() != name {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only %s", names, name)
	}
}
