package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestRemoveTemps: the temporary files of outputs under way are removed,
// those committed or aborted are not listed, and no new one starts after.
func TestRemoveTemps(t *testing.T) {
	defer func() { temps.Lock(); temps.closed = false; temps.Unlock() }()
	dir := t.TempDir()
	a, err := Create(filepath.Join(dir, "a.csv"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(filepath.Join(dir, "b.csv"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	done, err := Create(filepath.Join(dir, "done.csv"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	done.Write([]byte("x\n"))
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "w.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("half"))
	if n := RemoveTemps(); n != 2 {
		t.Errorf("RemoveTemps removed %d files, want 2 (a's and b's)", n)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "done.csv w.json" {
		t.Errorf("left %q, want done.csv and w.json", names)
	}
	if _, err := Create(filepath.Join(dir, "late.csv"), 0o644); !errors.Is(err, errClosed) {
		t.Errorf("Create after RemoveTemps: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "late.json"), nil, 0o644); !errors.Is(err, errClosed) {
		t.Errorf("WriteFile after RemoveTemps: %v", err)
	}
	b.Abort() // its file is gone already: no harm
	a.Abort()
}

// TestMkdirTempRemoved: a temporary directory, with what it holds, goes
// when its remove function runs, and when RemoveTemps runs before that;
// none is made after RemoveTemps.
func TestMkdirTempRemoved(t *testing.T) {
	defer func() { temps.Lock(); temps.closed = false; temps.Unlock() }()
	base := t.TempDir()
	a, removeA, err := MkdirTemp(base, "a-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a, "x.lp"), []byte("max: x;"), 0o644); err != nil {
		t.Fatal(err)
	}
	removeA()
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Errorf("after remove: %s: %v", a, err)
	}
	b, _, err := MkdirTemp(base, "b-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "solution.txt"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := RemoveTemps(); n != 1 {
		t.Errorf("RemoveTemps removed %d, want 1 (b)", n)
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
	if _, _, err := MkdirTemp(base, "c-"); !errors.Is(err, errClosed) {
		t.Errorf("MkdirTemp after RemoveTemps: %v", err)
	}
}
