package safefile

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// nobodyEnv marks a test binary that asNobody started as user nobody.
const nobodyEnv = "SAFEFILE_TEST_AS_NOBODY"

// asNobody reports whether the test t was handed to a copy of this test
// binary running as user nobody, to whom a read-only directory really is
// read-only (root may write anywhere), and fails t if that run failed. It
// answers false, and t goes on in this process, when not running as root.
func asNobody(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	if os.Getenv(nobodyEnv) == "1" {
		t.Fatal("started as nobody, but still root")
	}
	// nobody may neither run the test binary where go test built it nor make
	// files in a directory of root's: a copy goes to a directory all may
	// read, with a temporary directory of nobody's beside it.
	dir, err := os.MkdirTemp("", "safefile-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin, tmp := filepath.Join(dir, "safefile.test"), filepath.Join(dir, "tmp")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), nobodyEnv+"=1", "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()+" ") {
		t.Errorf("%s as nobody: %v\n%s", t.Name(), err, out)
	}
	return true
}

// TestCheckWritable: a directory that refuses this user is named, for a new
// file, an existing one, a link to a name yet to be made there and a file
// under a subdirectory yet to be made there; a writable directory, a
// device, a descriptor and the existing file a link leads to pass, as does
// a missing directory (Check's to name). Each verdict is checked against
// what the write itself then does: the callers make the missing
// directories (an --out DIR) and write, and that fails with permission
// denied exactly where CheckWritable refused. As root, to whom every
// directory is writable, the test runs as nobody.
func TestCheckWritable(t *testing.T) {
	if asNobody(t) {
		return
	}
	dir := t.TempDir()
	ro, rw := filepath.Join(dir, "ro"), filepath.Join(dir, "rw")
	for _, d := range []string{ro, rw} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"old", "kept"} {
		if err := os.WriteFile(filepath.Join(ro, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ro, "target"), filepath.Join(rw, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "ro", "kept"), filepath.Join(rw, "kept")); err != nil {
		t.Fatal(err)
	}
	held, err := os.OpenFile(filepath.Join(ro, "kept"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	refused := "cannot write in " + ro + ": permission denied"
	for _, c := range []struct{ path, want string }{
		{filepath.Join(ro, "new"), refused},
		{filepath.Join(ro, "old"), refused},
		{filepath.Join(rw, "link"), refused}, // the link's file is made in ro
		{filepath.Join(ro, "res", "shard-0-of-1.jsonl"), refused},
		{filepath.Join(rw, "new"), ""},
		{filepath.Join(rw, "kept"), ""}, // ro/kept is rewritten in place
		{"/proc/self/fd/" + strconv.Itoa(int(held.Fd())), ""},
		{os.DevNull, ""},
		{filepath.Join(dir, "missing", "x"), ""},
	} {
		err := CheckWritable(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", c.path, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
		werr := os.MkdirAll(filepath.Dir(c.path), 0o755)
		if werr == nil {
			werr = WriteFile(c.path, []byte("x"), 0o644)
		}
		if (err == nil) != (werr == nil) || (werr != nil && !errors.Is(werr, fs.ErrPermission)) {
			t.Errorf("%s: CheckWritable says %v, but the write says %v", c.path, err, werr)
		}
	}
}
