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

func TestSymlinkIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "plans", "plan.json")
	os.Mkdir(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte("old"), 0o644)
	link := filepath.Join(dir, "latest.json")
	if err := os.Symlink("plans/plan.json", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the target holds %q", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a %v", st.Mode())
	}
	// A dangling link names the file to create.
	dangling := filepath.Join(dir, "next.json")
	os.Symlink("plans/next.json", dangling)
	if err := Check(dangling); err != nil {
		t.Fatal(err)
	}
	f, err := Create(dangling, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("next"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plans", "next.json")); string(b) != "next" {
		t.Errorf("the dangling link's target holds %q", b)
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
