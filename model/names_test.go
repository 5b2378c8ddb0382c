package model

import (
	"errors"
	"strings"
	"testing"
)

// TestNamesWithoutControlCharacters: a NUL, newline or tab in a job's or the
// workload's name is refused, naming the field; it would cut the one-line
// messages and tables that show the name, and libvirt's domain names.
func TestNamesWithoutControlCharacters(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"name": "w", "jobs": [{"name": "\u0000", "model": {"a": 60, "b": -0.5}}]}`, `jobs[0]: name: "\x00" holds a control character`},
		{`{"name": "w", "jobs": [{"name": "a", "model": {"a": 60, "b": -0.5}}, {"name": "a\nb", "model": {"a": 60, "b": -0.5}}]}`, `jobs[1]: name: "a\nb" holds a control character`},
		{`{"name": "x\ty", "jobs": [{"name": "a", "model": {"a": 60, "b": -0.5}}]}`, `name: "x\ty" holds a control character`},
	} {
		_, err := ParseWorkload([]byte(c.data), "w.json")
		var in *InputError
		if !errors.As(err, &in) || !errors.Is(err, ErrInvalidWorkload) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.data, err, c.want)
		}
	}
	if _, err := ParseWorkload([]byte(`{"name": "ünï 名前", "jobs": [{"name": "sort é", "model": {"a": 60, "b": -0.5}}]}`), "w.json"); err != nil {
		t.Errorf("printable Unicode names: %v", err)
	}
}
