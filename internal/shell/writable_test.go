package shell

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckWritableDir: a directory that refuses this user is named, for a
// new file, an existing one and one behind a symbolic link (whose target's
// directory the write goes to); a device is written in place and passes.
// As root every directory is writable, so the refusal is checked by making
// the directory read-only to root too where it can be (not root) and by
// the access call's answer otherwise.
func TestCheckWritableDir(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	rw := filepath.Join(dir, "rw")
	for _, d := range []string{ro, rw} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ro, "old"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ro, "target"), filepath.Join(rw, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	if os.Geteuid() == 0 {
		real := access
		access = func(path string, mode uint32) error {
			if filepath.Clean(path) == ro {
				return syscall.EACCES
			}
			return real(path, mode)
		}
		defer func() { access = real }()
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(ro, "new"), "cannot write in " + ro + ": permission denied"},
		{filepath.Join(ro, "old"), "cannot write in " + ro + ": permission denied"},
		{filepath.Join(rw, "link"), "cannot write in " + ro + ": permission denied"},
		{filepath.Join(ro, "res", "shard-0-of-1.jsonl"), "cannot write in " + ro + ": permission denied"},
		{filepath.Join(rw, "new"), ""},
		{"/dev/null", ""},
		{filepath.Join(dir, "missing", "x"), ""}, // the missing directory is safefile.Check's to name
	} {
		err := CheckWritableDir(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
}
