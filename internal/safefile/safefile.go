// Package safefile writes files so that readers see either the old content or
// the new, never half of it: data goes to a temporary file in the same
// directory, is synced, and is renamed over the target.
//
// Only a regular file (or a path that does not exist yet) is replaced so. A
// symbolic link is written through, as cp and a shell's > do (install, mv
// and sed -i would instead put a new file where the link was, and the link
// would be gone): the file it leads to is replaced as a regular file is, by
// a temporary file in its own directory renamed over its name, with its
// mode and owner, so the link survives and readers see the old content or
// the new. A file the user may not write is refused rather than replaced
// (a rename only needs the directory to be writable). Only where a rename
// would change the file people see (it has other hard links, or its owner
// cannot be kept) or cannot be made (its directory is not writable) is it
// rewritten in place, keeping its inode; the data is complete before it is
// opened, but a failure while writing (a full disk) leaves it cut short. A
// link to nothing creates the file it names. A character device (/dev/null), a FIFO (a pipe, as in bash's -o >(jq .)) or
// one of the process's own descriptors (/dev/stdout, /dev/fd/N, whatever
// file the shell opened there) is written in place, since renaming over it
// would destroy the device, the pipe or the file the user redirected to.
// Directories, sockets, block devices and other kinds of file are refused.
//
// Every temporary file is listed while it exists, so that a program stopped
// by a signal can remove them (RemoveTemps) before it exits: an interrupted
// run leaves the old outputs, not hidden halves of new ones.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// temps lists the temporary files that exist, by name; after RemoveTemps,
// closed refuses new ones.
var temps struct {
	sync.Mutex
	names  map[string]bool
	closed bool
}

// errClosed refuses a temporary file once RemoveTemps has run.
var errClosed = errors.New("the program is stopping: no new output")

// createTemp creates a temporary file for base in dir and lists it.
func createTemp(dir, base string) (f *os.File, err error) {
	_, err = listed(func() (name string, err error) {
		if f, err = os.CreateTemp(dir, "."+base+".tmp-*"); err != nil {
			return "", err
		}
		return f.Name(), nil
	})
	return f, err
}

// listed makes a temporary file or directory with create and lists its name
// for RemoveTemps, or refuses once RemoveTemps has run.
func listed(create func() (string, error)) (string, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return "", errClosed
	}
	name, err := create()
	if err != nil {
		return "", err
	}
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[name] = true
	return name, nil
}

// forget takes a temporary file that was renamed or removed off the list.
func forget(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

// RemoveTemps removes every temporary file this package has created and not
// yet renamed into place or removed, and every temporary directory of
// MkdirTemp not yet removed, with what it holds, and refuses new ones: for
// a signal handler about to exit the program. It returns how many it
// removed.
func RemoveTemps() int {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	n := 0
	for name := range temps.names {
		if os.RemoveAll(name) == nil {
			n++
		}
		delete(temps.names, name)
	}
	return n
}

// MkdirTemp makes a temporary directory, as os.MkdirTemp does, listed for
// RemoveTemps until the returned remove function (for a defer) removes it
// and all it holds: a program stopped by a signal leaves no working
// directory behind.
func MkdirTemp(dir, pattern string) (path string, remove func(), err error) {
	path, err = listed(func() (string, error) { return os.MkdirTemp(dir, pattern) })
	if err != nil {
		return "", nil, err
	}
	return path, func() {
		os.RemoveAll(path)
		forget(path)
	}, nil
}

// WriteFile atomically replaces path with data, or writes a device or FIFO in
// place (see the package comment). On any error a regular target is
// untouched and no temporary file is left behind.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.inPlace {
		return writeInPlace(t.path, data)
	}
	if t.through != "" {
		return writeThrough(path, t.through, bytes.NewReader(data), perm)
	}
	path = t.path
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, base)
	if err == nil {
		err = install(f, path, bytes.NewReader(data), perm)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// install makes the temporary file f, from createTemp, target's content:
// it appends what r holds (r may be nil), sets perm, syncs, closes and
// renames f over target. On an error f is closed and removed; either way it
// is off the list of temporary files.
func install(f *os.File, target string, r io.Reader, perm os.FileMode) (err error) {
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
		forget(f.Name())
	}()
	if r != nil {
		if _, err = io.Copy(f, r); err != nil {
			return err
		}
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), target)
}

// File is an output written in a stream and put in place whole: writes go to
// a temporary file beside the target; Commit syncs it and renames it over the
// target, Abort (safe after Commit, so it can be deferred) removes it.
// A device or FIFO is written in place, so Abort cannot take back what was
// written.
type File struct {
	f       *os.File
	path    string
	perm    os.FileMode
	done    bool
	inPlace bool
	through string // a link's target, written from f on Commit
}

// Create starts writing path.
func Create(path string, perm os.FileMode) (*File, error) {
	t, err := resolve(path)
	if err != nil {
		return nil, err
	}
	path = t.path
	if t.inPlace {
		f, err := openInPlace(path)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: path, inPlace: true}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, base)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &File{f: f, path: path, perm: perm, through: t.through}, nil
}

// Write appends to the temporary file.
func (w *File) Write(b []byte) (int, error) { return w.f.Write(b) }

// Commit makes the written data the target's content.
func (w *File) Commit() error {
	if w.done {
		return fmt.Errorf("write %s: already committed or aborted", w.path)
	}
	w.done = true
	if w.inPlace {
		if err := w.f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", w.path, err)
		}
		return nil
	}
	if w.through != "" {
		_, err := w.f.Seek(0, io.SeekStart)
		if err == nil {
			err = writeThrough(w.path, w.through, w.f, w.perm)
		}
		w.f.Close()
		os.Remove(w.f.Name())
		forget(w.f.Name())
		return err
	}
	if err := install(w.f, w.path, nil, w.perm); err != nil {
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	return nil
}

// Abort discards what was written; after Commit it does nothing.
func (w *File) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	if !w.inPlace {
		os.Remove(w.f.Name())
		forget(w.f.Name())
	}
}

// writeThrough writes what r holds into target, the file the symbolic link
// path leads to. It replaces target atomically, as WriteFile replaces a
// regular file: a temporary file in target's directory, with target's mode
// (perm for a new file) and, where it differs from ours and we may set it,
// its owner, renamed over target's name, so the link, which leads there by
// name, survives and a reader sees the old content or the new. Where that
// would change what the user sees of the file (it has other hard links, its
// owner cannot be kept) or cannot be done (its directory is not writable),
// target is rewritten in place instead, keeping its inode: then a failure
// part way leaves it cut short, which the package comment says.
func writeThrough(path, target string, r io.Reader, perm os.FileMode) error {
	if err := replaceThrough(target, r, perm); err != errInPlace {
		if err != nil {
			return fmt.Errorf("write %s (a link to %s): %w", path, target, unwrapPath(err))
		}
		return nil
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return fmt.Errorf("write %s (a link to %s): %w", path, target, unwrapPath(err))
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s (a link to %s): %w", path, target, unwrapPath(err))
	}
	return nil
}

// accessWrite is access(2)'s W_OK.
const accessWrite = 2

// errInPlace is replaceThrough's answer when target must be rewritten in
// place: nothing was written.
var errInPlace = errors.New("rewrite in place")

// replaceThrough replaces target by rename, as writeThrough says, or
// answers errInPlace having written nothing.
func replaceThrough(target string, r io.Reader, perm os.FileMode) (err error) {
	uid, gid := -1, -1
	st, err := os.Stat(target)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return errInPlace
	case err == nil:
		perm = st.Mode().Perm()
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			if sys.Nlink > 1 {
				return errInPlace
			}
			uid, gid = int(sys.Uid), int(sys.Gid)
		}
		if syscall.Access(target, accessWrite) != nil {
			return fs.ErrPermission // as opening it to write would say
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := createTemp(filepath.Dir(target), filepath.Base(target))
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return errInPlace // its directory is not ours to write
	} else if err != nil {
		return err
	}
	if uid >= 0 && (uid != os.Getuid() || gid != os.Getgid()) && f.Chown(uid, gid) != nil {
		f.Close()
		os.Remove(f.Name())
		forget(f.Name())
		return errInPlace // the owner could not be kept
	}
	return install(f, target, r, perm)
}

// unwrapPath drops an *fs.PathError's operation and path, which the caller's
// message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
