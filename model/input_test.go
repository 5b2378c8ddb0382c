package model

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
)

func TestTrimAndSkipBOM(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\ufeff{}", "{}"},
		{"{}", "{}"},
		{"\ufeff", ""},
		{"\xef\xbb", "\xef\xbb"}, // a cut-off mark is data, not a mark
		{"a\ufeff", "a\ufeff"},   // only a leading mark goes
	} {
		if got := string(TrimBOM([]byte(tc.in))); got != tc.want {
			t.Errorf("TrimBOM(%q) = %q, want %q", tc.in, got, tc.want)
		}
		b, err := io.ReadAll(SkipBOM(strings.NewReader(tc.in)))
		if err != nil || string(b) != tc.want {
			t.Errorf("SkipBOM(%q) = %q, %v; want %q", tc.in, b, err, tc.want)
		}
	}
}

func TestParseWorkloadAcceptsBOM(t *testing.T) {
	w, err := ParseWorkload([]byte("\ufeff"+`{"name": "w", "jobs": [{"name": "j", "model": {"a": 100, "b": -0.5}}]}`), "w.json")
	if err != nil {
		t.Fatalf("workload with a BOM: %v", err)
	}
	if w.Name != "w" || len(w.Jobs) != 1 {
		t.Errorf("got %+v", w)
	}
}

// TestEmptyFileName: an empty file name is one line that says so, quoted,
// and counts as a file that does not exist (so a name may still be a
// built-in's).
func TestEmptyFileName(t *testing.T) {
	_, err := ReadFileLimit("", MaxWorkloadBytes, "a workload file")
	if err == nil || err.Error() != `"": the file name is empty` || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFileLimit(\"\"): %v", err)
	}
	if _, err := ReadWorkloadFile("", nil); err == nil || err.Error() != `"": the file name is empty` {
		t.Errorf("ReadWorkloadFile(\"\"): %v", err)
	}
}
