// Package safefile writes files so that readers see either the old content or
// the new, never half of it: data goes to a temporary file in the same
// directory, is synced, and is renamed over the target.
package safefile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile atomically replaces path with data. On any error the target is
// untouched and no temporary file is left behind.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// File is an output written in a stream and put in place whole: writes go to
// a temporary file beside the target; Commit syncs it and renames it over the
// target, Abort (safe after Commit, so it can be deferred) removes it.
type File struct {
	f    *os.File
	path string
	perm os.FileMode
	done bool
}

// Create starts writing path.
func Create(path string, perm os.FileMode) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &File{f: f, path: path, perm: perm}, nil
}

// Write appends to the temporary file.
func (w *File) Write(b []byte) (int, error) { return w.f.Write(b) }

// Commit makes the written data the target's content.
func (w *File) Commit() error {
	if w.done {
		return fmt.Errorf("write %s: already committed or aborted", w.path)
	}
	w.done = true
	err := w.f.Chmod(w.perm)
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.f.Name())
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
	os.Remove(w.f.Name())
}
