package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// utf8BOM is the UTF-8 byte order mark that Windows editors and spreadsheets
// put before a file's text.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// TrimBOM returns data without a leading UTF-8 byte order mark. Every reader
// of packer's input files calls it (or SkipBOM) first, so that a file saved
// by Notepad reads like any other: encoding/json refuses the mark as an
// invalid character.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// SkipBOM returns a reader of r's bytes without a leading UTF-8 byte order
// mark; see TrimBOM. It reads through a bufio.Reader (r itself if it is one).
func SkipBOM(r io.Reader) io.Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	return br
}

// ErrTooLarge is wrapped by the error for an input larger than packer reads
// of its kind: a file of bytes of no use would otherwise fill the memory
// (a workload read whole) or take for ever (a trace read as a stream).
var ErrTooLarge = errors.New("too large")

// MaxWorkloadBytes is the largest workload file packer reads, its own or a
// simulation workload an importer wrote: 256 MiB, about ten million tasks'
// durations, more than the simulator holds in a few GB.
const MaxWorkloadBytes = 256 << 20

// TooLargeError is the error for an input over limit bytes, of the kind
// named ("a workload file"): "too large: a workload file may be at most
// 256 MiB".
func TooLargeError(limit int64, kind string) error {
	return fmt.Errorf("%w: %s may be at most %s", ErrTooLarge, kind, byteSize(limit))
}

// byteSize writes n bytes in the largest binary unit that divides it.
func byteSize(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadAllLimit reads r to its end, refusing (TooLargeError) more than limit
// bytes: it reads at most limit+1 of them, so it ends quickly on an endless
// input such as /dev/zero, and holds no more than what it read.
func ReadAllLimit(r io.Reader, limit int64, kind string) ([]byte, error) {
	return readAllLimit(r, limit, kind, 0)
}

// readAllLimit is ReadAllLimit for an input of about hint bytes (0: not
// known). It reads into pieces that double up to 16 MiB rather than into one
// slice grown by copying, so that refusing an endless input costs the limit
// in memory, not two or three times it.
func readAllLimit(r io.Reader, limit int64, kind string, hint int64) ([]byte, error) {
	var pieces [][]byte
	var total int64
	size := max(64<<10, hint+1)
	for {
		piece := make([]byte, min(size, limit+1-total))
		n, err := io.ReadFull(r, piece)
		pieces, total = append(pieces, piece[:n]), total+int64(n)
		if total > limit {
			return nil, TooLargeError(limit, kind)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, max(hint+1, 16<<20))
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	return bytes.Join(pieces, nil), nil
}

// ReadFileLimit reads the file at path, of the kind named, refusing one of
// more than limit bytes: a regular file by its size before reading, anything
// else (a device, a pipe) once limit+1 bytes have come. Errors are
// *InputError naming path.
func ReadFileLimit(path string, limit int64, kind string) ([]byte, error) {
	if path == "" { // `-w ''`: say so, not "open : no such file"
		return nil, &InputError{File: path, Err: errEmptyPath{}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &InputError{File: path, Err: err}
	}
	defer f.Close()
	var hint int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > limit {
			return nil, &InputError{File: path, Err: TooLargeError(limit, kind)}
		}
		hint = st.Size()
	}
	data, err := readAllLimit(f, limit, kind, hint)
	if err != nil {
		return nil, &InputError{File: path, Err: err}
	}
	return data, nil
}

// errEmptyPath is ReadFileLimit's error for the path "": no file by that
// name exists, so it is fs.ErrNotExist too.
type errEmptyPath struct{}

func (errEmptyPath) Error() string        { return "the file name is empty" }
func (errEmptyPath) Is(target error) bool { return target == fs.ErrNotExist }

// LimitReader returns a reader of r's bytes that fails with TooLargeError
// once more than limit bytes have been read: a streaming reader's bound,
// where io.LimitReader's quiet end of file would pass for the input's end.
func LimitReader(r io.Reader, limit int64, kind string) io.Reader {
	return &limitReader{r: r, left: limit, limit: limit, kind: kind}
}

type limitReader struct {
	r           io.Reader
	left, limit int64
	kind        string
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, TooLargeError(l.limit, l.kind)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), TooLargeError(l.limit, l.kind)
	}
	return n, err
}
