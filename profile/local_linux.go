package profile

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Local runs commands as child processes of packer and measures them with the
// kernel's accounting of the reaped process tree, see the package doc.
type Local struct {
	// Stdout receives the command's standard output; default discarded.
	Stdout io.Writer
	// StderrTail is how many bytes of the end of standard error to keep for
	// failure messages; default 2048.
	StderrTail int
}

var _ Executor = Local{}

// blockSize is the unit of ru_inblock and ru_oublock on Linux: the kernel
// divides its task I/O byte counters by 512 to fill them.
const blockSize = 512

// Execute runs argv in a process group of its own, so that cancelling ctx
// (Ctrl-C) kills the whole tree and not just its root, and so that the
// terminal's SIGINT reaches packer, which decides what to keep.
func (l Local) Execute(ctx context.Context, argv, env []string) (Run, error) {
	if l.StderrTail <= 0 {
		l.StderrTail = 2048
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout = l.Stdout
	// Standard error goes through a pipe of packer's own, read here, so that
	// Wait returns when the command exits, not when the last descendant that
	// inherited stderr closes it: the wall time is the command's.
	tail := &tailWriter{max: l.StderrTail}
	pr, pw, err := os.Pipe()
	if err != nil {
		return Run{}, err
	}
	copied := make(chan struct{})
	go func() { io.Copy(tail, pr); close(copied) }()
	cmd.Stderr = pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A Stdout that is not a file is copied by os/exec; do not wait for
	// descendants holding it for ever.
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		return Run{}, err
	}
	pw.Close()
	err = cmd.Wait()
	wall := time.Since(start)
	// Processes the command left behind would skew the next run: end them
	// (they are in its process group), then collect what stderr still holds.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		pr.Close()
		<-copied
	}
	pr.Close()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) && !errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil {
		return Run{}, err
	}
	r := Run{Wall: wall, StderrTail: tail.String()}
	ps := cmd.ProcessState
	if ps == nil {
		return r, err
	}
	r.ExitCode = ps.ExitCode()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		r.ReadBytes = ru.Inblock * blockSize
		r.WriteBytes = ru.Oublock * blockSize
	}
	return r, nil
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string { return string(t.buf) }
