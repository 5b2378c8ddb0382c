package safefile

import (
	"fmt"
	"path/filepath"
	"syscall"
)

// CheckWritable tells, before any work, that an output to path cannot be
// written because the directory WriteFile or Create would make its
// temporary file in refuses this user: "cannot write in /srv/ro: permission
// denied". That directory is resolve's: the one path is in, or, for a
// symbolic link to a name where no file is yet, the one that name is in. A
// device, a FIFO or one of packer's own descriptors is written in place and
// needs no directory; so does the existing file a link leads to, which is
// rewritten in place where its directory refuses (Check asks whether the
// file itself may be written). For a directory yet to be made (a file
// under an --out DIR), the nearest one that exists is asked, since the
// missing ones are made in it. Anything else (a path resolve refuses, a
// missing directory Check names) is left to Check and to the write.
func CheckWritable(path string) error {
	t, err := resolve(path)
	if err != nil || t.inPlace || (t.exists && t.through != "") {
		return nil
	}
	dest := t.path
	if t.through != "" {
		dest = t.through
	}
	dir := filepath.Dir(dest)
	for {
		err := syscall.Access(dir, wOK)
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
