//go:build !linux

package profile

import (
	"context"
	"errors"
	"io"
)

// Local would run commands as child processes; packer measures them with
// Linux's accounting only, see the package doc.
type Local struct {
	// Stdout receives the command's standard output; default discarded.
	Stdout io.Writer
	// StderrTail is how many bytes of standard error to keep; default 2048.
	StderrTail int
}

var _ Executor = Local{}

// Execute reports that measuring is not supported on this system.
func (Local) Execute(context.Context, []string, []string) (Run, error) {
	return Run{}, errors.ErrUnsupported
}
