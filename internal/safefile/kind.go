package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links resolve follows, as the kernel does.
const maxLinks = 40

// resolve finds the file a write to path must reach and, if it exists, its
// mode. A device or FIFO is opened by the name given, which also reaches the
// pipe behind a shell's /dev/fd/63 (a link the kernel makes, whose text
// "pipe:[506080]" names no file). A regular file is replaced where it really
// lies, so a symbolic link to it stays a link. A path that does not exist may
// be a dangling link: it is followed to the name to create. A kind of file
// that cannot take an output is an error.
func resolve(path string) (string, fs.FileInfo, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		if err := writable(st); err != nil {
			return "", nil, fmt.Errorf("write %s: %w", path, err)
		}
		return path, st, nil
	case err == nil:
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", nil, fmt.Errorf("write %s: %w", path, err)
		}
		return real, st, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", nil, fmt.Errorf("write %s: %w", path, err)
	}
	for range maxLinks {
		target, err := os.Readlink(path)
		if err != nil {
			return path, nil, nil // not a link: the file to create
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", nil, fmt.Errorf("write %s: %w", path, syscall.ELOOP)
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

// openInPlace opens a device or FIFO for writing without creating or
// truncating anything; for a FIFO it waits for a reader.
func openInPlace(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return f, nil
}

// writeInPlace writes data to a device or FIFO.
func writeInPlace(path string, data []byte) error {
	f, err := openInPlace(path)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// formatNames are words people give -o out of habit (kubectl's -o json) when
// they mean an output format.
var formatNames = map[string]bool{"json": true, "yaml": true, "yml": true, "table": true, "wide": true,
	"csv": true, "text": true, "name": true}

// ErrFormatName is wrapped by Check's error for a path that is a bare format
// name.
var ErrFormatName = errors.New("looks like a format, not a file")

// Check tells, before any work is done, whether an output can be written to
// path: its directory exists, it is not a kind of file WriteFile refuses, and
// it is not a bare format name such as "json" (no dot, no slash), which a
// user who types -o json almost never means as a file name. The errors name
// neither the path nor the flag; the caller adds them.
func Check(path string) error {
	if formatNames[strings.ToLower(path)] {
		return fmt.Errorf("%w (output formats are chosen with --format; to make a file called %s, give ./%s)", ErrFormatName, path, path)
	}
	target, st, err := resolve(path)
	if err != nil {
		return errors.Unwrap(err) // without resolve's "write PATH: "
	}
	if st == nil {
		if dst, err := os.Stat(filepath.Dir(target)); err != nil || !dst.IsDir() {
			return fmt.Errorf("directory %s does not exist", filepath.Dir(target))
		}
	}
	return nil
}
