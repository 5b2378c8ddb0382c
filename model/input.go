package model

import (
	"bufio"
	"bytes"
	"io"
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
