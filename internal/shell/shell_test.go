package shell

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"nothing recorded", nil, "(devel), commit unknown"},
		{"go test", &debug.BuildInfo{}, "(devel), commit unknown"},
		{"release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "cef4644"}, {Key: "vcs.modified", Value: "false"}}}, "v1.2.0, commit cef4644"},
		{"work tree with changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "78fbc58"}}}, "(devel), commit 78fbc58+modified"},
	} {
		if got := FormatVersion(c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCompletion(t *testing.T) {
	fish := func() (string, error) { return "complete -c packer\n", nil }
	for _, sh := range Shells {
		s, err := Completion(sh, "packer", fish)
		if err != nil || !strings.Contains(s, "packer") || strings.Contains(s, "PROG") {
			t.Errorf("%s: %v\n%s", sh, err, s)
		}
	}
	if _, err := Completion("tcsh", "packer", fish); err == nil || !strings.Contains(err.Error(), "bash, zsh, fish") {
		t.Errorf("tcsh: %v", err)
	}
	if _, err := Completion("", "packer", fish); err == nil || err.Error() != "name the shell: bash, zsh, fish" {
		t.Errorf("no shell: %v", err)
	}
}

// failAfter accepts n bytes, then fails.
type failAfter struct{ n int }

func (f *failAfter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		w := f.n
		f.n = 0
		return w, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	}
	f.n -= len(b)
	return len(b), nil
}

func TestWriterRemembersTheFirstError(t *testing.T) {
	w := &Writer{W: &failAfter{n: 5}}
	if _, err := io.WriteString(w, "12345"); err != nil || w.Err() != nil {
		t.Fatalf("a write that fits: %v, %v", err, w.Err())
	}
	if n, err := io.WriteString(w, "678"); n != 0 || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("a write past the end: %d, %v", n, err)
	}
	// Later writes fail too, though the writer below would now take them.
	if _, err := io.WriteString(w, ""); err == nil {
		t.Error("a write after a failure succeeded")
	}
	err := w.Err()
	if !errors.Is(err, syscall.ENOSPC) || err.Error() != "writing standard output: no space left on device" {
		t.Errorf("Err: %v", err)
	}
}

func TestWriterOnDevFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &Writer{W: f}
	io.WriteString(w, "plan\n")
	if !errors.Is(w.Err(), syscall.ENOSPC) {
		t.Errorf("Err: %v", w.Err())
	}
}
