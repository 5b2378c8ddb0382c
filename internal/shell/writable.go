package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// CheckWritableDir says, before any work, that an output at path cannot be
// written because the directory its atomic write makes a temporary file in
// (the directory of path, or of the file a symbolic link at path names)
// refuses this user: "cannot write in /srv/ro: permission denied". A device
// or FIFO at path is written in place and needs no directory. For a
// directory yet to be made (an --out DIR), the nearest one that exists is
// asked. Anything else is left to the write, which names it.
func CheckWritableDir(path string) error {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	} else if l, err := os.Readlink(path); err == nil { // a link to a file yet to be made
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(path), l)
		}
		target = l
	}
	if st, err := os.Stat(target); err == nil && !st.Mode().IsRegular() {
		return nil
	}
	dir := filepath.Dir(target)
	for {
		err := access(dir, 2) // 2: W_OK
		if err == syscall.ENOENT && filepath.Dir(dir) != dir {
			dir = filepath.Dir(dir) // a directory to be made: its parent is made in
			continue
		}
		if err == syscall.EACCES || err == syscall.EROFS || err == syscall.EPERM {
			return fmt.Errorf("cannot write in %s: %w", dir, err)
		}
		return nil
	}
}

// access is syscall.Access; a test running as root, to whom every
// directory is writable, makes it refuse one.
var access = syscall.Access
