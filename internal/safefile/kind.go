package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links resolve follows, as the kernel does.
const maxLinks = 40

// target is where a write to a path goes.
type target struct {
	path    string
	exists  bool // the file exists (else it is created)
	inPlace bool // written in place: a device, a FIFO or an inherited descriptor
	// through is, for a symbolic link at path, the file it leads to (which
	// need not exist): written in place once the data is complete.
	through string
}

// resolve finds the file a write to path must reach. A path naming one of
// packer's own open descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is
// written through that descriptor, whatever it leads to: renaming over the
// file a shell redirected standard output to would lose what it held (and
// the table packer prints there). A device or FIFO is opened by the name
// given. A regular file is replaced by rename. A symbolic link to a regular
// file, or to a name where none exists yet, is written through: see
// writeThrough. A kind of file that cannot take an output, and a loop of
// links, are errors.
func resolve(path string) (target, error) {
	st, err := os.Stat(path)
	if _, ok := inheritedFD(path); ok && err == nil {
		return target{path: path, exists: true, inPlace: true}, nil
	}
	lst, lerr := os.Lstat(path)
	link := lerr == nil && lst.Mode()&fs.ModeSymlink != 0
	switch {
	case err == nil && !st.Mode().IsRegular():
		if err := writable(st); err != nil {
			return target{}, fmt.Errorf("write %s: %w", path, err)
		}
		return target{path: path, exists: true, inPlace: true}, nil
	case err == nil && link:
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return target{}, fmt.Errorf("write %s: %w", path, err)
		}
		return target{path: path, exists: true, through: real}, nil
	case err == nil:
		return target{path: path, exists: true}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return target{}, fmt.Errorf("write %s: %w", path, err)
	case !link:
		return target{path: path}, nil
	}
	// A dangling link: follow it to the name to create.
	to := path
	for range maxLinks {
		next, err := os.Readlink(to)
		if err != nil {
			return target{path: path, through: to}, nil
		}
		if !filepath.IsAbs(next) {
			next = filepath.Join(filepath.Dir(to), next)
		}
		to = next
	}
	return target{}, fmt.Errorf("write %s: %w", path, syscall.ELOOP)
}

// inheritedFD tells whether path names one of this process's open file
// descriptors, and which.
func inheritedFD(path string) (int, bool) {
	path = filepath.Clean(path)
	switch path {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/"} {
		if rest, ok := strings.CutPrefix(path, dir); ok {
			if fd, err := strconv.Atoi(rest); err == nil && fd >= 0 {
				return fd, true
			}
		}
	}
	return 0, false
}

// writable refuses the kinds of file an output cannot go to: all but regular
// files, character devices and FIFOs.
func writable(st fs.FileInfo) error {
	m := st.Mode()
	var kind string
	switch {
	case m.IsRegular(), m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		return nil
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	default:
		kind = "not a regular file"
	}
	return fmt.Errorf("is %s; give a file, a FIFO or a character device", kind)
}

// openInPlace opens a device, FIFO or inherited descriptor for writing
// without creating or truncating anything; for a FIFO it waits for a
// reader. An inherited descriptor is duplicated, so the write goes on where
// the shell's redirection is (at the end, for >>).
func openInPlace(path string) (*os.File, error) {
	if fd, ok := inheritedFD(path); ok {
		dup, err := syscall.Dup(fd)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return os.NewFile(uintptr(dup), path), nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return f, nil
}

// writeInPlace writes data to a device, FIFO or inherited descriptor.
func writeInPlace(path string, data []byte) error {
	f, err := openInPlace(path)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the *os.File's error already says "write PATH"
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// formatNames are words people give -o out of habit (kubectl's -o json) when
// they mean an output format.
var formatNames = map[string]bool{"json": true, "yaml": true, "yml": true, "table": true, "wide": true,
	"csv": true, "text": true, "name": true, "html": true, "svg": true, "png": true, "lp": true, "arff": true}

// InPlace tells whether an output to path would be written in place: it
// names a character device, a FIFO or one of packer's own descriptors.
func InPlace(path string) bool {
	t, err := resolve(path)
	return err == nil && t.inPlace
}

// ErrDash is Check's error for "-". Many tools read it as standard output;
// packer prints its report there, so a document sent there too would come
// out mixed with the table, and a file called "-" is seldom meant either.
var ErrDash = errors.New(`"-" is not taken as standard output here: give /dev/stdout to write there (beside the report, if the command prints one), or ./- for a file called -`)

// ErrFormatName is wrapped by Check's error for a path that is a bare format
// name.
var ErrFormatName = errors.New("looks like a format, not a file")

// Check tells, before any work is done, whether an output can be written to
// path: its directory exists, it is not a kind of file WriteFile refuses, and
// it is not a bare format name such as "json" (no dot, no slash), which a
// user who types -o json almost never means as a file name. Whether this
// user may write in its directory is CheckWritable's to say. The errors name
// neither the path nor the flag; the caller adds them.
func Check(path string) error {
	if path == "-" {
		return ErrDash
	}
	if formatNames[strings.ToLower(path)] {
		return fmt.Errorf("%w (a format is chosen with --format, or by the file's extension; to make a file called %s, give ./%s)", ErrFormatName, path, path)
	}
	t, err := resolve(path)
	if err != nil {
		return errors.Unwrap(err) // without resolve's "write PATH: "
	}
	dest := t.path
	if t.through != "" {
		dest = t.through
	}
	switch {
	case !t.exists:
		if dst, err := os.Stat(filepath.Dir(dest)); err != nil || !dst.IsDir() {
			if t.through != "" {
				return fmt.Errorf("is a symbolic link to %s, in a directory that does not exist", dest)
			}
			return fmt.Errorf("directory %s does not exist", filepath.Dir(dest))
		}
	case t.through != "":
		if err := syscall.Access(dest, wOK); err != nil {
			return fmt.Errorf("is a symbolic link to %s, which cannot be written: %w", dest, err)
		}
	}
	return nil
}

// wOK asks access(2) whether a file may be written.
const wOK = 2
