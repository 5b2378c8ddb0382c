package safefile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDevNullStaysADevice: as root, a rename over /dev/null would replace
// the device with a regular file for every program on the machine.
func TestDevNullStaysADevice(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(os.DevNull, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("a,b\n"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(os.DevNull); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is now %v (%v)", os.DevNull, st.Mode(), err)
	}
	if err := Check(os.DevNull); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// readFIFO reads the FIFO at path to its end in a goroutine; receive with
// read, which gives up after ten seconds (a write that missed the FIFO).
// The reader closes the FIFO before it sends what it read: were it still
// open, the test's next writer could open the FIFO against this reader,
// whose close then drops the data, and the next reader would wait for a
// writer that has come and gone (seen once in CI: "nothing in 10 s").
func readFIFO(t *testing.T, path string) <-chan string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path) // waits for the writer
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	return got
}

func read(got <-chan string) string {
	select {
	case s := <-got:
		return s
	case <-time.After(10 * time.Second):
		return "nothing in 10 s"
	}
}

func TestFIFOIsWrittenInPlace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	got := readFIFO(t, p)
	if err := WriteFile(p, []byte(`{"jobs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := read(got); s != `{"jobs": []}` {
		t.Errorf("the reader got %q", s)
	}
	got = readFIFO(t, p)
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("t,job\n"))
	f.Write([]byte("0,sort\n"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := read(got); s != "t,job\n0,sort\n" {
		t.Errorf("the reader got %q", s)
	}
	if st, err := os.Lstat(p); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("%s is now %v (%v)", p, st.Mode(), err)
	}
	assertOnly(t, filepath.Dir(p), "pipe")
}

func TestSocketAndDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for path, kind := range map[string]string{sock: "is a socket", dir: "is a directory"} {
		if err := WriteFile(path, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), path+": "+kind) {
			t.Errorf("WriteFile %s: %v", path, err)
		}
		if _, err := Create(path, 0o644); err == nil || !strings.Contains(err.Error(), kind) {
			t.Errorf("Create %s: %v", path, err)
		}
		if err := Check(path); err == nil || !strings.HasPrefix(err.Error(), kind) {
			t.Errorf("Check %s: %v", path, err)
		}
	}
	if st, err := os.Lstat(sock); err != nil || st.Mode()&fs.ModeSocket == 0 {
		t.Errorf("the socket is now %v (%v)", st.Mode(), err)
	}
}

// TestSymlinkIsWrittenThrough: a link at an output path, to a file beside
// it or outside its directory, is written through in place: the link stays,
// and the target keeps its inode, mode and hard links; nothing is made in
// the target's directory. A target the user may not write is refused, by
// Check before any work, and left as it was (a rename in its writable
// directory would have replaced it). A dangling link creates the file it
// names, unless that file's directory is missing; a loop is an error.
func TestSymlinkIsWrittenThrough(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(dir, "plans"), 0o755)
	inDir := filepath.Join(dir, "plans", "plan.json")
	foreign := filepath.Join(outside, "theirs.json")
	for _, c := range []struct{ link, to, target string }{
		{"latest.json", "plans/plan.json", inDir},
		{"theirs.json", foreign, foreign},
	} {
		os.WriteFile(c.target, []byte("old"), 0o640)
		hard := c.target + ".hard"
		os.Link(c.target, hard)
		before, _ := os.Stat(c.target)
		link := filepath.Join(dir, c.link)
		if err := os.Symlink(c.to, link); err != nil {
			t.Fatal(err)
		}
		if err := Check(link); err != nil {
			t.Fatalf("Check %s: %v", c.link, err)
		}
		if err := WriteFile(link, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Create(link, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("streamed"))
		if b, _ := os.ReadFile(c.target); string(b) != "new" {
			t.Errorf("%s: before Commit the target holds %q", c.link, b)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		after, _ := os.Stat(c.target)
		if b, _ := os.ReadFile(hard); string(b) != "streamed" || !os.SameFile(before, after) || after.Mode() != 0o640 {
			t.Errorf("%s: the hard link holds %q, same file %v, mode %v", c.link, b, os.SameFile(before, after), after.Mode())
		}
		if to, err := os.Readlink(link); err != nil || to != c.to {
			t.Errorf("the link %s now leads to %q (%v)", c.link, to, err)
		}
	}
	noTemps(t, dir, filepath.Join(dir, "plans"), outside)

	// A target the user may not write, in a directory they may (root may
	// write it, and does).
	ro := filepath.Join(outside, "readonly.json")
	os.WriteFile(ro, []byte("theirs"), 0o444)
	link := filepath.Join(dir, "ro.json")
	os.Symlink(ro, link)
	if os.Geteuid() == 0 {
		if err := WriteFile(link, []byte("root's"), 0o644); err != nil {
			t.Errorf("root writing through a link to a read-only file: %v", err)
		}
		if b, _ := os.ReadFile(ro); string(b) != "root's" {
			t.Errorf("root's write: the read-only file holds %q", b)
		}
	} else {
		if err := Check(link); err == nil || err.Error() != "is a symbolic link to "+ro+", which cannot be written: permission denied" {
			t.Errorf("Check a link to a read-only file: %v", err)
		}
		if err := WriteFile(link, []byte("new"), 0o644); !errors.Is(err, fs.ErrPermission) || err.Error() != "write "+link+" (a link to "+ro+"): permission denied" {
			t.Errorf("WriteFile through a link to a read-only file: %v", err)
		}
		if b, _ := os.ReadFile(ro); string(b) != "theirs" {
			t.Errorf("the read-only file holds %q", b)
		}
		noTemps(t, dir, outside)
	}

	// A dangling link names the file to create; Abort creates nothing.
	dangling := filepath.Join(dir, "next.json")
	os.Symlink(filepath.Join(outside, "next.json"), dangling)
	if err := Check(dangling); err != nil {
		t.Fatal(err)
	}
	f, err := Create(dangling, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("next"))
	f.Abort()
	if _, err := os.Lstat(filepath.Join(outside, "next.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Abort made the dangling link's target: %v", err)
	}
	if err := WriteFile(dangling, []byte("next"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(outside, "next.json")); err != nil || st.Mode() != 0o600 {
		t.Errorf("the dangling link's target: %v, %v", st, err)
	}
	if b, _ := os.ReadFile(dangling); string(b) != "next" {
		t.Errorf("the dangling link's target holds %q", b)
	}
	// Into a missing directory: refused before any work.
	nowhere := filepath.Join(dir, "nowhere.json")
	os.Symlink("missing/x.json", nowhere)
	if err := Check(nowhere); err == nil || err.Error() != "is a symbolic link to "+filepath.Join(dir, "missing", "x.json")+", in a directory that does not exist" {
		t.Errorf("Check a link into a missing directory: %v", err)
	}
	// A link to a device is written in place and stays a link.
	null := filepath.Join(dir, "discard")
	os.Symlink("/dev/null", null)
	if err := WriteFile(null, []byte("x"), 0o644); err != nil {
		t.Errorf("a link to /dev/null: %v", err)
	}
	if st, err := os.Lstat(null); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link to /dev/null is now %v (%v)", st.Mode(), err)
	}
	// A loop is an error, not a hang.
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := WriteFile(loop, nil, 0o644); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("a link loop: %v", err)
	}
	if err := Check(loop); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("Check a link loop: %v", err)
	}
	noTemps(t, dir, outside)
}

// noTemps fails t if a temporary file is left in any of dirs.
func noTemps(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if m, _ := filepath.Glob(filepath.Join(d, ".*tmp-*")); len(m) > 0 {
			t.Errorf("temporary files left: %v", m)
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		path string
		want string // "" for no error
	}{
		{"json", "looks like a format"},
		{"YAML", "looks like a format"},
		{"csv", "give ./csv"},
		{"./json", ""},
		{"-", "give /dev/stdout"},
		{"./-", ""},
		{"json.json", ""},
		{filepath.Join(dir, "json"), ""},
		{filepath.Join(dir, "plan.json"), ""},
		{filepath.Join(dir, "no", "plan.json"), "directory " + filepath.Join(dir, "no") + " does not exist"},
		{dir, "is a directory"},
	} {
		err := Check(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	if err := Check("table"); !errors.Is(err, ErrFormatName) {
		t.Errorf("table: %v", err)
	}
}

// TestInheritedDescriptorIsWrittenInPlace: `packer plan -o /dev/stdout >>
// log` must add to log, not replace it: a path naming one of the process's
// descriptors is written through that descriptor, at its offset (the end,
// for a file opened to append), with WriteFile and with Create.
func TestInheritedDescriptorIsWrittenInPlace(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(log, []byte("KEEP\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := strconv.Itoa(int(f.Fd()))
	if err := WriteFile("/dev/fd/"+fd, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create("/proc/self/fd/"+fd, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("three\n")); err != nil {
		t.Fatalf("the caller's descriptor was closed: %v", err)
	}
	got, _ := os.ReadFile(log)
	if string(got) != "KEEP\none\ntwo\nthree\n" {
		t.Errorf("log holds %q, want KEEP then one, two, three", got)
	}
	for path, want := range map[string]int{"/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd/7": 7, "/proc/self/fd/12": 12} {
		if fd, ok := inheritedFD(path); !ok || fd != want {
			t.Errorf("inheritedFD(%s) = %d, %v; want %d", path, fd, ok, want)
		}
	}
	if _, ok := inheritedFD("/dev/fd/x"); ok {
		t.Error("/dev/fd/x taken for a descriptor")
	}
}

// TestInPlace: devices and packer's own descriptors are written in place;
// regular files and paths yet to be created are not.
func TestInPlace(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{os.DevNull: true, "/dev/stdout": true, file: false, filepath.Join(dir, "new"): false} {
		if got := InPlace(path); got != want {
			t.Errorf("InPlace(%s) = %v, want %v", path, got, want)
		}
	}
}

// failingReader gives some bytes, then an error: a write that fails part
// way, as a full disk does.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("disk full")
	}
	n := min(len(p), r.n)
	for i := range n {
		p[i] = 'x'
	}
	r.n -= n
	return n, nil
}

// TestSymlinkTargetIsReplacedWhole: a link to a file with no other hard
// link is written as a regular file is, by a rename over the target's name:
// the link stays, the target has the new content, its mode and (as root)
// its owner, and a write that fails part way leaves it as it was, with no
// temporary file left. (With another hard link the target is rewritten in
// place instead: TestSymlinkIsWrittenThrough.)
func TestSymlinkTargetIsReplacedWhole(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "journal.json")
	os.WriteFile(target, []byte("old"), 0o640)
	owner := os.Getuid()
	if os.Geteuid() == 0 {
		owner = 65534 // nobody: the new file must be theirs too
		if err := os.Chown(target, owner, owner); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "state.json")
	os.Symlink(target, link)
	before, _ := os.Stat(target)
	if err := writeThrough(link, target, &failingReader{n: 10000}, 0o644); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("a write failing part way: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Fatalf("after a failed write the target holds %d bytes, want the old 3", len(b))
	}
	noTemps(t, dir, outside)
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(link); string(b) != "new" || os.SameFile(before, after) || after.Mode() != 0o640 {
		t.Errorf("through the link: %q, same inode %v (want a new file), mode %v", b, os.SameFile(before, after), after.Mode())
	}
	if st, ok := after.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != owner {
		t.Errorf("the target's owner is now %v, want %d", after.Sys(), owner)
	}
	if to, err := os.Readlink(link); err != nil || to != target {
		t.Errorf("the link now leads to %q (%v)", to, err)
	}
	noTemps(t, dir, outside)
}
